"""What a task version asks of an entry: the quality metric, where to find it, and the threshold."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

PERCENT = "percent"
FRACTION = "fraction"
METRIC_UPPER_BOUND = {PERCENT: 100.0, FRACTION: 1.0}

KNOWN_TRACKS = ("train", "inference")
EPOCH, HOURS = "epoch", "hours"  # the two columns every training log has, beside the task's metric


@dataclass(frozen=True)
class TaskRules:
    """The rules of one task version, as the ingest needs them (built from the database by the service).

    Attributes:
        task_slug: e.g. "cifar10".
        version: the DAWNBench version string an entry names in its `version` field, e.g. "v1.0".
        metric_label: human name of the quality metric, for messages.
        log_column: the TSV column holding the metric.
        inference_fields: JSON fields of an inference entry holding the metric, preferred first.
        threshold: the quality to reach, in the metric's scale.
        scale: PERCENT (0-100) or FRACTION (0-1).
    """

    task_slug: str
    version: str
    metric_label: str
    log_column: str
    inference_fields: tuple[str, ...]
    threshold: Decimal
    scale: str

    @property
    def upper_bound(self) -> float:
        return METRIC_UPPER_BOUND[self.scale]
