"""What the MLPerf log reader (`dawnboard.formats.mllog`) hands to validation (`dawnboard.validation.mlperf`): one
run's `:::MLLOG` records, already checked for what every run's log must hold.

It sits below both, beside `documents`, so that neither imports the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

# Keys a run writes once. Written again with the same value (several processes print them) they are read once;
# with another value they make the log ambiguous. run_start and run_stop must agree in time and status too.
SINGLE_VALUED_KEYS = frozenset(
    {
        "submission_benchmark",
        "submission_org",
        "submission_division",
        "submission_platform",
        "submission_status",
        "submission_poc_name",
        "submission_entry",
        "global_batch_size",
        "train_samples",
        "eval_samples",
        "run_start",
        "run_stop",
    }
)
RUN_START, RUN_STOP, SUBMISSION_BENCHMARK = "run_start", "run_stop", "submission_benchmark"
SUCCESS = "success"  # run_stop's metadata status of a run that reached its target


@dataclass(frozen=True, slots=True)
class MllogRecord:
    """One `:::MLLOG` record: its key, its value as JSON reads it, its time in ms since the epoch, its metadata
    (an empty dict when it had none), and the line it stands on in its file (1-based)."""

    key: str
    value: Any
    time_ms: float
    metadata: Mapping[str, Any]
    line: int


@dataclass(frozen=True)
class MllogLog:
    """One run's log, as read: every record in file order (a single-valued key's repeats left out), and what the
    reader guarantees: a run_start, a run_stop no earlier, a submission_benchmark that is a string.

    Attributes:
        file_name: the file it was read from, for messages.
        records: every record in file order.
        single_values: the value of each single-valued key the log wrote (see SINGLE_VALUED_KEYS).
        run_start, run_stop: the records that time the run.
        other_lines: lines without `:::MLLOG ` (the program's other output), not read.
    """

    file_name: str
    records: tuple[MllogRecord, ...]
    single_values: Mapping[str, Any]
    run_start: MllogRecord
    run_stop: MllogRecord
    other_lines: int = 0

    @property
    def submission_benchmark(self) -> str:
        return self.single_values[SUBMISSION_BENCHMARK]

    @property
    def run_status(self) -> Any:
        """run_stop's metadata status: "success", "aborted"..., or None when it wrote none."""
        return self.run_stop.metadata.get("status")

    @property
    def minutes(self) -> float:
        """run_stop less run_start, in minutes, computed as MLCommons' result summarizer does (the same float
        operations in the same order, so scores agree to the last bit)."""
        return (self.run_stop.time_ms - self.run_start.time_ms) / 60 / 1000

    def records_of(self, key: str) -> tuple[MllogRecord, ...]:
        """The records of `key`, in file order."""
        return self._records_by_key.get(key, ())

    @cached_property
    def _records_by_key(self) -> dict[str, tuple[MllogRecord, ...]]:
        grouped: dict[str, list[MllogRecord]] = {}
        for record in self.records:
            grouped.setdefault(record.key, []).append(record)
        return {key: tuple(found) for key, found in grouped.items()}
