"""An inference entry with MLPerf LoadGen's logs: the detail log (and the summary, where sent) read and checked, the
test carried on the verdict, and every way the logs can be wrong or contradict the entry refused with its code."""

from __future__ import annotations

import json

import pytest

from dawnboard.ingest import validate_dawnbench_files
from dawnboard.rules import rules_catalog
from tests.dawnboard.formats.test_loadgen import detail_log
from tests.factories import inference_document

OFFLINE = {"effective_scenario": "Offline"}
OFFLINE_RESULTS = {"result_validity": "VALID", "result_query_count": 1, "result_samples_per_second": 12_345.6}
# SINGLE_STREAM_RESULTS: queries between 0.2195 and 1.384 ms.


def summary(scenario: str = "Offline", validity: str = "VALID", mode: str = "PerformanceOnly") -> bytes:
    return (
        "================================================\nMLPerf Results Summary\n"
        f"================================================\nSUT name : PySUT\nScenario : {scenario}\n"
        f"Mode     : {mode}\nResult is : {validity}\n"
    ).encode()


def judged(*logs: bytes, **entry_fields):
    document = inference_document(**{"latency": 0.3, "top1Accuracy": 98.4, **entry_fields})
    return validate_dawnbench_files(
        task_slug="digits",
        track="inference",
        entry_bytes=json.dumps(document).encode(),
        logs=list(logs),
        catalog=rules_catalog(),
    )


def codes(verdict) -> list[str]:
    return [issue.code for issue in verdict.errors]


def test_an_offline_detail_log_and_its_summary_give_the_verdict_loadgen_s_test():
    verdict = judged(summary(), detail_log(OFFLINE, OFFLINE_RESULTS))

    assert verdict.accepted and verdict.warnings == []
    assert (verdict.loadgen.scenario, verdict.loadgen.samples_per_second) == ("offline", 12_345.6)
    assert float(verdict.results.latency_ms) == 0.3  # the entry's own figures stay the results


def test_a_single_stream_log_whose_queries_bracket_the_claimed_latency_is_taken():
    verdict = judged(detail_log())

    assert verdict.accepted and verdict.loadgen.p90_ms == pytest.approx(0.29409)


@pytest.mark.parametrize(
    ("logs", "code"),
    [
        ([detail_log(OFFLINE, {**OFFLINE_RESULTS, "result_validity": "INVALID"})], "loadgen_invalid"),
        ([detail_log({"effective_test_mode": "AccuracyOnly"}, {})], "loadgen_wrong_mode"),
        ([detail_log(OFFLINE, {"result_query_count": 1})], "loadgen_log_incomplete"),  # no result_validity: cut
        ([detail_log(), detail_log()], "loadgen_logs"),
        ([summary(), summary(), detail_log(OFFLINE, OFFLINE_RESULTS)], "loadgen_logs"),
        ([summary()], "loadgen_logs"),  # a summary alone: no figures to take
        ([summary(scenario="Server"), detail_log(OFFLINE, OFFLINE_RESULTS)], "loadgen_logs"),
        ([summary(validity="INVALID"), detail_log(OFFLINE, OFFLINE_RESULTS)], "loadgen_logs"),
    ],
)
def test_logs_that_cannot_stand_for_the_measurement_are_refused_with_their_code(logs, code):
    verdict = judged(*logs)

    assert not verdict.accepted and code in codes(verdict)


def test_a_log_of_another_scenario_than_the_entry_names_contradicts_it():
    verdict = judged(detail_log(OFFLINE, OFFLINE_RESULTS), misc={"scenario": "single-stream"})

    assert codes(verdict) == ["loadgen_contradicts_entry"] and verdict.errors[0].field == "misc.scenario"


def test_a_claimed_latency_outside_every_query_loadgen_timed_contradicts_the_entry():
    too_fast = judged(detail_log(), latency=0.1)  # the fastest query took 0.2195 ms

    assert codes(too_fast) == ["loadgen_contradicts_entry"] and too_fast.errors[0].field == "latency"


def test_a_log_that_is_not_loadgen_s_is_ignored_with_a_warning_as_before():
    verdict = judged(b"epoch\thours\ttop1Accuracy\n1\t0.1\t50\n")

    assert verdict.accepted and verdict.loadgen is None
    assert [warning.code for warning in verdict.warnings] == ["log_ignored"]


def test_an_entry_refused_for_itself_keeps_its_own_errors_beside_the_logs():
    document = inference_document(latency=0.3, top1Accuracy=50.0)  # below the threshold
    verdict = validate_dawnbench_files(
        task_slug="digits",
        track="inference",
        entry_bytes=json.dumps(document).encode(),
        logs=[detail_log(OFFLINE, {**OFFLINE_RESULTS, "result_validity": "INVALID"})],
        catalog=rules_catalog(),
    )

    assert {"accuracy_below_threshold", "loadgen_invalid"} <= set(codes(verdict))
