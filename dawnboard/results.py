"""What Dawnboard recomputes of an entry, and the one JSON shape it is shown in (API, commands, verdicts)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from decimal import Decimal
from typing import Any


@dataclass(frozen=True)
class Results:
    """The recomputed figures. Units are in the names; money is Decimal."""

    accuracy: float | None = None
    time_to_accuracy_seconds: float | None = None
    time_to_accuracy_epoch: float | None = None
    time_to_accuracy_line: int | None = None
    training_cost_usd: Decimal | None = None
    latency_ms: float | None = None
    inference_cost_usd_per_10k: Decimal | None = None

    @classmethod
    def of(cls, record: Any) -> Results:
        """The results stored on any record with attributes of the same names (an entry row, say)."""
        return cls(**{field.name: getattr(record, field.name) for field in dataclasses.fields(cls)})

    def as_dict(self) -> dict:
        """The results as JSON: money as a plain number, the log line left out (it is the entry's detail)."""
        return {
            "accuracy": self.accuracy,
            "time_to_accuracy_seconds": self.time_to_accuracy_seconds,
            "time_to_accuracy_epoch": self.time_to_accuracy_epoch,
            "training_cost_usd": _number_or_none(self.training_cost_usd),
            "latency_ms": self.latency_ms,
            "inference_cost_usd_per_10k": _number_or_none(self.inference_cost_usd_per_10k),
        }


def _number_or_none(value: Decimal | None) -> float | None:
    return None if value is None else float(value)
