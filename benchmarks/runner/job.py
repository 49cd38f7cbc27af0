"""A reference job from start to finish: train, write the files, and read them back as the board would.

The files are judged by the rules package's own ingest (`dawnboard.ingest`), so the results a job reports
are the board's reading of its log, not the job's own arithmetic; a run whose files the board would refuse
(one that never reached the threshold, say) is reported as such and is not submittable.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.runner.config import RunConfig
from benchmarks.runner.loop import ProgressCallback, RunResult, train_reference
from benchmarks.runner.record import DEFAULT_AUTHOR, DEFAULT_AUTHOR_EMAIL, WrittenRun, run_write
from dawnboard.ingest import validate_dawnbench_files
from dawnboard.rules import Track, rules_catalog
from dawnboard.scoring import HourlyPrice
from dawnboard.validation import IngestRejection, IngestResult


@dataclass(frozen=True)
class RunReport:
    """One finished run: the files written (on the main process only) and the board's reading of them."""

    result: RunResult
    written: WrittenRun | None
    verdict: IngestResult | IngestRejection | None

    @property
    def submittable(self) -> bool:
        return self.result.reached and self.verdict is not None and self.verdict.accepted

    def as_dict(self) -> dict[str, Any]:
        verdict = self.verdict
        return {
            "seed": self.result.config.seed,
            "reached": self.result.reached,
            "submittable": self.submittable,
            "time_to_accuracy_seconds": self.result.time_to_accuracy_seconds,
            "epochs_to_accuracy": self.result.epochs_to_accuracy,
            "results": verdict.results.as_dict() if verdict is not None and verdict.accepted else None,
            "errors": [issue.as_dict() for issue in getattr(verdict, "errors", [])],
            "paths": self.written.paths if self.written else {},
            "record": self.written.record if self.written else None,
            "busy": self.result.busy,
            "machine_load": self.result.machine_load.as_dict(),
        }


def default_out_dir(config: RunConfig, now: datetime | None = None) -> Path:
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    return Path("runs") / f"{config.task}-{config.recipe}-{stamp}"


def reference_run(
    config: RunConfig,
    out_dir: Path,
    *,
    progress: ProgressCallback | None = None,
    author: str = DEFAULT_AUTHOR,
    author_email: str = DEFAULT_AUTHOR_EMAIL,
    priced_as: HourlyPrice | None = None,
) -> RunReport:
    """Train, then (on the main process) write the run's files into `out_dir` and judge them; `priced_as` prices
    the entry as that catalog instance."""
    started_at = datetime.now(UTC)
    result = train_reference(config, progress=progress)
    if not result.processes.is_main:
        return RunReport(result=result, written=None, verdict=None)
    written = run_write(
        result, out_dir, started_at=started_at, author=author, author_email=author_email, priced_as=priced_as
    )
    verdict = validate_dawnbench_files(
        task_slug=config.task,
        track=Track.TRAIN,
        entry_bytes=written.entry_bytes,
        logs=[written.log_bytes],
        catalog=rules_catalog(),
    )
    return RunReport(result=result, written=written, verdict=verdict)


def reference_runs(
    config: RunConfig,
    runs: int,
    out_dir: Path,
    *,
    progress_for: Callable[[int], ProgressCallback | None] = lambda seed: None,
    **writer,
) -> list[RunReport]:
    """`runs` runs with seeds config.seed .. config.seed + runs - 1; each in its own folder when there are several."""
    reports = []
    for seed in range(config.seed, config.seed + runs):
        directory = out_dir if runs == 1 else out_dir / f"seed{seed}"
        reports.append(reference_run(config.with_seed(seed), directory, progress=progress_for(seed), **writer))
    return reports


def runs_summary(reports: list[RunReport]) -> dict[str, Any]:
    """Median and coefficient of variation (sample standard deviation over mean) of time and epochs to
    accuracy, over the runs that reached the threshold (DAWNBench's analysis reported both as low)."""
    reached = [report.result for report in reports if report.result.reached]
    times = [result.time_to_accuracy_seconds for result in reached]
    epochs = [float(result.epochs_to_accuracy) for result in reached]
    return {
        "runs": len(reports),
        "reached": len(reached),
        "time_to_accuracy_seconds": _spread(times),
        "epochs_to_accuracy": _spread(epochs),
    }


def _spread(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"median": None, "coefficient_of_variation": None, "min": None, "max": None}
    mean = statistics.fmean(values)
    deviation = statistics.stdev(values) if len(values) > 1 else None
    return {
        "median": statistics.median(values),
        "coefficient_of_variation": deviation / mean if deviation is not None and mean else None,
        "min": min(values),
        "max": max(values),
    }
