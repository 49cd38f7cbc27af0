"""The inference-cost board at throughput (`?cost_at=throughput`): entries measured offline through MLPerf LoadGen
rank by 10,000 items' cost at their samples per second; the others only at single stream, DAWNBench's cost.

Entries go in through `submission_create(source=measured, run_record=...)`, the path `measure_inference --submit`
takes, with the run record's `loadgen` block as the harness writes it.
"""

from __future__ import annotations

import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from leaderboard.models import Entry, Submission
from leaderboard.services import Upload, submission_create
from tests.dawnboard.formats.test_loadgen import SINGLE_STREAM_RESULTS, detail_log
from tests.factories import inference_document
from tests.leaderboard.test_measured_latency import measured_record

pytestmark = pytest.mark.django_db

BOARD = "/api/v1/leaderboards/digits/inference-cost/"


def loadgen_record(*, mean: float, samples_per_second: float | None, valid: bool = True) -> dict:
    """A measured record with LoadGen's account: offline at `samples_per_second`, or single stream when None."""
    record = measured_record(mean=mean, p50=mean, p90=mean, p99=mean, max_ms=2 * mean)
    record.update(
        scenario="offline" if samples_per_second else "single-stream",
        samples_per_second=samples_per_second,
        queries_per_second=None,
        loadgen={
            "valid": valid,
            "scenario": "offline" if samples_per_second else "single-stream",
            "settings": {"profile": "quick", "batch_size": 64},
            "latency_ms": {"p90": mean},
            "samples_per_second": samples_per_second,
            "summary_sha256": "cd" * 32,
            "detail_sha256": "ef" * 32,
            "summary_text": "Result is : VALID" if valid else "Result is : INVALID",
        },
    )
    return record


def loadgen_logs(*, mean: float, samples_per_second: float | None, valid: bool = True) -> list[Upload]:
    """LoadGen's detail log of the measurement: offline at `samples_per_second`, or single stream when None."""
    if samples_per_second:
        settings = {"effective_scenario": "Offline"}
        results = {"result_validity": "VALID" if valid else "INVALID", "result_query_count": 1}
        results |= {"result_samples_per_second": samples_per_second, "num_errors": 0}
    else:
        settings, results = {}, {**SINGLE_STREAM_RESULTS, "result_validity": "VALID" if valid else "INVALID"}
        results |= {"result_min_latency_ns": int(mean * 500_000), "result_max_latency_ns": int(mean * 2_000_000)}
    return [Upload("mlperf_log_detail.txt", detail_log(settings, results))]


def submit_measured(*, latency: float, cost: float, model: str, record: dict, logs: list[Upload]):
    document = inference_document(latency=latency, cost=cost, top1Accuracy=98.4, model=model)
    return submission_create(
        task_slug="digits",
        track="inference",
        entry=Upload("entry.json", json.dumps(document).encode()),
        logs=logs,
        source=Submission.Source.MEASURED,
        run_record=record,
    )


def measured(*, latency: float, cost: float, model: str, samples_per_second: float | None) -> Entry:
    outcome = submit_measured(
        latency=latency,
        cost=cost,
        model=model,
        record=loadgen_record(mean=latency, samples_per_second=samples_per_second),
        logs=loadgen_logs(mean=latency, samples_per_second=samples_per_second),
    )
    assert outcome.status == "accepted", outcome.errors
    return Entry.objects.get(id=outcome.entry_id)


@pytest.fixture
def entries() -> dict[str, Entry]:
    """At single stream: fast (0.05 ms) first, batched (0.1 ms) second; at throughput only the two measured
    offline, batched (100,000 samples/s) before fast-offline (25,000 samples/s)."""
    return {
        "fast": measured(latency=0.05, cost=1e-9, model="fast", samples_per_second=None),
        "batched": measured(latency=0.1, cost=2e-9, model="batched", samples_per_second=100_000),
        "fast-offline": measured(latency=0.05, cost=1e-9, model="fast-offline", samples_per_second=25_000),
    }


def test_the_cost_at_throughput_is_the_entry_s_own_cost_scaled_by_the_two_rates(entries):
    batched = entries["batched"]

    # 2e-9 USD an item at 0.1 ms is 0.072 USD/h; 10,000 items at 100,000 samples/s hold the machine 0.1 s:
    # 2e-6 USD, against 2e-5 one at a time (10,000 items/s).
    assert batched.inference_cost_usd_per_10k == Decimal("2e-9") * 10_000
    assert float(batched.inference_cost_usd_per_10k_at_throughput) == pytest.approx(2e-6, rel=1e-12)
    assert batched.samples_per_second == 100_000
    assert entries["fast"].inference_cost_usd_per_10k_at_throughput is None
    assert (batched.loadgen_scenario, entries["fast"].loadgen_scenario) == ("offline", "single-stream")


def test_a_test_loadgen_judged_invalid_is_refused_and_nothing_stored(entries):
    record = loadgen_record(mean=0.07, samples_per_second=900_000, valid=False)
    logs = loadgen_logs(mean=0.07, samples_per_second=900_000, valid=False)

    outcome = submit_measured(latency=0.07, cost=1.4e-9, model="invalid", record=record, logs=logs)

    assert outcome.status == "rejected" and [error["code"] for error in outcome.errors] == ["loadgen_invalid"]
    assert Entry.objects.count() == 3


def test_the_board_ranks_at_single_stream_by_default_and_at_throughput_when_asked(client, entries):
    default = client.get(BOARD).json()
    at_throughput = client.get(BOARD, {"cost_at": "throughput"}).json()

    assert "cost_at" not in default
    assert [row["entry_id"] for row in default["results"]][:2] == [entries["fast"].id, entries["fast-offline"].id]
    assert at_throughput["cost_at"] == "throughput" and at_throughput["count"] == 2
    assert [row["entry_id"] for row in at_throughput["results"]] == [entries["batched"].id, entries["fast-offline"].id]


def test_an_unknown_cost_at_or_one_beside_a_catalog_price_is_a_400_naming_the_parameter(client, entries):
    unknown = client.get(BOARD, {"cost_at": "batched"})
    with_catalog = client.get(BOARD, {"cost_at": "throughput", "cost_basis": "catalog-today"})

    assert unknown.status_code == with_catalog.status_code == 400
    assert [(e["code"], e["field"]) for e in unknown.json()["errors"]] == [("invalid_cost_at", "cost_at")]
    assert [(e["code"], e["field"]) for e in with_catalog.json()["errors"]] == [("unsupported_cost_at", "cost_at")]


def test_other_boards_ignore_cost_at(client, entries):
    document = client.get("/api/v1/leaderboards/digits/inference-latency/", {"cost_at": "throughput"}).json()

    assert "cost_at" not in document and document["count"] == 3


def test_the_board_page_switches_between_the_two_costs(client, entries):
    page = client.get("/tasks/digits/", {"metric": "inference-cost", "cost_at": "throughput"}).content.decode()

    assert 'aria-label="Cost at"' in page and "cost_at=single-stream" in page
    assert "Cost per 10,000 items at throughput" in page
    assert f'data-entry-id="{entries["batched"].id}"' in page and f'data-entry-id="{entries["fast"].id}"' not in page


def test_the_leaderboard_command_ranks_at_the_cost_given(entries):
    out = StringIO()
    call_command("leaderboard", "digits", "inference-cost", "--cost-at", "throughput", "--json", stdout=out)

    document = json.loads(out.getvalue())
    assert document["cost_at"] == "throughput"
    assert [row["entry_id"] for row in document["results"]] == [entries["batched"].id, entries["fast-offline"].id]
    with pytest.raises(CommandError):
        call_command("leaderboard", "digits", "inference-cost", cost_at="batched", stdout=StringIO())


def test_the_entry_page_shows_loadgen_s_account_and_survives_a_record_of_the_wrong_types(client, entries):
    page = client.get(f"/entries/{entries['batched'].id}/").content.decode()
    odd = loadgen_record(mean=0.05, samples_per_second=None)
    odd["loadgen"].update(latency_ms=[1], query_count="many", server_tries="x", summary_text=7, valid="yes")
    outcome = submit_measured(latency=0.05, cost=1e-9, model="odd", record=odd, logs=[])
    strange = Entry.objects.get(id=outcome.entry_id)

    response = client.get(f"/entries/{strange.id}/")

    assert 'id="loadgen"' in page and "ef" * 32 in page and "samples/s" in page
    assert response.status_code == 200 and "INVALID" in response.content.decode()  # "yes" is not true
