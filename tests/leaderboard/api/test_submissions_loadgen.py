"""An inference entry submitted through the API with MLPerf LoadGen's logs: the board takes the throughput from the
detail log, marks the entry measured by LoadGen, keeps both logs with their sha256, and refuses logs that are
INVALID or contradict the entry, storing nothing."""

from __future__ import annotations

import hashlib
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.models import Entry, Submission
from tests.dawnboard.formats.test_loadgen import detail_log
from tests.dawnboard.test_ingest_loadgen import OFFLINE, OFFLINE_RESULTS, summary
from tests.factories import inference_document
from tests.leaderboard.api.helpers import SUBMISSIONS_URL

pytestmark = pytest.mark.django_db


def post(api_client, *logs: tuple[str, bytes], **entry_fields):
    document = inference_document(**{"latency": 0.05, "cost": 1e-9, "top1Accuracy": 98.4, **entry_fields})
    data = {
        "task": "digits",
        "track": "inference",
        "entry": SimpleUploadedFile("entry.json", json.dumps(document).encode(), content_type="application/json"),
        "log": [SimpleUploadedFile(name, content, content_type="text/plain") for name, content in logs],
    }
    return api_client.post(SUBMISSIONS_URL, data, format="multipart")


def test_an_offline_measurement_s_logs_put_the_entry_on_the_board_at_throughput(api_client, client):
    detail = detail_log(OFFLINE, OFFLINE_RESULTS)

    response = post(api_client, ("mlperf_log_summary.txt", summary()), ("mlperf_log_detail.txt", detail))

    body = response.json()
    assert response.status_code == 201 and body["status"] == "accepted", body
    entry = Entry.objects.get(submission_id=body["id"])
    assert (entry.loadgen_scenario, entry.samples_per_second) == ("offline", 12_345.6)
    # 1e-9 USD an item at 0.05 ms; 10,000 items at 12,345.6 samples/s cost 1e-5 x (20,000 / 12,345.6) USD.
    assert float(entry.inference_cost_usd_per_10k_at_throughput) == pytest.approx(1e-5 * 20_000 / 12_345.6)
    board = client.get("/api/v1/leaderboards/digits/inference-cost/?cost_at=throughput").json()
    assert [row["entry_id"] for row in board["results"]] == [entry.id]
    page = client.get(f"/entries/{entry.id}/").content.decode()
    assert hashlib.sha256(detail).hexdigest() in page and "Measured by MLPerf LoadGen, offline" in page


@pytest.mark.parametrize(
    ("logs", "fields", "code"),
    [
        ([detail_log(OFFLINE, {**OFFLINE_RESULTS, "result_validity": "INVALID"})], {}, "loadgen_invalid"),
        ([detail_log(OFFLINE, {"result_query_count": 1})], {}, "loadgen_log_incomplete"),
        ([detail_log(OFFLINE, OFFLINE_RESULTS)], {"misc": {"scenario": "server"}}, "loadgen_contradicts_entry"),
    ],
)
def test_logs_that_cannot_stand_are_refused_and_nothing_is_stored(api_client, logs, fields, code):
    response = post(api_client, *[(f"log{index}.txt", log) for index, log in enumerate(logs)], **fields)

    assert response.status_code == 400, response.json()
    assert code in [error["code"] for error in response.json()["errors"]]
    assert Entry.objects.count() == 0 and Submission.objects.filter(status="accepted").count() == 0
