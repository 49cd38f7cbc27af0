"""An upload, judged: the files' format readers bound to their bytes, then the benchmark's validation.

The one place bytes meet the rules. A second format (MLPerf's `:::MLLOG`) adds its own function here,
binding its readers, and reuses `validate_submission` unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from functools import partial

from dawnboard.errors import ErrorCode, Issue, RejectedInput, WarningCode, shown
from dawnboard.formats.dawnbench import read_entry, read_training_log
from dawnboard.formats.loadgen import (
    LoadGenTest,
    is_loadgen_detail,
    is_loadgen_summary,
    read_loadgen_detail,
    read_loadgen_summary,
    summary_contradictions,
)
from dawnboard.formats.mllog import ResultSet, read_mllog
from dawnboard.mllog_records import MllogLog
from dawnboard.rounds import TrainingRound, round_named
from dawnboard.rules import MLPERF_VERSION_PREFIX, LogFormat, RulesCatalog, Track
from dawnboard.validation import IngestRejection, IngestResult, validate_submission
from dawnboard.validation.convergence import compliance_verdict, rcp_verdict
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
        logs: the TSV log of each run, as uploaded. For inference: MLPerf LoadGen's detail log and, optionally,
            its summary, which the verdict then carries (`loadgen_logs_judged`); any other log is ignored with
            a warning.
        catalog: task slug -> entry `version` -> the rules of that task version.
    """
    test, loadgen_errors, logs = None, [], list(logs)
    if track == Track.INFERENCE.value and logs:
        test, loadgen_errors, logs = _loadgen_logs(logs)
    verdict = validate_submission(
        task_slug=task_slug,
        track=track,
        entry=None if entry_bytes is None else partial(read_entry, entry_bytes),
        logs=[partial(read_training_log, log_bytes) for log_bytes in logs],
        catalog=catalog,
    )
    if test is None and not loadgen_errors:
        return verdict
    return loadgen_logs_judged(verdict, test, loadgen_errors)


def loadgen_logs_judged(
    verdict: IngestResult | IngestRejection, test: LoadGenTest | None, errors: list[Issue]
) -> IngestResult | IngestRejection:
    """An inference verdict with its LoadGen test: refused where the logs are (`errors`), where LoadGen judged the
    test INVALID or of another mode (`LoadGenTest.problems`), or where the test contradicts the entry: another
    scenario than its `misc.scenario`, or a claimed mean latency outside the latencies LoadGen measured in a single
    stream (a mean lies between the fastest and the slowest query of the same model). Else accepted with it."""
    errors = list(errors)
    if test is not None:
        errors += test.problems(scenario=test.scenario)
        if verdict.accepted:
            errors += _loadgen_contradictions(test, verdict.entry)
    if errors or not verdict.accepted:
        return IngestRejection(errors=[*getattr(verdict, "errors", []), *errors], warnings=verdict.warnings)
    return replace(verdict, loadgen=test)


def _loadgen_logs(logs: list[bytes]) -> tuple[LoadGenTest | None, list[Issue], list[bytes]]:
    """An inference entry's logs sorted out: its LoadGen test (from the one detail log, checked against the summary
    where one came), the errors found, and the logs that are neither (ignored, with a warning)."""
    details, summaries, others = [], [], []
    for position, data in enumerate(logs):
        if is_loadgen_detail(data):
            details.append((position, data))
        elif is_loadgen_summary(data):
            summaries.append((position, data))
        else:
            others.append(data)
    if not details and not summaries:
        return None, [], logs
    if len(details) != 1 or len(summaries) > 1:
        message = (
            f"An inference entry's LoadGen logs are one detail log (mlperf_log_detail.txt) and at most one summary "
            f"(mlperf_log_summary.txt); these are {len(details)} detail log(s) and {len(summaries)} summaries."
        )
        return None, [Issue(ErrorCode.LOADGEN_LOGS, message, field="log")], others
    position, detail = details[0]
    try:
        test = read_loadgen_detail(detail, file_name=f"log {position + 1} (LoadGen's detail log)")
    except RejectedInput as rejected:
        return None, [replace(issue, field=issue.field or "log") for issue in rejected.issues], others
    errors = []
    for position, summary in summaries:
        said = read_loadgen_summary(summary)
        errors += summary_contradictions(said, test, file_name=f"log {position + 1} (LoadGen's summary)")
    return test, errors, others


def _loadgen_contradictions(test: LoadGenTest, entry) -> list[Issue]:
    issues = []
    misc = entry.misc if isinstance(entry.misc, dict) else {}
    claimed_scenario = misc.get("scenario")
    if claimed_scenario is not None and claimed_scenario != test.scenario:
        message = (
            f"The entry's misc.scenario is {shown(repr(claimed_scenario))}; its LoadGen log is of {test.scenario}."
        )
        issues.append(Issue(ErrorCode.LOADGEN_CONTRADICTS_ENTRY, message, field="misc.scenario"))
    latency = float(entry.latency_ms) if entry.latency_ms is not None else None
    if test.scenario == "single-stream" and latency is not None and test.min_ms is not None and test.max_ms is not None:
        if not test.min_ms <= latency <= test.max_ms:
            message = (
                f"The entry's latency {latency} ms lies outside the {test.min_ms} to {test.max_ms} ms LoadGen measured "
                "the model's queries at in a single stream."
            )
            issues.append(Issue(ErrorCode.LOADGEN_CONTRADICTS_ENTRY, message, field="latency"))
    return issues


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
    result = mlperf_ingest_result(verdict, rules=rules, system=system, logs=[log for _, log in runs])
    if not result.accepted:
        return result
    return replace(
        result,
        compliance=compliance_verdict(logs, ruleset=training_round.ruleset),
        convergence=rcp_verdict(logs, ruleset=training_round.ruleset, benchmark=rules.benchmark),
    )


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
