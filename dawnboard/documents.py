"""What a format's reader hands to validation: an entry document and a training log as rows.

Validation sees only these, never the bytes, so a second format (MLPerf's `:::MLLOG`) plugs in by
producing the same shapes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import numpy as np

from dawnboard.errors import Issue

if TYPE_CHECKING:
    from dawnboard.rules import TaskRules


class NonFiniteNumber(float):
    """A NaN or Infinity literal in an entry document, marked so validation can name its field."""


@dataclass(frozen=True)
class OutOfRangeNumber:
    """A JSON number no reader can hold (thousands of integer digits, an exponent past 10**18), marked so
    validation can name its field rather than the parser failing on the whole document."""

    text: str

    def __str__(self) -> str:
        return self.text if len(self.text) <= 40 else f"{self.text[:20]}...({len(self.text):,} characters)"


@dataclass(frozen=True)
class TrainingLog:
    """One row per evaluation, in the order written: epoch, wall-clock hours, the task's metric as written.

    `line_numbers[i]` is where row i stands in its file, for messages.
    """

    epochs: np.ndarray
    hours: np.ndarray
    metric: np.ndarray
    line_numbers: np.ndarray

    def __len__(self) -> int:
        return len(self.hours)

    def rows_sha256(self, *, through: int) -> str:
        """SHA-256 of the rows as read (epoch, hours, metric), from the first to row `through` included.

        Two logs that differ only in how they are written (spacing, line ends, column order, "1.50" for "1.5",
        rows after the one that decides the time) share it: it is what a copied log keeps however it is dressed.
        """
        rows = np.stack([self.epochs, self.hours, self.metric], axis=1)[: through + 1]
        return hashlib.sha256(np.ascontiguousarray(rows, dtype="<f8").tobytes()).hexdigest()


@dataclass(frozen=True)
class LogReading:
    """A training log and what its reader accepted but noted (a byte-order mark, CRLF, extra columns...)."""

    log: TrainingLog
    warnings: list[Issue] = field(default_factory=list)


# A reader bound to its file. Both raise RejectedInput naming every problem; the log reader is told the
# task version's rules because only they say which column holds the metric.
EntrySource = Callable[[], dict]
LogSource = Callable[["TaskRules"], LogReading]


# DAWNBench's site never published its authors' addresses: what is published of an entry leaves these out.
PRIVATE_FIELDS = ("authorEmail",)


def published(document: Mapping[str, Any]) -> dict:
    """The entry document as the public reads it: every field but the private ones."""
    return {name: value for name, value in document.items() if name not in PRIVATE_FIELDS}


def plain_json(value: Any) -> Any:
    """A document with its Decimals turned back into plain JSON numbers (floats), for storage and writing."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, Mapping):
        return {key: plain_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_json(item) for item in value]
    return value


# An entry's `hardware` as Dawnboard's own jobs write it when a run is priced as a catalog instance: the machine
# measured, then the instance ("2 CPU cores (AMD EPYC 7B13), priced as aws/c5.large"), which the resolver matches.
PRICED_AS = ", priced as "


def priced_as_hardware(machine: str, instance: str | None) -> str:
    """The `hardware` text of a run on `machine` priced as the catalog `instance` ("aws/c5.large"), if any."""
    return f"{machine}{PRICED_AS}{instance}" if instance else machine


def priced_as_parts(hardware: str) -> tuple[str, str] | None:
    """(the machine measured, the catalog instance) of a `hardware` text `priced_as_hardware` wrote; else None."""
    machine, found, instance = hardware.rpartition(PRICED_AS)
    return (machine, instance) if found and machine and instance and "/" in instance else None
