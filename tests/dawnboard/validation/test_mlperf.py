"""Judging an MLPerf Training result set: each run's verdict, each set rule, and the olympic mean as MLCommons'
result summarizer computes it (tests/dawnboard/test_ingest_mlperf.py compares with the summarizer itself)."""

from __future__ import annotations

import pytest

from dawnboard.errors import ErrorCode, Issue, RejectedInput
from dawnboard.formats.mllog import read_mllog, write_mllog
from dawnboard.rounds import round_named
from dawnboard.validation.mlperf import ACCEPTED, FAILED, REJECTED, SUCCESS, judge_result_set
from tests.dawnboard.mllog_runs import START_MS, run_log, run_records

V41 = round_named("v4.1")
REACHED, SHORT = ((1, 0.20), (2, 0.35)), ((1, 0.20), (2, 0.30))  # ssd's target is 0.340


def minutes_ms(minutes: float) -> float:
    return minutes * 60_000


def log(**kwargs):
    return read_mllog(run_log(**kwargs), file_name="result.txt")


def ssd_runs(minutes: list[float], *, failed: dict[int, str] | None = None, **kwargs) -> list[tuple[str, object]]:
    """One ssd run per duration; `failed` maps a run's index to "aborted" or "short" (target not reached)."""
    failed = failed or {}
    runs = []
    for index, duration in enumerate(minutes):
        how = failed.get(index)
        run = log(
            duration_ms=minutes_ms(duration),
            evaluations=SHORT if how == "short" else REACHED,
            status="aborted" if how == "aborted" else "success",
            **kwargs,
        )
        runs.append((f"result_{index + 1}.txt", run))
    return runs


def judge(runs, *, benchmark: str = "ssd", training_round=V41, scaling_factor=None, **kwargs):
    return judge_result_set(
        runs, training_round=training_round, folder_benchmark=benchmark, scaling_factor=scaling_factor, **kwargs
    )


def codes(issues) -> list[str]:
    return [issue.code for issue in issues]


# --- The score ---


def test_scores_the_mean_of_the_runs_left_when_the_fastest_and_slowest_are_dropped():
    verdict = judge(ssd_runs([12.0, 10.0, 11.0, 15.0, 13.0]))

    assert verdict.status == ACCEPTED and not verdict.errors
    assert verdict.score_minutes == (11.0 + 12.0 + 13.0) / 3
    assert [run.status for run in verdict.runs] == [SUCCESS] * 5


def test_a_run_takes_its_minutes_as_the_summarizer_computes_them():
    run = log(duration_ms=1_234_567.0)
    verdict = judge([("result_1.txt", run)] * 5)

    assert verdict.runs[0].minutes == (float(START_MS + 1_234_567) - float(START_MS)) / 60 / 1000


def test_a_failed_run_faster_than_the_slowest_success_is_dropped_from_the_slow_end():
    runs = ssd_runs([10.0, 11.0, 12.0, 13.0, 9.0], failed={4: "short"})

    verdict = judge(runs)

    assert verdict.runs[4].status == FAILED and verdict.runs[4].minutes == 9.0
    # The failed run is the slowest: the fastest success (10) and it are dropped.
    assert verdict.score_minutes == (11.0 + 12.0 + 13.0) / 3
    assert verdict.score_minutes not in ((10.0 + 11.0 + 12.0) / 3, (11.0 + 12.0) / 2)  # by its time; or none of it


def test_the_scaling_factor_multiplies_the_score():
    verdict = judge(ssd_runs([10.0, 11.0, 12.0, 13.0, 14.0]), scaling_factor=1.0188034188034187)

    assert verdict.score_minutes == (11.0 + 12.0 + 13.0) / 3 * 1.0188034188034187
    assert verdict.scaling_factor == 1.0188034188034187


def test_unet3d_drops_four_runs_each_side_failed_ones_first_from_the_slow_end():
    v20 = round_named("v2.0")
    runs = []
    for index in range(40):
        failed = index < 3
        run = log(
            benchmark="unet3d",
            duration_ms=minutes_ms(10 + index),
            evaluations=((1, 0.5),) if failed else ((1, 0.5), (2, 0.91)),
        )
        runs.append((f"result_{index + 1}.txt", run))

    verdict = judge(runs, benchmark="unet3d", training_round=v20)

    successes = [10 + index for index in range(3, 40)]  # 37 times; drop 4 fastest and 4 - 3 slowest
    kept = successes[4:-1]
    assert verdict.score_minutes == sum(kept) / len(kept)


# --- Each run's verdict ---


def test_a_run_stopped_with_another_status_fails_even_when_its_quality_reached_the_target():
    verdict = judge(ssd_runs([10.0, 11.0, 12.0, 13.0, 14.0], failed={2: "aborted"}))

    run = verdict.runs[2]
    assert run.status == FAILED and codes(run.errors) == [ErrorCode.RUN_ABORTED]
    assert run.errors[0].line == len(run_records())
    assert verdict.status == ACCEPTED and verdict.score_minutes == (11.0 + 13.0 + 14.0) / 3


def test_a_successful_stop_without_reaching_the_target_fails():
    run = judge(ssd_runs([10.0], failed={0: "short"})).runs[0]

    assert run.status == FAILED and codes(run.errors) == [ErrorCode.THRESHOLD_NOT_REACHED]
    assert run.time_to_target_seconds is None


def test_a_run_reports_its_curve_and_the_first_evaluation_reaching_the_target():
    run = judge([("result_1.txt", log(duration_ms=minutes_ms(10), evaluations=((1, 0.2), (2, 0.35), (3, 0.36))))]).runs[
        0
    ]

    assert run.status == SUCCESS
    assert [point.quality for point in run.curve] == [0.2, 0.35, 0.36]
    assert [point.progress for point in run.curve] == [1, 2, 3]
    assert run.time_to_target_seconds == 2 * 600 / 4 and run.progress_at_target == 2
    assert run.progress_unit == "epochs" and run.quality_at_target == (0.35,)
    assert run.curve[1].line == 18
    assert run.run_start_time_ms == START_MS
    assert run.metadata["submission_org"] == "Dawnboard tests" and run.metadata["submission_division"] == "closed"


def test_a_lower_is_better_target_is_reached_going_down():
    v31 = round_named("v3.1")
    reached = log(benchmark="gpt3", evaluations=((1, 3.1), (2, 2.68)))
    never = log(benchmark="gpt3", evaluations=((1, 3.1), (2, 2.7)))

    runs = judge([("r1", reached), ("r2", never)], benchmark="gpt3", training_round=v31).runs

    assert [run.status for run in runs] == [SUCCESS, FAILED]


def test_maskrcnn_needs_both_its_box_and_mask_map_in_one_evaluation():
    v20 = round_named("v2.0")
    apart = log(
        benchmark="maskrcnn", evaluations=((1, {"BBOX": 0.38, "SEGM": 0.30}), (2, {"BBOX": 0.37, "SEGM": 0.34}))
    )
    together = log(
        benchmark="maskrcnn", evaluations=((1, {"BBOX": 0.30, "SEGM": 0.30}), (2, {"BBOX": 0.38, "SEGM": 0.34}))
    )

    runs = judge([("apart", apart), ("together", together)], benchmark="maskrcnn", training_round=v20).runs

    assert [run.status for run in runs] == [FAILED, SUCCESS]
    assert runs[1].quality_at_target == (0.38, 0.34)


def stable_diffusion_log(evaluations: list[tuple[int, str, float]]):
    """A stable_diffusion run whose FID and CLIP records are (samples_count, metric, value)."""
    records = run_records(benchmark="stable_diffusion", evaluations=[], duration_ms=minutes_ms(30))
    for offset, (samples, metric, value) in enumerate(evaluations):
        records.insert(
            -1, ("eval_accuracy", value, START_MS + 1000 * (offset + 1), {"samples_count": samples, "metric": metric})
        )
    return read_mllog(write_mllog(records), file_name="result.txt")


def test_stable_diffusion_reaches_its_target_when_fid_and_clip_of_one_checkpoint_both_do():
    apart = stable_diffusion_log([(512, "FID", 85.0), (512, "CLIP", 0.14), (1024, "FID", 91.0), (1024, "CLIP", 0.16)])
    together = stable_diffusion_log(
        [(512, "FID", 95.0), (512, "CLIP", 0.14), (1024, "CLIP", 0.16), (1024, "FID", 89.0)]
    )

    runs = judge([("apart", apart), ("together", together)], benchmark="stable_diffusion").runs

    assert [run.status for run in runs] == [FAILED, SUCCESS]
    assert runs[1].quality_at_target == (89.0, 0.16) and runs[1].progress_at_target == 1024
    assert runs[1].time_to_target_seconds == 4.0  # timed by the later of the two records
    assert [point.qualities for point in runs[0].curve] == [(85.0, 0.14), (91.0, 0.16)]


def test_v0_7_bert_reads_its_target_off_the_global_batch_size():
    v07 = round_named("v0.7")
    records = run_records(benchmark="bert", evaluations=((1, 0.708),))
    small, large, missing = list(records), list(records), list(records)
    small.insert(1, ("global_batch_size", 4096, START_MS - 60_000, {}))
    large.insert(1, ("global_batch_size", 8192, START_MS - 60_000, {}))
    runs = [
        (name, read_mllog(write_mllog(recs), file_name=name))
        for name, recs in (("small", small), ("large", large), ("missing", missing))
    ]

    verdicts = judge(runs, benchmark="bert", training_round=v07).runs

    assert [run.status for run in verdicts] == [FAILED, SUCCESS, REJECTED]
    assert (verdicts[2].errors[0].code, verdicts[2].errors[0].field) == (
        ErrorCode.MISSING_MLLOG_KEY,
        "global_batch_size",
    )


@pytest.mark.parametrize(
    ("value", "metadata"),
    [(0.35, {}), ("0.35", {"epoch_num": 2}), (None, {"epoch_num": 2}), (True, {"epoch_num": 2})],
    ids=["no epoch_num", "a string", "null", "a boolean"],
)
def test_refuses_a_quality_record_without_its_number_or_its_progress(value, metadata):
    records = run_records()
    records.insert(-1, ("eval_accuracy", value, START_MS + 1000, metadata))
    run = read_mllog(write_mllog(records), file_name="result.txt")

    (verdict,) = judge([("result_1.txt", run)]).runs

    assert verdict.status == REJECTED and codes(verdict.errors) == [ErrorCode.MALFORMED_QUALITY]
    assert verdict.errors[0].line == len(records) - 1


def test_a_maskrcnn_record_missing_a_sub_metric_is_refused():
    run = log(benchmark="maskrcnn", evaluations=((1, {"BBOX": 0.4}),))

    (verdict,) = judge([("r", run)], benchmark="maskrcnn", training_round=round_named("v2.0")).runs

    assert codes(verdict.errors) == [ErrorCode.MALFORMED_QUALITY]


# --- The set's rules ---


def test_an_unknown_benchmark_names_the_round_s_benchmarks():
    verdict = judge(ssd_runs([10.0] * 5), benchmark="resnet")  # resnet left the round in v4.1

    assert verdict.status == REJECTED and verdict.score_minutes is None
    (issue,) = verdict.errors
    assert issue.code == ErrorCode.UNKNOWN_BENCHMARK and "bert" in issue.message and "gnn" in issue.message


def test_a_log_of_another_benchmark_than_its_folder_rejects_the_set():
    runs = ssd_runs([10.0, 11.0, 12.0, 13.0])
    runs.append(("result_5.txt", log(benchmark="bert", evaluations=((1, 0.73),))))

    verdict = judge(runs)

    assert verdict.status == REJECTED and verdict.score_minutes is None
    assert verdict.runs[4].status == REJECTED
    (issue,) = verdict.errors
    assert (issue.code, issue.field) == (ErrorCode.BENCHMARK_MISMATCH, "result_5.txt")


@pytest.mark.parametrize("count", [4, 6])
def test_a_set_must_hold_the_runs_its_benchmark_requires(count):
    verdict = judge(ssd_runs([10.0 + index for index in range(count)]))

    assert verdict.status == REJECTED and codes(verdict.errors) == [ErrorCode.WRONG_RUN_COUNT]
    assert verdict.score_minutes is None


def test_a_rejected_run_rejects_the_set_with_its_codes_and_file():
    runs = ssd_runs([10.0, 11.0, 12.0, 13.0])
    runs.append(("result_5.txt", RejectedInput(Issue(ErrorCode.MALFORMED_RECORD, "Line 3: not JSON.", line=3))))

    verdict = judge(runs)

    assert verdict.status == REJECTED and verdict.runs[4].status == REJECTED
    (issue,) = verdict.errors
    assert (issue.code, issue.field, issue.line) == (ErrorCode.MALFORMED_RECORD, "result_5.txt", 3)
    assert issue.message == "result_5.txt: Line 3: not JSON."


def test_more_failed_runs_than_the_olympic_mean_drops_leave_no_score():
    verdict = judge(ssd_runs([10.0, 11.0, 12.0, 13.0, 14.0], failed={0: "short", 3: "aborted"}))

    assert verdict.status == REJECTED and verdict.score_minutes is None
    assert codes(verdict.errors) == [ErrorCode.TOO_MANY_FAILED_RUNS]


def test_the_set_s_own_errors_reject_it_and_its_warnings_pass_through():
    error = Issue(ErrorCode.INVALID_SCALING_FACTOR, "scaling.json is not an object.")
    warning = Issue("system_description_ignored", "ignored")

    verdict = judge(ssd_runs([10.0] * 5), set_errors=[error], warnings=[warning])

    assert verdict.status == REJECTED and verdict.errors == (error,) and verdict.warnings == (warning,)
