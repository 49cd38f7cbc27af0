"""POST /api/v1/submissions/ accepting entries: results recomputed from the files, messy logs with a warning."""

from __future__ import annotations

import hashlib
from decimal import Decimal

import pytest

from leaderboard.models import CurvePoint, Entry, Submission, SubmittedFile
from tests.factories import entry_bytes, entry_document, inference_document, training_log
from tests.leaderboard.api.helpers import DEFAULT_LOG, DEFAULT_ROWS, json_bytes, submit, without

pytestmark = pytest.mark.django_db

BOM = b"\xef\xbb\xbf"

COST_PER_HOUR_USD = 3.06


def codes(issues: list[dict]) -> list[str]:
    return [issue["code"] for issue in issues]


def issue_with(issues: list[dict], code: str) -> dict:
    return next(issue for issue in issues if issue["code"] == code)


def stored_entry(response) -> Entry:
    return Entry.objects.get(submission_id=response.json()["id"])


# --- a valid training entry -------------------------------------------------------------------------------------


def test_accepts_valid_training_entry_with_201_and_links(api_client):
    response = submit(api_client)

    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["status"] == "accepted"
    assert body["warnings"] == []
    entry = stored_entry(response)
    assert body["url"].endswith(f"/api/v1/submissions/{body['id']}/")
    assert body["entry_url"].endswith(f"/api/v1/entries/{entry.id}/")


def test_training_entry_time_to_accuracy_is_first_crossing_hours_in_seconds(api_client):
    response = submit(api_client)

    entry = stored_entry(response)
    assert entry.time_to_accuracy_seconds == pytest.approx(0.03 * 3600, rel=1e-12)
    assert entry.time_to_accuracy_epoch == 2
    assert entry.time_to_accuracy_line == 4
    assert entry.accuracy == pytest.approx(94.1, rel=1e-12)
    assert response.json()["results"]["time_to_accuracy_seconds"] == pytest.approx(0.03 * 3600, rel=1e-12)
    assert response.json()["results"]["time_to_accuracy_epoch"] == 2


def test_training_entry_cost_is_time_to_accuracy_hours_times_cost_per_hour(api_client):
    response = submit(api_client, entry=entry_bytes(costPerHour=COST_PER_HOUR_USD))

    entry = stored_entry(response)
    assert float(entry.training_cost_usd) == pytest.approx(0.03 * COST_PER_HOUR_USD, rel=1e-12)
    assert entry.cost_per_hour_usd == Decimal("3.06")
    assert response.json()["results"]["training_cost_usd"] == pytest.approx(0.03 * COST_PER_HOUR_USD, rel=1e-12)


def test_training_entry_without_cost_per_hour_has_no_training_cost(api_client):
    response = submit(api_client, entry=json_bytes(without(entry_document(), "costPerHour")))

    assert response.status_code == 201, response.json()
    assert stored_entry(response).training_cost_usd is None
    assert response.json()["results"]["training_cost_usd"] is None


def test_training_entry_stores_every_log_row_as_a_curve_point(api_client):
    response = submit(api_client, log=DEFAULT_LOG)

    entry = stored_entry(response)
    points = [(p.position, p.line, p.epoch, p.hours, p.metric) for p in CurvePoint.objects.filter(run__entry=entry)]
    expected = [(i, i + 2, epoch, hours, metric) for i, (epoch, hours, metric) in enumerate(DEFAULT_ROWS)]
    assert points == expected
    assert entry.runs.get().log_row_count == len(DEFAULT_ROWS)


def test_training_entry_stores_both_files_verbatim_with_their_sha256(api_client):
    entry_file, log_file = entry_bytes(), training_log()

    response = submit(api_client, entry=entry_file, log=log_file)

    files = {file.role: file for file in SubmittedFile.objects.filter(submission_id=response.json()["id"])}
    assert set(files) == {"entry", "log"}
    for role, uploaded in (("entry", entry_file), ("log", log_file)):
        assert bytes(files[role].content) == uploaded
        assert files[role].sha256 == hashlib.sha256(uploaded).hexdigest()
        assert files[role].size_bytes == len(uploaded)


def test_training_entry_stores_the_claimed_fields(api_client):
    document = entry_document()

    response = submit(api_client, entry=json_bytes(document))

    entry = stored_entry(response)
    assert (entry.author, entry.author_email, entry.framework, entry.model, entry.hardware) == (
        document["author"],
        document["authorEmail"],
        document["framework"],
        document["model"],
        document["hardware"],
    )
    assert entry.date.isoformat() == document["timestamp"]
    assert entry.claimed == document
    assert (entry.task.slug, entry.track, entry.task_version.version) == ("cifar10", "train", "v1.0")
    assert Submission.objects.get(id=response.json()["id"]).status == "accepted"


# --- messy logs accepted with a warning -------------------------------------------------------------------------


def _padded_log() -> bytes:
    return b"epoch\thours\ttop1Accuracy\n0\t 0.01\t80.0\n1\t0.02 \t90.5\n 2\t0.03\t94.1\n3\t0.04\t94.5\n"


def _trailing_tab_log() -> bytes:
    return b"epoch\thours\ttop1Accuracy\n0\t0.01\t80.0\n1\t0.02\t90.5\t\n2\t0.03\t94.1\n3\t0.04\t94.5\n"


MESSY_LOGS = [
    pytest.param(BOM + DEFAULT_LOG, "byte_order_mark", id="byte_order_mark"),
    pytest.param(training_log(DEFAULT_ROWS, newline="\r\n"), "crlf_line_endings", id="crlf_line_endings"),
    pytest.param(_padded_log(), "whitespace_trimmed", id="whitespace_trimmed-spaces"),
    pytest.param(_trailing_tab_log(), "whitespace_trimmed", id="whitespace_trimmed-trailing_tab"),
    pytest.param(
        training_log([(*row, 1.5) for row in DEFAULT_ROWS], header="epoch\thours\ttop1Accuracy\tloss"),
        "extra_columns",
        id="extra_columns",
    ),
    pytest.param(
        b"epoch\thours\ttop1Accuracy\n0\t0.01\t80.0\n\n1\t0.02\t90.5\n2\t0.03\t94.1\n3\t0.04\t94.5\n",
        "blank_lines",
        id="blank_lines",
    ),
]


@pytest.mark.parametrize(("log", "warning"), MESSY_LOGS)
def test_accepts_messy_log_with_warning_on_response_and_entry(api_client, log, warning):
    response = submit(api_client, log=log)

    assert response.status_code == 201, response.json()
    assert codes(response.json()["warnings"]) == [warning]
    assert codes(stored_entry(response).warnings) == [warning]


@pytest.mark.parametrize(("log", "warning"), MESSY_LOGS)
def test_messy_log_gives_the_same_time_to_accuracy_as_a_clean_one(api_client, log, warning):
    response = submit(api_client, log=log)

    entry = stored_entry(response)
    assert entry.time_to_accuracy_seconds == pytest.approx(0.03 * 3600, rel=1e-12)
    assert entry.time_to_accuracy_epoch == 2
    assert entry.accuracy == pytest.approx(94.1, rel=1e-12)
    assert [(p.epoch, p.hours, p.metric) for p in entry.runs.get().curve.all()] == DEFAULT_ROWS


def test_accepts_the_documented_columns_in_any_order_without_a_warning(api_client):
    log = training_log([(h, m, e) for e, h, m in DEFAULT_ROWS], header="hours\ttop1Accuracy\tepoch")

    response = submit(api_client, log=log)

    assert response.status_code == 201, response.json()
    assert codes(response.json()["warnings"]) == []
    entry = stored_entry(response)
    assert entry.time_to_accuracy_seconds == pytest.approx(0.03 * 3600, rel=1e-12)
    assert [(p.epoch, p.hours, p.metric) for p in entry.runs.get().curve.all()] == DEFAULT_ROWS


def test_accepts_a_date_without_zero_padding_with_a_warning(api_client):
    response = submit(api_client, entry=entry_bytes(timestamp="2019-5-7"))

    assert response.status_code == 201, response.json()
    assert codes(response.json()["warnings"]) == ["date_not_padded"]
    assert stored_entry(response).date.isoformat() == "2019-05-07"


def test_log_with_bom_is_stored_verbatim_including_the_bom(api_client):
    log = BOM + training_log()

    response = submit(api_client, log=log)

    assert bytes(SubmittedFile.objects.get(submission_id=response.json()["id"], role="log").content) == log


def test_accepts_repeated_epoch_while_hours_increase_with_warning(api_client):
    rows = [(0, 0.01, 80.0), (1, 0.02, 90.5), (1, 0.03, 94.1), (2, 0.04, 94.5)]

    response = submit(api_client, log=training_log(rows))

    assert response.status_code == 201, response.json()
    warning = issue_with(response.json()["warnings"], "repeated_epoch")
    assert (warning["field"], warning["line"]) == ("epoch", 4)
    assert "repeated_epoch" in codes(stored_entry(response).warnings)


def test_repeated_epoch_rows_are_taken_in_file_order(api_client):
    rows = [(0, 0.01, 80.0), (1, 0.02, 90.5), (1, 0.03, 94.1), (2, 0.04, 94.5)]

    response = submit(api_client, log=training_log(rows))

    entry = stored_entry(response)
    assert entry.time_to_accuracy_seconds == pytest.approx(0.03 * 3600, rel=1e-12)
    assert entry.time_to_accuracy_epoch == 1
    assert entry.time_to_accuracy_line == 4
    assert [(p.epoch, p.hours, p.metric) for p in entry.runs.get().curve.all()] == rows


def test_squad_f1_written_as_percent_is_converted_to_a_fraction_with_warning(api_client):
    rows = [(0, 0.5, 60.0), (1, 1.0, 74.0), (2, 1.5, 80.0)]

    response = submit(api_client, task="squad", log=training_log(rows, header="epoch\thours\tf1Score"))

    assert response.status_code == 201, response.json()
    assert codes(response.json()["warnings"]) == ["metric_percent_converted"]
    assert issue_with(response.json()["warnings"], "metric_percent_converted")["field"] == "f1Score"
    entry = stored_entry(response)
    assert codes(entry.warnings) == ["metric_percent_converted"]
    assert entry.accuracy == pytest.approx(0.80, rel=1e-12)
    assert entry.time_to_accuracy_seconds == pytest.approx(1.5 * 3600, rel=1e-12)
    assert [p.metric for p in entry.runs.get().curve.all()] == pytest.approx([0.60, 0.74, 0.80], rel=1e-12)


def test_squad_f1_written_as_fraction_is_accepted_without_warning(api_client):
    rows = [(0, 0.5, 0.60), (1, 1.0, 0.76)]

    response = submit(api_client, task="squad", log=training_log(rows, header="epoch\thours\tf1Score"))

    assert response.status_code == 201, response.json()
    assert response.json()["warnings"] == []
    assert stored_entry(response).accuracy == pytest.approx(0.76, rel=1e-12)


def test_imagenet_training_entry_uses_top5_column(api_client):
    rows = [(0, 1.0, 80.0), (1, 2.0, 93.2)]

    response = submit(api_client, task="imagenet", log=training_log(rows, header="epoch\thours\ttop5Accuracy"))

    assert response.status_code == 201, response.json()
    assert stored_entry(response).time_to_accuracy_seconds == pytest.approx(2.0 * 3600, rel=1e-12)


# --- unknown JSON fields ----------------------------------------------------------------------------------------


def test_accepts_unknown_entry_fields_with_warning_and_keeps_them(api_client):
    document = entry_document(gpuCount=8, notes="mixed precision")

    response = submit(api_client, entry=json_bytes(document))

    assert response.status_code == 201, response.json()
    warning = issue_with(response.json()["warnings"], "unknown_fields")
    assert warning["field"] == "gpuCount"
    entry = stored_entry(response)
    assert codes(entry.warnings) == ["unknown_fields"]
    assert entry.extra_fields == {"gpuCount": 8, "notes": "mixed precision"}
    assert entry.claimed == document


# --- inference entries ------------------------------------------------------------------------------------------


def test_accepts_inference_entry_with_latency_and_cost(api_client):
    response = submit(api_client, track="inference", entry=json_bytes(inference_document()))

    assert response.status_code == 201, response.json()
    assert response.json()["warnings"] == []
    entry = stored_entry(response)
    assert entry.track == "inference"
    assert entry.latency_ms == pytest.approx(2.5, rel=1e-12)
    assert float(entry.inference_cost_usd_per_10k) == pytest.approx(1.5e-6 * 10_000, rel=1e-12)
    assert entry.accuracy == pytest.approx(94.3, rel=1e-12)
    assert entry.time_to_accuracy_seconds is None
    assert response.json()["results"]["inference_cost_usd_per_10k"] == pytest.approx(1.5e-6 * 10_000, rel=1e-12)


def test_accepts_inference_entry_with_latency_only(api_client):
    response = submit(api_client, track="inference", entry=json_bytes(without(inference_document(), "cost")))

    assert response.status_code == 201, response.json()
    entry = stored_entry(response)
    assert entry.latency_ms == pytest.approx(2.5, rel=1e-12)
    assert entry.inference_cost_usd_per_10k is None


def test_accepts_inference_entry_with_cost_only(api_client):
    response = submit(api_client, track="inference", entry=json_bytes(without(inference_document(), "latency")))

    assert response.status_code == 201, response.json()
    entry = stored_entry(response)
    assert entry.latency_ms is None
    assert float(entry.inference_cost_usd_per_10k) == pytest.approx(1.5e-6 * 10_000, rel=1e-12)


def test_inference_entry_stores_no_curve_and_only_the_entry_file(api_client):
    document_bytes = json_bytes(inference_document())

    response = submit(api_client, track="inference", entry=document_bytes)

    assert CurvePoint.objects.filter(run__entry=stored_entry(response)).count() == 0
    files = SubmittedFile.objects.filter(submission_id=response.json()["id"])
    assert [(file.role, bytes(file.content)) for file in files] == [("entry", document_bytes)]


def test_inference_entry_accuracy_may_be_given_as_accuracy_for_cifar10(api_client):
    document = without(inference_document(accuracy=94.6), "top1Accuracy")

    response = submit(api_client, track="inference", entry=json_bytes(document))

    assert response.status_code == 201, response.json()
    assert stored_entry(response).accuracy == pytest.approx(94.6, rel=1e-12)


def test_accepts_inference_cost_disagreeing_with_price_times_latency_with_warning(api_client):
    # costPerHour x latency = 3.06 USD/h x 2.5 ms = 2.125e-6 USD per item; 1.5e-6 is 29 % off.
    document = inference_document(costPerHour=COST_PER_HOUR_USD, latency=2.5, cost=1.5e-6)

    response = submit(api_client, track="inference", entry=json_bytes(document))

    assert response.status_code == 201, response.json()
    assert codes(response.json()["warnings"]) == ["cost_mismatch"]
    assert issue_with(response.json()["warnings"], "cost_mismatch")["field"] == "cost"
    entry = stored_entry(response)
    assert codes(entry.warnings) == ["cost_mismatch"]
    # The claimed cost is still what ranks the entry.
    assert float(entry.inference_cost_usd_per_10k) == pytest.approx(1.5e-6 * 10_000, rel=1e-12)


def test_accepts_inference_cost_matching_price_times_latency_without_warning(api_client):
    document = inference_document(costPerHour=COST_PER_HOUR_USD, latency=2.5, cost=2.125e-6)

    response = submit(api_client, track="inference", entry=json_bytes(document))

    assert response.status_code == 201, response.json()
    assert response.json()["warnings"] == []


def test_inference_entry_with_a_log_ignores_it_with_warning(api_client):
    response = submit(api_client, track="inference", entry=json_bytes(inference_document()), log=training_log())

    assert response.status_code == 201, response.json()
    warning = issue_with(response.json()["warnings"], "log_ignored")
    assert warning["field"] == "log"
    assert codes(stored_entry(response).warnings) == ["log_ignored"]


def test_squad_inference_f1_written_as_percent_is_converted_with_warning(api_client):
    document = without(inference_document(f1Score=88.5), "top1Accuracy")

    response = submit(api_client, task="squad", track="inference", entry=json_bytes(document))

    assert response.status_code == 201, response.json()
    assert codes(response.json()["warnings"]) == ["metric_percent_converted"]
    entry = stored_entry(response)
    assert codes(entry.warnings) == ["metric_percent_converted"]
    assert entry.accuracy == pytest.approx(0.885, rel=1e-12)


# --- boundaries -------------------------------------------------------------------------------------------------


def test_training_log_reaching_exactly_the_threshold_is_accepted_at_that_row(api_client):
    rows = [(0, 0.01, 80.0), (1, 0.02, 94.0), (2, 0.03, 94.5)]

    response = submit(api_client, log=training_log(rows))

    assert response.status_code == 201, response.json()
    assert stored_entry(response).time_to_accuracy_seconds == pytest.approx(0.02 * 3600, rel=1e-12)


def test_inference_accuracy_exactly_at_the_threshold_is_accepted(api_client):
    response = submit(api_client, track="inference", entry=json_bytes(inference_document(top1Accuracy=94.0)))

    assert response.status_code == 201, response.json()


def test_accepts_entry_json_with_byte_order_mark(api_client):
    response = submit(api_client, entry=BOM + entry_bytes())

    assert response.status_code == 201, response.json()
    assert stored_entry(response).author == entry_document()["author"]
