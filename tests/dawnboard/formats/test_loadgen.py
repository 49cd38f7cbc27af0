"""Reading MLPerf LoadGen's detail log: LoadGen's own figures in ms, its verdict, and a code for a log that is cut
short, names an unknown scenario, holds a figure that is no number or says one thing twice."""

from __future__ import annotations

import pytest

from dawnboard.errors import ErrorCode, RejectedInput
from dawnboard.formats.loadgen import read_loadgen_detail
from dawnboard.formats.mllog import write_mllog

SETTINGS = {
    "effective_scenario": "SingleStream",
    "effective_test_mode": "PerformanceOnly",
    "effective_min_query_count": 1024,
}
SINGLE_STREAM_RESULTS = {
    "result_validity": "VALID",
    "result_min_duration_met": True,
    "result_min_queries_met": True,
    "early_stopping_met": True,
    "result_query_count": 2048,
    "early_stopping_latency_ss": 296_653,
    "result_mean_latency_ns": 281_899,
    "result_min_latency_ns": 219_549,
    "result_max_latency_ns": 1_384_374,
    "result_50.00_percentile_latency_ns": 273_821,
    "result_90.00_percentile_latency_ns": 294_090,
    "result_99.00_percentile_latency_ns": 414_448,
    "num_errors": 0,
}


def detail_log(settings: dict | None = None, results: dict | None = None) -> bytes:
    """A detail log as LoadGen writes one: the version, the settings, then the results, one record each."""
    values = {"loadgen_version": "6.0.17 @ d6147c7eb7", **SETTINGS, **(settings or {})}
    values.update(SINGLE_STREAM_RESULTS if results is None else results)
    return write_mllog((key, value, float(time_ms), {}) for time_ms, (key, value) in enumerate(values.items()))


def test_a_single_stream_log_gives_loadgen_s_figures_in_milliseconds():
    test = read_loadgen_detail(detail_log())

    assert (test.scenario, test.mode, test.valid, test.errors, test.query_count) == (
        "single-stream",
        "PerformanceOnly",
        True,
        0,
        2048,
    )
    assert test.p90_ms == pytest.approx(0.29409)
    assert test.early_stopping_p90_ms == pytest.approx(0.296653)
    assert (test.mean_ms, test.min_ms, test.max_ms) == pytest.approx((0.281899, 0.219549, 1.384374))
    assert test.percentiles_ms == pytest.approx({"50.00": 0.273821, "90.00": 0.29409, "99.00": 0.414448})
    assert test.samples_per_second is None and test.scheduled_queries_per_second is None
    assert test.settings == {"scenario": "SingleStream", "test_mode": "PerformanceOnly", "min_query_count": 1024}
    assert test.loadgen_version == "6.0.17 @ d6147c7eb7"
    assert test.problems(scenario="single-stream") == []


def test_offline_gives_samples_per_second_and_server_its_rates():
    offline = read_loadgen_detail(
        detail_log({"effective_scenario": "Offline"}, {**SINGLE_STREAM_RESULTS, "result_samples_per_second": 8885.88})
    )
    server = read_loadgen_detail(
        detail_log(
            {"effective_scenario": "Server"},
            {
                **SINGLE_STREAM_RESULTS,
                "result_scheduled_samples_per_sec": 494.842,
                "result_completed_samples_per_sec": 494.568,
            },
        )
    )

    assert (offline.scenario, offline.samples_per_second, offline.early_stopping_p90_ms) == ("offline", 8885.88, None)
    assert (server.scenario, server.scheduled_queries_per_second, server.completed_queries_per_second) == (
        "server",
        494.842,
        494.568,
    )
    assert server.samples_per_second is None


def test_another_scenario_an_accuracy_test_an_invalid_one_and_errors_are_each_a_problem_with_its_code():
    offline = read_loadgen_detail(detail_log({"effective_scenario": "Offline"}))
    accuracy = read_loadgen_detail(detail_log({"effective_test_mode": "AccuracyOnly"}, results={}))
    invalid = read_loadgen_detail(
        detail_log(results={**SINGLE_STREAM_RESULTS, "result_validity": "INVALID", "result_min_duration_met": False})
    )
    with_errors = read_loadgen_detail(detail_log(results={**SINGLE_STREAM_RESULTS, "num_errors": 3}))

    assert [(issue.code, issue.field) for issue in offline.problems(scenario="single-stream")] == [
        (ErrorCode.LOADGEN_WRONG_SCENARIO, "effective_scenario")
    ]
    assert [issue.code for issue in accuracy.problems(scenario="single-stream")] == [ErrorCode.LOADGEN_WRONG_MODE]
    (problem,) = invalid.problems(scenario="single-stream")
    assert (problem.code, problem.field) == (ErrorCode.LOADGEN_INVALID, "result_validity")
    assert "minimum duration met: no, minimum queries met: yes, early stopping met: yes" in problem.message
    assert [(issue.code, issue.field) for issue in with_errors.problems(scenario="single-stream")] == [
        (ErrorCode.LOADGEN_INVALID, "num_errors")
    ]


@pytest.mark.parametrize("cut_before", ["result_validity", "result_query_count"])
def test_a_log_cut_short_names_the_first_result_it_lacks(cut_before):
    kept = dict(SINGLE_STREAM_RESULTS)
    keys = list(kept)
    for key in keys[keys.index(cut_before) :]:
        del kept[key]

    with pytest.raises(RejectedInput) as rejected:
        read_loadgen_detail(detail_log(results=kept))

    (issue,) = rejected.value.issues
    assert (issue.code, issue.field) == (ErrorCode.LOADGEN_LOG_INCOMPLETE, cut_before)


def test_an_accuracy_test_needs_no_results():
    test = read_loadgen_detail(detail_log({"effective_test_mode": "AccuracyOnly"}, results={}))

    assert (test.mode, test.valid, test.query_count, test.p90_ms) == ("AccuracyOnly", False, 0, None)


@pytest.mark.parametrize(
    ("settings", "results", "code", "field"),
    [
        ({"effective_scenario": "MultiStream2"}, None, ErrorCode.LOADGEN_UNKNOWN_SCENARIO, "effective_scenario"),
        (
            None,
            {**SINGLE_STREAM_RESULTS, "result_90.00_percentile_latency_ns": "fast"},
            ErrorCode.MALFORMED_RECORD,
            "result_90.00_percentile_latency_ns",
        ),
        (
            None,
            {**SINGLE_STREAM_RESULTS, "result_mean_latency_ns": -5},
            ErrorCode.MALFORMED_RECORD,
            "result_mean_latency_ns",
        ),
        (None, {**SINGLE_STREAM_RESULTS, "result_query_count": 10.5}, ErrorCode.MALFORMED_RECORD, "result_query_count"),
        (None, {**SINGLE_STREAM_RESULTS, "num_errors": True}, ErrorCode.MALFORMED_RECORD, "num_errors"),
    ],
)
def test_a_malformed_log_is_refused_with_a_code_and_the_field(settings, results, code, field):
    with pytest.raises(RejectedInput) as rejected:
        read_loadgen_detail(detail_log(settings, results))

    (issue,) = rejected.value.issues
    assert (issue.code, issue.field) == (code, field)
    if code == ErrorCode.MALFORMED_RECORD:
        assert issue.line is not None and field in issue.message


def test_a_key_written_twice_with_another_value_is_refused_with_both_lines():
    data = detail_log() + write_mllog([("result_validity", "INVALID", 99.0, {})])

    with pytest.raises(RejectedInput) as rejected:
        read_loadgen_detail(data)

    (issue,) = rejected.value.issues
    assert (issue.code, issue.field) == (ErrorCode.CONFLICTING_VALUES, "result_validity")
    # Worded as a training log's conflict is (the same reader): both values, both lines.
    assert issue.message == 'Line 18: result_validity is written again with "INVALID"; line 5 wrote "VALID".'
    assert issue.line == 18


def test_loadgen_s_warnings_may_be_many_each_its_own_text():
    # As a server test writes them when its worker thread completes queries (seen in a `make test` run here).
    warnings = [
        (
            "warning_generic_message",
            f"Logging allocation detected: tid: {tid} reserved_entries: 1 max_entries: 0",
            50.0,
            {},
        )
        for tid in (2415, 2416)
    ]
    data = detail_log() + write_mllog(warnings)

    assert read_loadgen_detail(data).valid


@pytest.mark.parametrize(("data", "code"), [(b"", ErrorCode.EMPTY_LOG), (b"no records here\n", ErrorCode.EMPTY_LOG)])
def test_a_file_without_records_is_refused(data, code):
    with pytest.raises(RejectedInput) as rejected:
        read_loadgen_detail(data)

    assert [issue.code for issue in rejected.value.issues] == [code]
