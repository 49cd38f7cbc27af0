"""An upload, judged: the files' format readers bound to their bytes, then the benchmark's validation.

The one place bytes meet the rules. A second format (MLPerf's `:::MLLOG`) adds its own function here,
binding its readers, and reuses `validate_submission` unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import partial

from dawnboard.errors import ErrorCode, Issue, RejectedInput, WarningCode
from dawnboard.formats.dawnbench import read_entry, read_training_log
from dawnboard.formats.mllog import ResultSet, read_mllog
from dawnboard.mllog_records import MllogLog
from dawnboard.rounds import TrainingRound, round_named
from dawnboard.rules import MLPERF_VERSION_PREFIX, LogFormat, RulesCatalog
from dawnboard.validation import IngestRejection, IngestResult, validate_submission
from dawnboard.validation.mlperf import SetVerdict, judge_result_set
from dawnboard.validation.mlperf_entry import mlperf_ingest_result


def validate_dawnbench_files(
    *, task_slug: str, track: str, entry_bytes: bytes | None, logs: Sequence[bytes], catalog: RulesCatalog
) -> IngestResult | IngestRejection:
    """Validate a DAWNBench v1.0 entry JSON (and, for training, the TSV log of each run) and recompute its results.

    Args:
        task_slug: the task the submitter names, e.g. "cifar10".
        track: "train" or "inference".
        entry_bytes: the entry JSON file, as uploaded (None: none was sent).
        logs: the TSV log of each run, as uploaded; ignored with a warning for inference.
        catalog: task slug -> entry `version` -> the rules of that task version.
    """
    return validate_submission(
        task_slug=task_slug,
        track=track,
        entry=None if entry_bytes is None else partial(read_entry, entry_bytes),
        logs=[partial(read_training_log, log_bytes) for log_bytes in logs],
        catalog=catalog,
    )


def validate_mllog_files(
    *,
    task_slug: str,
    version: str,
    system_json: bytes | None,
    logs: Sequence[tuple[str, bytes]],
    catalog: RulesCatalog,
    scaling_factor: float | None = None,
) -> IngestResult | IngestRejection:
    """Validate one MLPerf Training result set (a system JSON, optional; one MLLOG result file per run) against its
    round's rules and score it as MLCommons' result summarizer does, stricter (`judge_result_set`).

    Args:
        task_slug: the benchmark's task, e.g. "bert" (ResNet-50's is "imagenet").
        version: the round's task version, e.g. "mlperf-v4.0".
        system_json: the `<submitter>/systems/<system>.json` description, as sent (None: none).
        logs: (file name, bytes) of each result file, in order.
        scaling_factor: the set's scaling.json factor (None: none), which multiplies its score.
    """
    rules = catalog.get(task_slug, {}).get(version)
    if rules is None or rules.log_format != LogFormat.MLLOG:
        known = ", ".join(sorted(v for v, r in catalog.get(task_slug, {}).items() if r.log_format == LogFormat.MLLOG))
        message = (
            f"{task_slug[:50]} has no MLPerf Training version {version[:50]}; its MLPerf versions: {known or 'none'}."
        )
        return IngestRejection(errors=[Issue(ErrorCode.UNKNOWN_VERSION, message, field="round")])
    training_round = round_named(version.removeprefix(MLPERF_VERSION_PREFIX))
    system, system_warnings = _system_description(system_json)
    runs: list[tuple[str, MllogLog | RejectedInput]] = []
    for name, data in logs:
        try:
            runs.append((name, read_mllog(data, file_name=name)))
        except RejectedInput as rejection:
            runs.append((name, rejection))
    verdict = judge_result_set(
        runs,
        training_round=training_round,
        folder_benchmark=rules.benchmark,
        scaling_factor=scaling_factor,
        warnings=system_warnings,
    )
    return mlperf_ingest_result(verdict, rules=rules, system=system, logs=[log for _, log in runs])


def _system_description(system_json: bytes | None) -> tuple[dict, list[Issue]]:
    """The system JSON as a dict ({} when absent); one that is not a JSON object is left out with a warning."""
    if system_json is None:
        return {}, []
    try:
        document = json.loads(system_json)
    except (ValueError, RecursionError):
        document = None
    if isinstance(document, dict):
        return document, []
    note = Issue(
        WarningCode.SYSTEM_DESCRIPTION_IGNORED,
        "The system description is not a JSON object; the entry names the system without it.",
        field="entry",
    )
    return {}, [note]


def judge_mlperf_set(result_set: ResultSet, *, training_round: TrainingRound) -> SetVerdict:
    """Read and judge one MLPerf Training result set (`dawnboard.formats.mllog.read_results_tree` yields them).

    Each result file's log is read (`read_mllog`); a file the tree reader refused, or a log it cannot read, is a
    rejected run. The set is judged by `dawnboard.validation.mlperf.judge_result_set`.
    """
    runs: list[tuple[str, MllogLog | RejectedInput]] = []
    for result_file in result_set.files:
        if result_file.error is not None:
            runs.append((result_file.name, RejectedInput(result_file.error)))
            continue
        try:
            log = read_mllog(result_file.data, file_name=f"{result_set.folder}/{result_file.name}")
        except RejectedInput as rejection:
            runs.append((result_file.name, rejection))
        else:
            runs.append((result_file.name, log))
    return judge_result_set(
        runs,
        training_round=training_round,
        folder_benchmark=result_set.benchmark,
        scaling_factor=result_set.scaling_factor,
        set_errors=result_set.errors,
        warnings=result_set.warnings,
    )
