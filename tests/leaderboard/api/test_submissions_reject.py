"""POST /api/v1/submissions/ rejecting entries: 400 (or 401) with a stable code, and nothing stored."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.models import CurvePoint, Entry, Submission, SubmittedFile
from tests.factories import entry_bytes, entry_document, inference_document, training_log
from tests.leaderboard.api.helpers import DEFAULT_LOG, SUBMISSIONS_URL, json_bytes, submit, without

pytestmark = pytest.mark.django_db

REQUIRED_FIELDS = ("version", "author", "authorEmail", "framework", "model", "hardware", "timestamp")
STORED_MODELS = (Submission, SubmittedFile, Entry, CurvePoint)


def stored_counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in STORED_MODELS}


def assert_nothing_stored(before: dict[str, int]) -> None:
    assert stored_counts() == before


def assert_rejected(response, code: str, *, field: str | None = None, line: int | None = None, status: int = 400):
    """The response is the rejection envelope and names `code` (at `field`/`line` when given)."""
    assert response.status_code == status, response.json()
    body = response.json()
    assert body["status"] == "rejected"
    matching = [issue for issue in body["errors"] if issue["code"] == code]
    assert matching, f"no {code} in {body['errors']}"
    issue = matching[0]
    if field is not None:
        assert issue.get("field") == field
    if line is not None:
        assert issue.get("line") == line
    assert issue["message"]


@pytest.fixture
def before(api_client) -> dict[str, int]:
    """Row counts before the request, with one accepted entry already stored so a rollback cannot hide in zeros."""
    assert submit(api_client).status_code == 201
    return stored_counts()


# --- the entry JSON ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "code", "line"),
    [
        pytest.param(b'{"version": "v1.0",', "invalid_json", 1, id="invalid_json-truncated"),
        pytest.param(b"", "invalid_json", 1, id="invalid_json-empty"),
        pytest.param(b'{"version": "v1.0"}\n{"author": "x"}', "invalid_json", 2, id="invalid_json-two_documents"),
        pytest.param(b"[1, 2, 3]", "not_object", None, id="not_object-array"),
        pytest.param(b'"an entry"', "not_object", None, id="not_object-string"),
        pytest.param(b'{"author": "Caf\xe9"}', "not_utf8", 1, id="not_utf8"),
    ],
)
def test_rejects_unreadable_entry_file(api_client, before, raw, code, line):
    response = submit(api_client, entry=raw)

    assert_rejected(response, code, field="entry", line=line)
    assert_nothing_stored(before)


@pytest.mark.parametrize("name", REQUIRED_FIELDS)
def test_rejects_entry_missing_required_field(api_client, before, name):
    response = submit(api_client, entry=json_bytes(without(entry_document(), name)))

    assert_rejected(response, "missing_field", field=name)
    assert_nothing_stored(before)


@pytest.mark.parametrize("value", ["", "   ", None], ids=["empty", "blank", "null"])
def test_rejects_entry_with_empty_author(api_client, before, value):
    response = submit(api_client, entry=entry_bytes(author=value))

    assert_rejected(response, "missing_field", field="author")
    assert_nothing_stored(before)


@pytest.mark.parametrize("timestamp", ["2019/05/07", "07-05-2019", "2019-02-30", "2019-5-32", "2019-0-7", "yesterday"])
def test_rejects_entry_with_invalid_date(api_client, before, timestamp):
    response = submit(api_client, entry=entry_bytes(timestamp=timestamp))

    assert_rejected(response, "invalid_date", field="timestamp")
    assert_nothing_stored(before)


def test_rejects_entry_with_unknown_version(api_client, before):
    response = submit(api_client, entry=entry_bytes(version="v9.9"))

    assert_rejected(response, "unknown_version", field="version")
    assert_nothing_stored(before)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        pytest.param("author", 42, id="author-number"),
        pytest.param("hardware", ["V100"], id="hardware-array"),
        pytest.param("timestamp", 20190507, id="timestamp-number"),
        pytest.param("codeURL", {"url": "x"}, id="codeURL-object"),
        pytest.param("costPerHour", "3.06", id="costPerHour-string"),
        pytest.param("costPerHour", True, id="costPerHour-boolean"),
    ],
)
def test_rejects_entry_field_of_wrong_type(api_client, before, name, value):
    response = submit(api_client, entry=entry_bytes(**{name: value}))

    assert_rejected(response, "wrong_type", field=name)
    assert_nothing_stored(before)


@pytest.mark.parametrize(
    ("track", "document", "field"),
    [
        pytest.param("train", entry_document(costPerHour=-3.06), "costPerHour", id="train-costPerHour"),
        pytest.param("inference", inference_document(latency=-2.5), "latency", id="inference-latency"),
        pytest.param("inference", inference_document(cost=-1e-6), "cost", id="inference-cost"),
    ],
)
def test_rejects_negative_number(api_client, before, track, document, field):
    response = submit(api_client, track=track, entry=json_bytes(document))

    assert_rejected(response, "negative_number", field=field)
    assert_nothing_stored(before)


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_rejects_non_finite_number_literal_in_entry(api_client, before, literal):
    raw = json_bytes(entry_document(costPerHour=0)).replace(b'"costPerHour": 0', f'"costPerHour": {literal}'.encode())

    response = submit(api_client, entry=raw)

    assert_rejected(response, "non_finite_number", field="costPerHour")
    assert_nothing_stored(before)


def test_rejects_non_finite_number_nested_in_misc(api_client, before):
    raw = json_bytes(entry_document(misc={"lr": 0})).replace(b'"lr": 0', b'"lr": NaN')

    response = submit(api_client, entry=raw)

    assert_rejected(response, "non_finite_number", field="misc.lr")
    assert_nothing_stored(before)


@pytest.mark.parametrize(
    ("track", "document", "field"),
    [
        pytest.param("train", entry_document(costPerHour=1e16), "costPerHour", id="train-costPerHour"),
        pytest.param("inference", inference_document(latency=1e12), "latency", id="inference-latency"),
        pytest.param("inference", inference_document(cost=10**30), "cost", id="inference-cost"),
    ],
)
def test_rejects_number_too_large_to_be_real(api_client, before, track, document, field):
    response = submit(api_client, track=track, entry=json_bytes(document))

    assert_rejected(response, "number_out_of_range", field=field)
    assert_nothing_stored(before)


@pytest.mark.parametrize(
    ("document", "field"),
    [
        pytest.param(entry_document(author="a" * 501), "author", id="author"),
        pytest.param(entry_document(hardware="h" * 501), "hardware", id="hardware"),
        pytest.param(entry_document(codeURL="https://example.org/" + "x" * 2000), "codeURL", id="codeURL"),
    ],
)
def test_rejects_text_longer_than_the_database_holds(api_client, before, document, field):
    response = submit(api_client, entry=json_bytes(document))

    assert_rejected(response, "text_too_long", field=field)
    assert_nothing_stored(before)


@pytest.mark.parametrize(
    ("document", "field"),
    [
        pytest.param(entry_document(author="Team\x00Name"), "author", id="author"),
        pytest.param(entry_document(misc={"note": "a\x00b"}), "misc.note", id="misc-value"),
        pytest.param(entry_document(misc={"k\x00": 1}), "misc", id="misc-key"),
        pytest.param(entry_document(author="Team\ud800"), "author", id="surrogate-author"),
        pytest.param(entry_document(misc={"note": "\udfff"}), "misc.note", id="surrogate-misc-value"),
        pytest.param(entry_document(misc={"k\udc00": 1}), "misc", id="surrogate-misc-key"),
    ],
)
def test_rejects_text_postgresql_cannot_store(api_client, before, document, field):
    response = submit(api_client, entry=json_bytes(document))

    assert_rejected(response, "invalid_text", field=field)
    assert_nothing_stored(before)


# --- which files were sent --------------------------------------------------------------------------------------


def test_rejects_training_entry_without_log(api_client, before):
    response = submit(api_client, log=None)

    assert_rejected(response, "missing_log", field="log")
    assert_nothing_stored(before)


@pytest.mark.parametrize("track", ["train", "inference"])
def test_rejects_submission_without_entry_file(api_client, before, track):
    response = submit(api_client, track=track, entry=None)

    assert_rejected(response, "missing_file", field="entry")
    assert_nothing_stored(before)


def test_rejects_entry_file_over_the_size_limit(api_client, before, settings):
    settings.SUBMISSION_MAX_FILE_BYTES = 64
    raw = entry_bytes()
    assert len(raw) > 64

    response = submit(api_client, entry=raw, log=b"epoch\thours\ttop1Accuracy\n")

    assert_rejected(response, "file_too_large", field="entry")
    assert_nothing_stored(before)


def test_rejects_log_file_over_the_size_limit(api_client, before, settings):
    raw_log = training_log()
    settings.SUBMISSION_MAX_FILE_BYTES = len(raw_log) - 1

    response = submit(api_client, entry=b"{}", log=raw_log)

    assert_rejected(response, "file_too_large", field="log")
    assert_nothing_stored(before)


def test_accepts_file_exactly_at_the_size_limit(api_client, settings):
    raw = entry_bytes()
    settings.SUBMISSION_MAX_FILE_BYTES = max(len(raw), len(training_log()))

    response = submit(api_client, entry=raw)

    assert response.status_code == 201, response.json()


# --- the task and track -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("task", "track", "code", "field"),
    [
        pytest.param("mnist", "train", "unknown_task", "task", id="unknown_task"),
        pytest.param("CIFAR10", "train", "unknown_task", "task", id="unknown_task-wrong_case"),
        pytest.param("cifar10", "eval", "unknown_track", "track", id="unknown_track"),
        pytest.param("t" * 300, "train", "unknown_task", "task", id="unknown_task-longer_than_any_column"),
        pytest.param("cifar10", "e" * 300, "unknown_track", "track", id="unknown_track-longer_than_any_column"),
        pytest.param("", "train", "missing_field", "task", id="missing_field-task"),
        pytest.param("cifar10", "", "missing_field", "track", id="missing_field-track"),
    ],
)
def test_rejects_unknown_or_missing_task_or_track(api_client, before, task, track, code, field):
    response = submit(api_client, task=task, track=track, log=training_log())

    assert_rejected(response, code, field=field)
    assert_nothing_stored(before)


def test_rejects_request_with_no_task_field_at_all(api_client, before):
    data = {
        "track": "train",
        "entry": SimpleUploadedFile("entry.json", entry_bytes()),
        "log": SimpleUploadedFile("log.tsv", training_log()),
    }

    response = api_client.post(SUBMISSIONS_URL, data, format="multipart")

    assert_rejected(response, "missing_field", field="task")
    assert_nothing_stored(before)


# --- the training log -------------------------------------------------------------------------------------------

HEADER = "epoch\thours\ttop1Accuracy"


def _log(*rows: str, header: str = HEADER) -> bytes:
    return ("\n".join([header, *rows]) + "\n").encode()


@pytest.mark.parametrize(
    ("log", "code", "field", "line"),
    [
        pytest.param(b"epoch\thours\ttop1Accuracy\n1\t0.5\t9\xff\n", "not_utf8", "log", 2, id="not_utf8"),
        pytest.param(
            _log("0\t0.01\t80.0", header="epoch\thours\taccuracy"),
            "missing_column",
            "top1Accuracy",
            1,
            id="missing_column-metric",
        ),
        pytest.param(
            _log("0\t94.5", header="epoch\ttop1Accuracy"), "missing_column", "hours", 1, id="missing_column-hours"
        ),
        pytest.param(
            _log("0\t0.01\t80.0\t1", header="epoch\thours\ttop1Accuracy\thours"),
            "duplicate_column",
            "hours",
            1,
            id="duplicate_column",
        ),
        pytest.param(_log(), "empty_log", "log", 2, id="empty_log"),
        pytest.param(_log("0\t0.01\t80.0", "1\t0.02"), "wrong_cell_count", "log", 3, id="wrong_cell_count"),
        pytest.param(
            _log("0\t0.01\t80.0", "1\t0.02\t90.5", "2\tabc\t94.1"),
            "non_numeric_cell",
            "hours",
            4,
            id="non_numeric_cell-hours",
        ),
        pytest.param(
            _log("0\t0.01\t80.0", "1\t0.02\t94.1%"),
            "non_numeric_cell",
            "top1Accuracy",
            3,
            id="non_numeric_cell-percent_sign",
        ),
        pytest.param(
            _log("0\t0.01\t80.0", "1\t0.02\tnan"), "non_finite_cell", "top1Accuracy", 3, id="non_finite_cell-nan"
        ),
        pytest.param(_log("0\t0.01\t80.0", "1\tinf\t94.1"), "non_finite_cell", "hours", 3, id="non_finite_cell-inf"),
        pytest.param(_log("0\t0.01\t80.0", "1\t\t94.1"), "non_finite_cell", "hours", 3, id="non_finite_cell-empty"),
        pytest.param(_log("0\t-0.01\t80.0", "1\t0.02\t94.1"), "negative_hours", "hours", 2, id="negative_hours"),
        pytest.param(_log("-1\t0.01\t80.0", "1\t0.02\t94.1"), "negative_epoch", "epoch", 2, id="negative_epoch"),
        pytest.param(
            _log("0\t0.01\t80.0", "1\t2e6\t94.5"),
            "number_out_of_range",
            "hours",
            3,
            id="number_out_of_range-hours",
        ),
        pytest.param(
            _log("0\t0.01\t80.0", "1\t0.03\t90.5", "2\t0.02\t94.1", "3\t0.04\t94.5"),
            "hours_decreasing",
            "hours",
            4,
            id="hours_decreasing",
        ),
        pytest.param(
            _log("0\t0.01\t80.0", "1\t0.02\t90.5", "1\t0.02\t94.1"),
            "ambiguous_repeated_epoch",
            "epoch",
            4,
            id="ambiguous_repeated_epoch",
        ),
        pytest.param(
            _log("0\t0.01\t80.0", "1\t0.02\t100.5"),
            "metric_out_of_range",
            "top1Accuracy",
            3,
            id="metric_out_of_range-above_100",
        ),
        pytest.param(
            _log("0\t0.01\t-5.0", "1\t0.02\t94.5"),
            "metric_out_of_range",
            "top1Accuracy",
            2,
            id="metric_out_of_range-negative",
        ),
        pytest.param(
            _log("0\t0.01\t80.0", "1\t0.02\t93.99"),
            "threshold_not_reached",
            "top1Accuracy",
            None,
            id="threshold_not_reached",
        ),
    ],
)
def test_rejects_bad_training_log(api_client, before, log, code, field, line):
    response = submit(api_client, log=log)

    assert_rejected(response, code, field=field, line=line)
    assert_nothing_stored(before)


@pytest.mark.parametrize(
    ("task", "log", "field"),
    [
        pytest.param("cifar10", _log("0\tTrue\t94.5"), "hours", id="cifar10-hours_True"),
        pytest.param("cifar10", _log("0\tFALSE\t94.5"), "hours", id="cifar10-hours_FALSE"),
        pytest.param("squad", _log("0\t0.5\tTrue", header="epoch\thours\tf1Score"), "f1Score", id="squad-f1Score_True"),
    ],
)
def test_rejects_boolean_word_in_a_number_column(api_client, before, task, log, field):
    response = submit(api_client, task=task, log=log)

    assert_rejected(response, "non_numeric_cell", field=field, line=2)
    assert_nothing_stored(before)


def test_rejects_non_breaking_space_in_a_cell_naming_its_line_and_column(api_client, before):
    log = "epoch\thours\ttop1Accuracy\n0\t0.01\u00a0\t94.5\n".encode()

    response = submit(api_client, log=log)

    assert_rejected(response, "non_numeric_cell", field="hours", line=2)
    assert_nothing_stored(before)


def test_rejects_squad_log_above_one_hundred_percent(api_client, before):
    log = _log("0\t0.5\t0.60", "1\t1.0\t0.80", "2\t1.5\t101.0", header="epoch\thours\tf1Score")

    response = submit(api_client, task="squad", log=log)

    assert_rejected(response, "metric_out_of_range", field="f1Score", line=4)
    assert_nothing_stored(before)


def test_rejects_squad_fraction_log_below_threshold(api_client, before):
    log = _log("0\t0.5\t0.60", "1\t1.0\t0.74", header="epoch\thours\tf1Score")

    response = submit(api_client, task="squad", log=log)

    assert_rejected(response, "threshold_not_reached", field="f1Score")
    assert_nothing_stored(before)


# --- inference entries ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("task", "document", "field"),
    [
        pytest.param("cifar10", inference_document(top1Accuracy=93.9), "top1Accuracy", id="cifar10"),
        pytest.param(
            "imagenet", without(inference_document(top5Accuracy=92.0), "top1Accuracy"), "top5Accuracy", id="imagenet"
        ),
        pytest.param("squad", without(inference_document(f1Score=0.70), "top1Accuracy"), "f1Score", id="squad"),
    ],
)
def test_rejects_inference_accuracy_below_threshold(api_client, before, task, document, field):
    response = submit(api_client, task=task, track="inference", entry=json_bytes(document))

    assert_rejected(response, "accuracy_below_threshold", field=field)
    assert_nothing_stored(before)


def test_rejects_inference_accuracy_above_one_hundred_percent(api_client, before):
    response = submit(api_client, track="inference", entry=json_bytes(inference_document(top1Accuracy=100.5)))

    assert_rejected(response, "metric_out_of_range", field="top1Accuracy")
    assert_nothing_stored(before)


def test_rejects_inference_entry_without_accuracy(api_client, before):
    response = submit(api_client, track="inference", entry=json_bytes(without(inference_document(), "top1Accuracy")))

    assert_rejected(response, "missing_field", field="top1Accuracy")
    assert_nothing_stored(before)


def test_rejects_inference_entry_with_neither_latency_nor_cost(api_client, before):
    document = without(inference_document(), "latency", "cost")

    response = submit(api_client, track="inference", entry=json_bytes(document))

    assert_rejected(response, "missing_latency_and_cost", field="latency")
    assert_nothing_stored(before)


def test_rejects_inference_latency_of_wrong_type(api_client, before):
    response = submit(api_client, track="inference", entry=json_bytes(inference_document(latency="2.5 ms")))

    assert_rejected(response, "wrong_type", field="latency")
    assert_nothing_stored(before)


# --- authentication ---------------------------------------------------------------------------------------------


def test_rejects_submission_without_token_with_401(anonymous_client, before):
    response = submit(anonymous_client)

    assert_rejected(response, "not_authenticated", status=401)
    assert_nothing_stored(before)


def test_rejects_submission_with_bad_token_with_401(anonymous_client, before):
    anonymous_client.credentials(HTTP_AUTHORIZATION="Token 0000000000000000000000000000000000000000")

    response = submit(anonymous_client)

    assert_rejected(response, "authentication_failed", status=401)
    assert_nothing_stored(before)


# --- dry runs ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["1", "true", "yes"])
def test_dry_run_of_valid_submission_answers_valid_and_stores_nothing(api_client, before, flag):
    response = submit(api_client, entry=entry_bytes(model="another run"), query=f"?dry_run={flag}")

    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["status"] == "valid"
    assert body["dry_run"] is True
    assert (body["id"], body["url"], body["entry_url"]) == (None, None, None)
    assert body["results"]["time_to_accuracy_seconds"] == pytest.approx(0.03 * 3600, rel=1e-12)
    assert_nothing_stored(before)


def test_dry_run_reports_warnings(api_client, before):
    response = submit(api_client, log=training_log(newline="\r\n"), query="?dry_run=1")

    assert response.status_code == 200, response.json()
    assert [issue["code"] for issue in response.json()["warnings"]] == ["crlf_line_endings"]
    assert_nothing_stored(before)


def test_dry_run_of_invalid_submission_is_rejected_and_stores_nothing(api_client, before):
    response = submit(api_client, entry=entry_bytes(timestamp="someday"), query="?dry_run=1")

    assert_rejected(response, "invalid_date", field="timestamp")
    assert response.json()["dry_run"] is True
    assert_nothing_stored(before)


def test_dry_run_of_files_already_on_the_board_answers_as_the_real_submission_would(api_client):
    assert submit(api_client, log=DEFAULT_LOG).status_code == 201

    dry = submit(api_client, log=DEFAULT_LOG, query="?dry_run=1")
    real = submit(api_client, log=DEFAULT_LOG)

    assert_rejected(dry, "duplicate_submission", field="entry")
    assert dry.json()["dry_run"] is True
    assert dry.json()["errors"] == real.json()["errors"]


def test_rejection_response_has_no_submission_id(api_client, before):
    response = submit(api_client, entry=b"not json")

    assert response.status_code == 400
    assert (response.json()["id"], response.json()["url"], response.json()["entry_url"]) == (None, None, None)
    assert_nothing_stored(before)
