"""Measured inference latency on the leaderboard: the boards ranked by p90 or p99, the entry's distribution.

Entries go in through `submission_create(source=measured, run_record=...)`, the path `measure_inference
--submit` takes, so the store fills the percentile fields as it does for real runs.
"""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from leaderboard.models import Submission
from leaderboard.services import Upload, submission_create
from tests.factories import inference_document

pytestmark = pytest.mark.django_db

BOARD = "/api/v1/leaderboards/digits/inference-latency/"
PAGE = "/tasks/digits/?metric=inference-latency&latency_stat={}"
ROW_ID = re.compile(r'<tr data-entry-id="(\d+)">')
HISTOGRAM_BINS = 40


def measured_record(*, mean: float, p50: float, p90: float, p99: float, max_ms: float) -> dict:
    """A run record as the inference harness writes it: 450 items, 40 histogram bins up to `max_ms`."""
    edges = [round(max_ms * index / HISTOGRAM_BINS, 6) for index in range(HISTOGRAM_BINS + 1)]
    counts = [0] * HISTOGRAM_BINS
    counts[0], counts[1], counts[-1] = 400, 49, 1
    return {
        "task": "digits",
        "backend": "onnxruntime",
        "backend_version": "1.32.0",
        "items": 450,
        "warmup": 10,
        "threads": 2,
        "latency_ms": {"mean": mean, "p50": p50, "p90": p90, "p99": p99, "max": max_ms},
        "histogram": {"edges_ms": edges, "counts": counts},
        "accuracy": 98.4,
        "threshold": 98.0,
        "meets_threshold": True,
        "model_sha256": "ab" * 32,
    }


def submit_inference(*, latency: float, model: str, record: dict | None = None) -> int:
    """An accepted digits inference entry; `measured` with its record when one is given."""
    outcome = submission_create(
        task_slug="digits",
        track="inference",
        entry=Upload(
            "entry.json", json.dumps(inference_document(latency=latency, top1Accuracy=98.4, model=model)).encode()
        ),
        logs=[],
        source=Submission.Source.MEASURED if record else Submission.Source.API,
        run_record=record,
    )
    assert outcome.status == "accepted", outcome.errors
    return outcome.entry_id


@pytest.fixture
def entries() -> dict[str, int]:
    """Ranked by mean: unmeasured (0.01 ms), tail (0.05), steady (0.08); by p90: steady (0.09), tail (0.2)."""
    return {
        "unmeasured": submit_inference(latency=0.01, model="unmeasured"),
        "tail": submit_inference(
            latency=0.05,
            model="tail",
            record=measured_record(mean=0.05, p50=0.04, p90=0.2, p99=0.3, max_ms=0.4),
        ),
        "steady": submit_inference(
            latency=0.08,
            model="steady",
            record=measured_record(mean=0.08, p50=0.075, p90=0.09, p99=0.1, max_ms=0.5),
        ),
    }


def ranked(document: dict) -> list[tuple[int, int, float]]:
    return [(row["rank"], row["entry_id"], row["value"]) for row in document["results"]]


# --- the boards ------------------------------------------------------------------------------------------------


def test_the_latency_board_ranks_by_the_mean_by_default(client, entries):
    document = client.get(BOARD).json()

    assert ranked(document) == [
        (1, entries["unmeasured"], 0.01),
        (2, entries["tail"], 0.05),
        (3, entries["steady"], 0.08),
    ]
    assert "latency_stat" not in document


def test_p90_ranks_by_the_90th_percentile_and_leaves_out_entries_without_percentiles(client, entries):
    document = client.get(BOARD, {"latency_stat": "p90"}).json()

    assert ranked(document) == [(1, entries["steady"], 0.09), (2, entries["tail"], 0.2)]
    assert document["latency_stat"] == "p90"
    assert document["unit"] == "milliseconds"


def test_p99_ranks_by_the_99th_percentile(client, entries):
    document = client.get(BOARD, {"latency_stat": "p99"}).json()

    assert ranked(document) == [(1, entries["steady"], 0.1), (2, entries["tail"], 0.3)]


def test_an_unknown_latency_stat_is_a_400_naming_the_parameter(client, entries):
    response = client.get(BOARD, {"latency_stat": "p95"})

    assert response.status_code == 400
    body = response.json()
    assert body["status"] == "rejected"
    assert [(issue["code"], issue["field"]) for issue in body["errors"]] == [("invalid_latency_stat", "latency_stat")]


def test_other_boards_ignore_the_latency_stat(client, entries):
    document = client.get("/api/v1/leaderboards/digits/inference-cost/", {"latency_stat": "p90"}).json()

    assert len(document["results"]) == 3
    assert "latency_stat" not in document


def test_the_leaderboard_command_ranks_by_the_latency_stat_given(entries):
    out = StringIO()
    call_command("leaderboard", "digits", "inference-latency", "--latency-stat", "p90", "--json", stdout=out)

    assert ranked(json.loads(out.getvalue())) == [(1, entries["steady"], 0.09), (2, entries["tail"], 0.2)]


def test_the_leaderboard_command_refuses_an_unknown_latency_stat(entries):
    with pytest.raises(CommandError):
        call_command("leaderboard", "digits", "inference-latency", "--latency-stat", "p95", stdout=StringIO())


def test_the_leaderboard_command_refuses_an_unknown_latency_stat_passed_as_an_option(entries):
    with pytest.raises(CommandError, match="Unknown latency statistic"):
        call_command("leaderboard", "digits", "inference-latency", latency_stat="p95", stdout=StringIO())


def test_the_board_page_ranks_by_p90_names_it_and_links_the_other_statistics(client, entries):
    html = client.get(PAGE.format("p90")).content.decode()

    assert [int(entry_id) for entry_id in ROW_ID.findall(html)] == [entries["steady"], entries["tail"]]
    assert "Latency, 90th percentile (ms)" in html
    assert "latency_stat=mean" in html and "latency_stat=p99" in html
    assert "rank only by the mean" in html


def test_the_board_page_ignores_an_unknown_latency_stat_and_says_so(client, entries):
    response = client.get(PAGE.format("p95"))
    html = response.content.decode()

    assert response.status_code == 200
    assert [int(entry_id) for entry_id in ROW_ID.findall(html)] == [
        entries["unmeasured"],
        entries["tail"],
        entries["steady"],
    ]
    assert "were not understood" in html


def test_the_board_export_follows_the_latency_stat(client, entries):
    response = client.get("/tasks/digits/export.json?metric=inference-latency&latency_stat=p90")
    document = json.loads(response.getvalue())  # exports are streamed

    assert [(row["entry_id"], row["value"]) for row in document["results"]] == [
        (entries["steady"], 0.09),
        (entries["tail"], 0.2),
    ]
    assert document["latency_stat"] == "p90"
    assert "inference-latency-p90.json" in response["Content-Disposition"]


# --- the entry -------------------------------------------------------------------------------------------------


def test_the_entry_page_shows_the_measured_percentiles_and_the_histogram(client, entries):
    html = client.get(f"/entries/{entries['tail']}/").content.decode()

    section = html[html.index('id="latency-distribution"') :].split("</section>")[0]
    stats = dict(re.findall(r'<tr data-stat="(\w+)"><th>[^<]*</th><td class="num">([^<]*)</td>', section))
    assert stats == {  # latency in ms to three figures, as every page writes it
        name: f"{value}\u00a0ms"
        for name, value in {"mean": "0.0500", "p50": "0.0400", "p90": "0.200", "p99": "0.300", "max": "0.400"}.items()
    }
    assert "onnxruntime 1.32.0" in section and "450" in section and "ab" * 32 in section
    figure = json.loads(re.search(r'<script id="figure-latency" type="application/json">(.*?)</script>', html)[1])
    assert sum(figure["data"][0]["y"]) == 450
    assert section.count('<tr><td class="num">') == HISTOGRAM_BINS  # the table beside the chart


def test_the_entry_page_of_an_unmeasured_inference_entry_has_no_distribution(client, entries):
    html = client.get(f"/entries/{entries['unmeasured']}/").content.decode()

    assert "Not measured by Dawnboard's inference harness" in html
    assert "figure-latency" not in html and 'data-stat="p90"' not in html


def test_the_api_entry_gives_the_measured_percentiles(client, entries):
    entry = client.get(f"/api/v1/entries/{entries['tail']}/").json()

    assert entry["latency_percentiles_ms"] == {"p50": 0.04, "p90": 0.2, "p99": 0.3, "max": 0.4}


def test_the_api_entry_of_an_unmeasured_entry_has_null_percentiles(client, entries):
    entry = client.get(f"/api/v1/entries/{entries['unmeasured']}/").json()

    assert entry["latency_percentiles_ms"] is None
