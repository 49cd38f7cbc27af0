"""Judge one MLPerf Training result set (a system's runs of one benchmark) as MLCommons' result summarizer scores it,
and stricter where the summarizer is silent.

A run's minutes are `(run_stop.time_ms - run_start.time_ms) / 60 / 1000`, the summarizer's float operations in its
order; the set's score is the olympic mean of its runs (`dawnboard.scoring.runs.olympic_mean`: the
`dropped_each_side` fastest and slowest dropped, failed runs first from the slow end), times scaling.json's factor.
For sets that pass MLCommons' compliance checker the score is the summarizer's to the last bit
(`tests/dawnboard/validation/test_mlperf.py` compares them).

Each run is:
- `success`: run_stop's status is "success" and one evaluation reached every quality target of the benchmark
  (`dawnboard.rounds`: the closed division's, compared as the checker compares them);
- `failed`: a status other than success (`run_aborted`), or no evaluation reaching the targets
  (`threshold_not_reached`). It counts as slower than every success, as the summarizer counts a run that fails
  its checker;
- `rejected`: its log could not be read (the reader's codes) or breaks a rule below.

Stricter than the summarizer:
- the benchmark must be one of the round's (`unknown_benchmark`; MLCommons' checker crashes there);
- each log's submission_benchmark must be its folder's (`benchmark_mismatch`);
- the set must hold exactly the runs its benchmark requires (`wrong_run_count`; the summarizer still scores it);
- a quality record must carry its number, its sub-metric and its progress (`malformed_quality`);
- a rejected run rejects the set, with its codes (the summarizer drops it as if it had failed);
- a run that stopped with another status than success fails even when its quality reached the target;
- more failed runs than `dropped_each_side` leave the set without a score (`too_many_failed_runs`), where the
  summarizer prints a score flagged "NOT correct".

The targets are the closed division's: since v1.0 the open division's checker requires no target, and times are
only compared at one target. For stable_diffusion, evaluated offline after training, the quality records carry
the offline evaluation's times: its `time_to_target_seconds` is not its run's minutes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from dawnboard.errors import ErrorCode, Issue, RejectedInput, capped_per_code, listed, shown
from dawnboard.mllog_records import SUCCESS, MllogLog, MllogRecord
from dawnboard.rounds import IN_METADATA, IN_VALUE, QualityTarget, RoundBenchmark, TrainingRound
from dawnboard.scoring.runs import olympic_mean

FAILED, REJECTED = "failed", "rejected"  # a run's status, beside SUCCESS
ACCEPTED = "accepted"  # a set's status, beside REJECTED
METADATA_KEYS = (
    "submission_org",
    "submission_division",
    "submission_platform",
    "submission_status",
    "global_batch_size",
)
GLOBAL_BATCH_SIZE = "global_batch_size"


@dataclass(frozen=True)
class CurvePoint:
    """One evaluation: seconds since run_start, the quality for each of the benchmark's targets (None where the
    evaluation gave none), the progress (in the benchmark's convergence unit), and its line in the log."""

    seconds_since_run_start: float
    qualities: tuple[float | None, ...]
    progress: float | None
    line: int

    @property
    def quality(self) -> float | None:
        """The first target's quality: the only one, for most benchmarks."""
        return self.qualities[0]


@dataclass(frozen=True)
class RunVerdict:
    """What became of one run.

    Attributes:
        file: the result file's name.
        status: SUCCESS, FAILED or REJECTED.
        minutes: run_stop less run_start, as the summarizer computes it (None for a rejected run).
        errors: why it failed or was rejected (each with its line where it has one).
        time_to_target_seconds: from run_start to the first evaluation reaching every target, or None.
        progress_at_target: that evaluation's epoch_num / samples_count / step_num, in `progress_unit`.
        progress_unit: the benchmark's convergence unit ("epochs", "samples", "steps").
        quality_at_target: that evaluation's quality, one per target.
        curve: every evaluation, in file order.
        run_start_time_ms: when the run started (ms since the epoch), for ordering runs.
        metadata: the submission's facts as the log wrote them (submission_org, submission_division...).
    """

    file: str
    status: str
    minutes: float | None = None
    errors: tuple[Issue, ...] = ()
    time_to_target_seconds: float | None = None
    progress_at_target: float | None = None
    progress_unit: str | None = None
    quality_at_target: tuple[float | None, ...] | None = None
    curve: tuple[CurvePoint, ...] = ()
    run_start_time_ms: float | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SetVerdict:
    """What became of one result set: ACCEPTED with its score in minutes, or REJECTED with its errors (a rejected
    run's errors among them, each naming its file in `field`)."""

    status: str
    score_minutes: float | None
    errors: tuple[Issue, ...]
    runs: tuple[RunVerdict, ...]
    scaling_factor: float | None
    warnings: tuple[Issue, ...] = ()

    @property
    def accepted(self) -> bool:
        return self.status == ACCEPTED


def judge_result_set(
    runs: Sequence[tuple[str, MllogLog | RejectedInput]],
    *,
    training_round: TrainingRound,
    folder_benchmark: str,
    scaling_factor: float | None,
    set_errors: Sequence[Issue] = (),
    warnings: Sequence[Issue] = (),
) -> SetVerdict:
    """Judge a set's runs and score it.

    Args:
        runs: (file name, its log as read or why it could not be read), one per result file.
        training_round: the round the set was submitted to.
        folder_benchmark: the benchmark its folder names.
        scaling_factor: scaling.json's factor, or None (no scaling.json).
        set_errors: what reading the set's folder found wrong (they reject it).
        warnings: what reading it left out without harm, passed through.
    """
    errors = list(set_errors)
    benchmark = training_round.benchmark(folder_benchmark)
    if benchmark is None:
        message = (
            f"{shown(folder_benchmark)} is not a benchmark of MLPerf Training {training_round.round}; its benchmarks "
            f"are {listed(list(training_round.benchmark_names))}."
        )
        errors.append(Issue(ErrorCode.UNKNOWN_BENCHMARK, message, field=folder_benchmark))
        return SetVerdict(REJECTED, None, tuple(capped_per_code(errors)), (), scaling_factor, tuple(warnings))
    verdicts = tuple(_judged(file, log, benchmark) for file, log in runs)
    for verdict in verdicts:
        if verdict.status == REJECTED:
            errors.extend(
                replace(issue, message=f"{verdict.file}: {issue.message}", field=verdict.file)
                for issue in verdict.errors
            )
    if len(verdicts) != benchmark.required_runs:
        message = (
            f"{benchmark.name} needs {benchmark.required_runs} runs (result files); the set holds {len(verdicts)}."
        )
        errors.append(Issue(ErrorCode.WRONG_RUN_COUNT, message))
    score = _score(verdicts, benchmark, scaling_factor, errors)
    status = ACCEPTED if not errors else REJECTED
    return SetVerdict(
        status, score if not errors else None, tuple(capped_per_code(errors)), verdicts, scaling_factor, tuple(warnings)
    )


def _judged(file: str, log: MllogLog | RejectedInput, benchmark: RoundBenchmark) -> RunVerdict:
    if isinstance(log, RejectedInput):
        return RunVerdict(file, REJECTED, errors=tuple(log.issues))
    return judge_run(file, log, benchmark=benchmark)


def _score(
    verdicts: Sequence[RunVerdict], benchmark: RoundBenchmark, scaling_factor: float | None, errors: list[Issue]
) -> float | None:
    failed = sum(verdict.status == FAILED for verdict in verdicts)
    if failed > benchmark.dropped_each_side:
        message = (
            f"{failed} runs failed; the olympic mean of {benchmark.name} drops at most {benchmark.dropped_each_side} "
            "from the slow end, so the set has no score."
        )
        errors.append(Issue(ErrorCode.TOO_MANY_FAILED_RUNS, message))
        return None
    times = [verdict.minutes for verdict in verdicts if verdict.status == SUCCESS]
    mean = olympic_mean(times, failed=failed, dropped_each_side=benchmark.dropped_each_side)
    if mean is None:
        if not errors:  # only a set of the wrong size can leave nothing to average, and that is an error already
            errors.append(Issue(ErrorCode.TOO_MANY_FAILED_RUNS, "No successful run is left to average."))
        return None
    return mean if scaling_factor is None else mean * scaling_factor


def judge_run(file: str, log: MllogLog, *, benchmark: RoundBenchmark) -> RunVerdict:
    """Judge one readable run of `benchmark`."""
    metadata = {key: log.single_values[key] for key in METADATA_KEYS if key in log.single_values}
    basics = {"run_start_time_ms": log.run_start.time_ms, "metadata": metadata}
    if log.submission_benchmark != benchmark.name:
        message = (
            f"The log's submission_benchmark is {shown(log.submission_benchmark)}; its folder is {benchmark.name}."
        )
        issue = Issue(ErrorCode.BENCHMARK_MISMATCH, message, field="submission_benchmark")
        return RunVerdict(file, REJECTED, errors=(issue,), **basics)
    curve, problems = evaluations(log, benchmark)
    global_batch_size, batch_problem = _global_batch_size(log, benchmark)
    problems += [batch_problem] if batch_problem else []
    if problems:
        return RunVerdict(file, REJECTED, errors=tuple(capped_per_code(problems)), **basics)
    reaching = next((point for point in curve if _reaches(point, benchmark.targets, global_batch_size)), None)
    reasons = _failure_reasons(log, benchmark, reaching)
    target = {}
    if reaching is not None:
        target = {
            "time_to_target_seconds": reaching.seconds_since_run_start,
            "progress_at_target": reaching.progress,
            "quality_at_target": reaching.qualities,
        }
    return RunVerdict(
        file,
        FAILED if reasons else SUCCESS,
        minutes=log.minutes,
        errors=tuple(reasons),
        progress_unit=benchmark.convergence_unit,
        curve=tuple(curve),
        **target,
        **basics,
    )


def _failure_reasons(log: MllogLog, benchmark: RoundBenchmark, reaching: CurvePoint | None) -> list[Issue]:
    reasons = []
    if log.run_status != SUCCESS:
        message = f"run_stop's status is {shown(log.run_status)}, not success: the run counts as failed."
        reasons.append(Issue(ErrorCode.RUN_ABORTED, message, field="status", line=log.run_stop.line))
    if reaching is None:
        targets = " and ".join(target.label for target in benchmark.targets)
        message = f"No evaluation reached {targets}: the run counts as failed."
        reasons.append(Issue(ErrorCode.THRESHOLD_NOT_REACHED, message))
    return reasons


def _reaches(point: CurvePoint, targets: Sequence[QualityTarget], global_batch_size: float | None) -> bool:
    return all(
        quality is not None and target.reached_by(quality, global_batch_size=global_batch_size)
        for quality, target in zip(point.qualities, targets, strict=True)
    )


def _global_batch_size(log: MllogLog, benchmark: RoundBenchmark) -> tuple[float | None, Issue | None]:
    """The run's global batch size where a target depends on it (v0.7 BERT), or the problem finding it."""
    if all(target.large_batch_from is None for target in benchmark.targets):
        return None, None
    value = log.single_values.get(GLOBAL_BATCH_SIZE)
    if _is_number(value):
        return value, None
    message = f"{benchmark.name}'s target depends on global_batch_size, which the log does not give as a number."
    return None, Issue(ErrorCode.MISSING_MLLOG_KEY, message, field=GLOBAL_BATCH_SIZE)


def evaluations(log: MllogLog, benchmark: RoundBenchmark) -> tuple[list[CurvePoint], list[Issue]]:
    """The run's evaluations in file order, and the quality records it could not read.

    One record is one evaluation, except for targets whose sub-metrics are separate records (IN_METADATA): those
    are grouped by their progress, timed by the last of them, as MLCommons' checker aggregates them.
    """
    if any(target.sub_metric_in == IN_METADATA for target in benchmark.targets):
        return _grouped_evaluations(log, benchmark)
    points, problems = [], []
    for record in log.records_of(benchmark.targets[0].metric):
        progress = record.metadata.get(benchmark.progress_key)
        qualities = tuple(_quality_in(record.value, target) for target in benchmark.targets)
        problem = _quality_problem(record, benchmark, progress, qualities)
        if problem is not None:
            problems.append(problem)
            continue
        seconds = (record.time_ms - log.run_start.time_ms) / 1000
        points.append(CurvePoint(seconds, qualities, progress, record.line))
    return points, problems


def _grouped_evaluations(log: MllogLog, benchmark: RoundBenchmark) -> tuple[list[CurvePoint], list[Issue]]:
    positions = {target.sub_metric: index for index, target in enumerate(benchmark.targets)}
    groups: dict[float, tuple[list[float | None], MllogRecord]] = {}
    problems = []
    for record in log.records_of(benchmark.targets[0].metric):
        index = positions.get(record.metadata.get("metric"))
        if index is None:
            continue  # a metric no target reads
        progress = record.metadata.get(benchmark.progress_key)
        quality = record.value if _is_number(record.value) else None
        problem = _quality_problem(record, benchmark, progress, (quality,))
        if problem is not None:
            problems.append(problem)
            continue
        qualities, latest = groups.get(progress, ([None] * len(benchmark.targets), record))
        qualities[index] = quality
        groups[progress] = (qualities, record if record.time_ms >= latest.time_ms else latest)
    points = [
        CurvePoint((latest.time_ms - log.run_start.time_ms) / 1000, tuple(qualities), progress, latest.line)
        for progress, (qualities, latest) in groups.items()
    ]
    return points, problems


def _quality_in(value: Any, target: QualityTarget) -> float | None:
    if target.sub_metric_in == IN_VALUE:
        value = value.get(target.sub_metric) if isinstance(value, dict) else None
    return value if _is_number(value) else None


def _quality_problem(
    record: MllogRecord, benchmark: RoundBenchmark, progress: Any, qualities: tuple[float | None, ...]
) -> Issue | None:
    if not _is_number(progress):
        problem = f"has no {benchmark.progress_key} in its metadata"
    elif any(quality is None for quality in qualities):
        problem = f"does not hold {_expected_shape(benchmark)}"
    else:
        return None
    message = f"Line {record.line}: {record.key} {problem}, as {benchmark.name}'s checker requires."
    return Issue(ErrorCode.MALFORMED_QUALITY, message, field=record.key, line=record.line)


def _expected_shape(benchmark: RoundBenchmark) -> str:
    target = benchmark.targets[0]
    if target.sub_metric_in == IN_VALUE:
        names = ", ".join(target.sub_metric for target in benchmark.targets)
        return f"an object of numbers ({names}) as its value"
    return "a number as its value"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
