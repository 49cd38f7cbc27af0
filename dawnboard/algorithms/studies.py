"""A study's runs summarised by value (the DAWNBench paper's studies, run by `benchmarks.algorithms.study`): plain
Python over the runs as the study records them (dicts with `value`, `reached`, `time_to_target_s`,
`epochs_to_target`, `throughput_examples_per_s`)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any


def value_summaries(values: Sequence[Any], runs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each value's runs summarised: how many reached the target, and the median time to target, epochs to target
    (over the runs that reached it; None where none did) and throughput (over all)."""
    summaries = []
    for value in values:
        own = [run for run in runs if run["value"] == value]
        reached = [run for run in own if run["reached"]]
        summaries.append(
            {
                "value": value,
                "runs": len(own),
                "reached": len(reached),
                "median_time_to_target_s": _median([run["time_to_target_s"] for run in reached]),
                "median_epochs_to_target": _median([run["epochs_to_target"] for run in reached]),
                "median_throughput_examples_per_s": _median([run["throughput_examples_per_s"] for run in own]),
            }
        )
    return summaries


def _median(numbers: list[float]) -> float | None:
    return statistics.median(numbers) if numbers else None
