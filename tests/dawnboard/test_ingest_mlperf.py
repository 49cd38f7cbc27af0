"""An MLPerf results tree read and judged end to end (`judge_mlperf_set`), and its scores checked against
MLCommons' own result summarizer (mlperf-logging 4.1.68) on sets whose logs pass MLCommons' compliance checker."""

from __future__ import annotations

import contextlib
import io
import logging
import os
from pathlib import Path

import pytest
from mlperf_logging.result_summarizer import result_summarizer

from dawnboard.errors import ErrorCode
from dawnboard.formats.mllog import read_results_tree
from dawnboard.ingest import judge_mlperf_set
from dawnboard.rounds import round_named
from dawnboard.validation.mlperf import ACCEPTED, FAILED, REJECTED, SUCCESS
from tests.dawnboard.mllog_runs import START_MS, run_log, write_set

# Durations in ms with odd remainders, so each run's minutes are a float the two computations must agree on.
DURATIONS_MS = [1_234_567 + 7_919 * index + (index * 37) % 11 for index in range(40)]


def official_score(folder: Path, *, benchmark: str, ruleset: str) -> tuple[dict, float | None, float]:
    """MLCommons' summarizer on one set folder: the runs it scored, its score and its scaling factor."""
    logging.disable(logging.CRITICAL)  # the checker logs every message it finds; the test looks at the scores
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            scored, _, score, _, factor = result_summarizer._compute_strong_score_standalone(
                benchmark, "sys", False, str(folder), "training", ruleset, return_full_scores=True
            )
    finally:
        logging.disable(logging.NOTSET)
    return {os.path.basename(path): minutes for path, minutes in scored.items()}, score, factor


def generated_set(root: Path, *, benchmark: str, ruleset: str, runs: int, failing: set[int], reached, short):
    """A set of `runs` complete closed-division logs; those in `failing` never reach the target."""
    logs = [
        run_log(
            benchmark=benchmark,
            duration_ms=DURATIONS_MS[index],
            start_ms=START_MS + 10_000_000 * index,
            evaluations=short if index in failing else reached,
            compliant_with=ruleset,
        )
        for index in range(runs)
    ]
    return write_set(root, logs, benchmark=benchmark)


@pytest.mark.parametrize(
    ("benchmark", "ruleset", "round_name", "runs", "failing", "reached", "short", "scaling"),
    [
        ("ssd", "4.1.0", "v4.1", 5, {1}, ((1, 0.2), (2, 0.345)), ((1, 0.2), (2, 0.3)), None),
        ("gnn", "4.1.0", "v4.1", 10, set(), ((1, 0.5), (2, 0.73)), ((1, 0.5),), "1.0188034188034187"),
        ("unet3d", "1.0.0", "v1.0", 40, {0, 5, 17}, ((1, 0.5), (2, 0.91)), ((1, 0.9),), None),
    ],
    ids=["ssd-v4.1-a-failed-run", "gnn-v4.1-scaled", "unet3d-v1.0-three-failed-runs"],
)
def test_scores_are_those_of_mlcommons_result_summarizer(
    tmp_path, benchmark, ruleset, round_name, runs, failing, reached, short, scaling
):
    folder = generated_set(
        tmp_path, benchmark=benchmark, ruleset=ruleset, runs=runs, failing=failing, reached=reached, short=short
    )
    if scaling is not None:
        (folder / "scaling.json").write_text(f'{{"scaling_factor": {scaling}}}')

    (result_set,) = read_results_tree(tmp_path)
    verdict = judge_mlperf_set(result_set, training_round=round_named(round_name))
    scored, score, factor = official_score(folder, benchmark=benchmark, ruleset=ruleset)

    # The checker accepted exactly the runs judged successful, with the same minutes to the bit.
    assert scored == {run.file: run.minutes for run in verdict.runs if run.status == SUCCESS}
    assert {run.file for run in verdict.runs if run.status == FAILED} == {f"result_{i + 1}.txt" for i in failing}
    assert verdict.status == ACCEPTED and verdict.scaling_factor == (None if scaling is None else factor)
    assert score is not None and verdict.score_minutes == pytest.approx(score, rel=1e-9)
    assert verdict.score_minutes == score  # and in fact to the last bit


def test_a_file_the_tree_reader_refused_is_a_rejected_run(tmp_path):
    folder = write_set(tmp_path, [run_log(duration_ms=60_000 * (10 + i)) for i in range(5)])
    (folder / "result_6.txt").symlink_to(tmp_path.parent)

    (result_set,) = read_results_tree(tmp_path)
    verdict = judge_mlperf_set(result_set, training_round=round_named("v4.1"))

    assert verdict.status == REJECTED and verdict.runs[5].status == REJECTED
    assert [issue.code for issue in verdict.errors] == [ErrorCode.LINK_OUTSIDE_TREE, ErrorCode.WRONG_RUN_COUNT]


def test_an_unreadable_log_names_its_set_folder_and_line(tmp_path):
    logs = [run_log() for _ in range(5)]
    logs[2] = logs[2].replace(b'"key": "run_start"', b'"key": "run_start",,', 1)
    write_set(tmp_path, logs)

    (result_set,) = read_results_tree(tmp_path)
    verdict = judge_mlperf_set(result_set, training_round=round_named("v4.1"))

    codes = {(issue.code, issue.field) for issue in verdict.errors}
    assert (ErrorCode.MALFORMED_RECORD, "result_3.txt") in codes
    assert (ErrorCode.MISSING_MLLOG_KEY, "result_3.txt") in codes  # the run_start that could not be read
    assert any("Org/results/sys/ssd/result_3.txt" in issue.message for issue in verdict.runs[2].errors)
