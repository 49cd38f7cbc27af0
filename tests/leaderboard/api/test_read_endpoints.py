"""The read side of the API: entries, one entry, one submission, leaderboards, tasks, the schema and its docs."""

from __future__ import annotations

import hashlib
import json
import re
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from dawnboard.metrics import LEADERBOARD_METRICS
from tests.factories import SubmitterFactory, entry_bytes, inference_document, training_log
from tests.leaderboard.api.helpers import DEFAULT_LOG, DEFAULT_ROWS, SUBMISSIONS_URL, json_bytes, submit, without

pytestmark = pytest.mark.django_db

ENTRIES_URL = "/api/v1/entries/"
PAGE_SIZE = 50


def submit_accepted(client, **files) -> dict:
    """POST a submission (valid unless `entry`/`log` say otherwise) that must be accepted."""
    response = submit(client, **files)
    assert response.status_code == 201, response.json()
    return response.json()


def entry_id(verdict: dict) -> int:
    return int(verdict["entry_url"].rstrip("/").rsplit("/", 1)[1])


def leaderboard_url(task: str, metric: str) -> str:
    return f"/api/v1/leaderboards/{task}/{metric}/"


def sample_entries(sample_dir: Path) -> list[dict]:
    """Every sample entry document with the task and track its folder gives it, read without the app."""
    documents = []
    for path in sorted(sample_dir.glob("*/*/*.json")):
        document = json.loads(path.read_text(encoding="utf-8-sig"))
        documents.append({**document, "_task": path.parent.parent.name.lower(), "_track": path.parent.name})
    return documents


@pytest.fixture
def imported_sample(sample_dir, db) -> list[dict]:
    call_command("import_dawnbench", str(sample_dir), stdout=StringIO())
    return sample_entries(sample_dir)


@pytest.fixture
def other_client(db) -> APIClient:
    """A client authenticated as a second submitter."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {SubmitterFactory().token}")
    return client


def assert_error(response, status: int, code: str) -> None:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["status"] == "rejected"
    assert [issue["code"] for issue in body["errors"]] == [code]


# --- GET /api/v1/entries/ ---------------------------------------------------------------------------------------


def test_entries_list_counts_every_sample_entry_and_pages_by_fifty(anonymous_client, imported_sample):
    first = anonymous_client.get(ENTRIES_URL).json()
    second = anonymous_client.get(first["next"]).json()

    assert first["count"] == len(imported_sample) == 52
    assert len(first["results"]) == PAGE_SIZE
    assert len(second["results"]) == len(imported_sample) - PAGE_SIZE
    assert second["next"] is None
    ids = [entry["id"] for entry in first["results"] + second["results"]]
    assert len(set(ids)) == len(imported_sample)


def test_entries_list_is_newest_date_first(anonymous_client, imported_sample):
    results = anonymous_client.get(ENTRIES_URL).json()["results"]

    dates = [entry["date"] for entry in results]
    assert dates == sorted(dates, reverse=True)


@pytest.fixture
def four_entries(api_client) -> dict[str, int]:
    """Entries of two tasks, both tracks, and several frameworks and hardware; name -> entry id."""
    squad_log = training_log([(0, 0.5, 0.6), (1, 1.0, 0.8)], header="epoch\thours\tf1Score")
    submissions = {
        "cifar10-train": dict(entry=entry_bytes(framework="PyTorch 1.0", hardware="8 x V100 (AWS p3.16xlarge)")),
        "cifar10-inference": dict(
            track="inference", entry=json_bytes(inference_document(framework="TensorFlow 1.12", hardware="1 K80"))
        ),
        "squad-train": dict(
            task="squad", log=squad_log, entry=entry_bytes(framework="pytorch 0.4", hardware="1 k80 (Google Cloud)")
        ),
        "imagenet-inference": dict(
            task="imagenet",
            track="inference",
            entry=json_bytes(
                without(inference_document(framework="MXNet", hardware="TPU v3", top5Accuracy=93.5), "top1Accuracy")
            ),
        ),
    }
    return {name: entry_id(submit_accepted(api_client, **kwargs)) for name, kwargs in submissions.items()}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        pytest.param({"task": "cifar10"}, {"cifar10-train", "cifar10-inference"}, id="task=cifar10"),
        pytest.param({"task": "squad"}, {"squad-train"}, id="task=squad"),
        pytest.param({"track": "train"}, {"cifar10-train", "squad-train"}, id="track=train"),
        pytest.param({"track": "inference"}, {"cifar10-inference", "imagenet-inference"}, id="track=inference"),
        pytest.param({"framework": "PYTORCH"}, {"cifar10-train", "squad-train"}, id="framework=PYTORCH-icontains"),
        pytest.param({"framework": "tensorflow"}, {"cifar10-inference"}, id="framework=tensorflow-icontains"),
        pytest.param({"hardware": "K80"}, {"cifar10-inference", "squad-train"}, id="hardware=K80-icontains"),
        pytest.param({"hardware": "p3.16x"}, {"cifar10-train"}, id="hardware=p3.16x-substring"),
        pytest.param({"track": "train", "hardware": "k80"}, {"squad-train"}, id="track=train&hardware=k80"),
        pytest.param({"task": "mnist"}, set(), id="task=mnist-none"),
    ],
)
def test_entries_list_filters(anonymous_client, four_entries, query, expected):
    body = anonymous_client.get(ENTRIES_URL, query).json()

    assert body["count"] == len(expected)
    assert {entry["id"] for entry in body["results"]} == {four_entries[name] for name in expected}


def test_entries_list_of_a_task_counts_its_entries_without_reading_their_submissions(anonymous_client, four_entries):
    """The count of a page reads the entries alone: at 100,000 entries a task, joining each to its submission and
    task made it a scan of the table (250 ms against 20 ms off the index of the task's newest entries)."""
    with CaptureQueriesContext(connection) as queries:
        body = anonymous_client.get(ENTRIES_URL, {"task": "cifar10"}).json()

    (count,) = [query["sql"] for query in queries if "COUNT(" in query["sql"]]
    assert body["count"] == 2 and body["results"][0]["submitter"] is not None
    assert "leaderboard_submission" not in count and "leaderboard_task" in count  # the task's id, read first
    assert "JOIN" not in count


def test_entries_list_rejects_unknown_track_filter(anonymous_client, four_entries):
    response = anonymous_client.get(ENTRIES_URL, {"track": "eval"})

    assert_error(response, 400, "invalid_choice")
    assert response.json()["errors"][0]["field"] == "track"


def test_entries_list_shows_a_submitted_entry_with_its_results(api_client, anonymous_client):
    verdict = submit_accepted(api_client)

    results = anonymous_client.get(ENTRIES_URL).json()["results"]

    assert len(results) == 1
    entry = results[0]
    assert entry["url"] == verdict["entry_url"]
    assert (entry["task"], entry["task_version"], entry["track"], entry["status"]) == (
        "cifar10",
        "v1.0",
        "train",
        "accepted",
    )
    assert entry["results"]["time_to_accuracy_seconds"] == pytest.approx(0.03 * 3600, rel=1e-12)
    assert entry["results"]["training_cost_usd"] == pytest.approx(0.03 * 3.06, rel=1e-12)


# --- GET /api/v1/entries/{id}/ ----------------------------------------------------------------------------------


def test_entry_detail_has_the_curve_of_the_log(api_client, anonymous_client):
    verdict = submit_accepted(api_client, log=DEFAULT_LOG)

    detail = anonymous_client.get(verdict["entry_url"]).json()

    assert [(p["position"], p["line"], p["epoch"], p["hours"], p["metric"]) for p in detail["runs"][0]["curve"]] == [
        (i, i + 2, epoch, hours, metric) for i, (epoch, hours, metric) in enumerate(DEFAULT_ROWS)
    ]
    assert detail["time_to_accuracy_line"] == 4
    assert detail["runs"][0]["log_row_count"] == len(DEFAULT_ROWS)


def test_entry_detail_lists_both_files_with_sha256(api_client, anonymous_client):
    entry_file, log_file = entry_bytes(), training_log()
    verdict = submit_accepted(api_client, entry=entry_file, log=log_file)

    files = {file["role"]: file for file in api_client.get(verdict["entry_url"]).json()["files"]}  # the submitter
    public = {file["role"]: file for file in anonymous_client.get(verdict["entry_url"]).json()["files"]}

    assert set(files) == set(public) == {"entry", "log"}
    for role, uploaded in (("entry", entry_file), ("log", log_file)):
        assert files[role]["sha256"] == hashlib.sha256(uploaded).hexdigest()
        assert files[role]["size_bytes"] == len(uploaded)
    assert public["log"] == files["log"]
    assert public["entry"]["as_published"] and public["entry"]["sha256"] != files["entry"]["sha256"]


def test_entry_detail_has_claimed_fields_warnings_and_threshold(api_client, anonymous_client):
    verdict = submit_accepted(api_client, entry=entry_bytes(gpuCount=8), log=training_log(newline="\r\n"))

    detail = anonymous_client.get(verdict["entry_url"]).json()

    claimed = json.loads(entry_bytes(gpuCount=8))
    del claimed["authorEmail"]  # only staff and the submitter read it (tests/leaderboard/test_privacy.py)
    assert detail["claimed"] == claimed
    assert detail["extra_fields"] == {"gpuCount": 8}
    assert sorted(warning["code"] for warning in detail["warnings"]) == ["crlf_line_endings", "unknown_fields"]
    assert Decimal(detail["threshold"]) == Decimal("94.0")


def test_entry_detail_of_unknown_id_is_404_envelope(anonymous_client, db):
    response = anonymous_client.get(f"{ENTRIES_URL}999999/")

    assert_error(response, 404, "not_found")


# --- GET /api/v1/submissions/{id}/ ------------------------------------------------------------------------------


def test_submission_detail_is_visible_to_its_owner(api_client):
    verdict = submit_accepted(api_client, log=training_log(newline="\r\n"))

    response = api_client.get(verdict["url"])

    assert response.status_code == 200
    body = response.json()
    assert (body["id"], body["status"], body["entry_url"]) == (verdict["id"], "accepted", verdict["entry_url"])
    assert [warning["code"] for warning in body["warnings"]] == ["crlf_line_endings"]
    assert body["results"]["time_to_accuracy_seconds"] == pytest.approx(0.03 * 3600, rel=1e-12)


def test_submission_detail_is_404_to_another_submitter(api_client, other_client):
    verdict = submit_accepted(api_client)

    assert_error(other_client.get(verdict["url"]), 404, "not_found")


def test_submission_detail_is_401_to_anonymous(api_client, anonymous_client):
    verdict = submit_accepted(api_client)

    assert_error(anonymous_client.get(verdict["url"]), 401, "not_authenticated")


def test_submission_detail_of_unknown_id_is_404(api_client):
    assert_error(api_client.get(f"{SUBMISSIONS_URL}999999/"), 404, "not_found")


# --- GET /api/v1/leaderboards/{task}/{metric}/ ------------------------------------------------------------------


@pytest.mark.parametrize("metric", list(LEADERBOARD_METRICS))
def test_leaderboard_is_the_same_document_as_the_leaderboard_command(anonymous_client, imported_sample, metric):
    out = StringIO()
    call_command("leaderboard", "cifar10", metric, "--json", stdout=out)

    response = anonymous_client.get(leaderboard_url("cifar10", metric))

    assert response.status_code == 200
    window = {"limit", "next", "previous"}  # the API's window of rows; the command, without --limit, has them all
    api, command = response.json(), json.loads(out.getvalue())
    assert {key: value for key, value in api.items() if key not in window} == {
        key: value for key, value in command.items() if key not in window
    }
    assert api["results"], "the sample ranks entries on every cifar10 board"
    assert api["count"] == len(api["results"]) and (api["next"], api["previous"]) == (None, None)


def test_leaderboard_ranks_from_one_by_ascending_value(anonymous_client, imported_sample):
    board = anonymous_client.get(leaderboard_url("cifar10", "training-time")).json()

    assert (board["task"], board["metric"], board["unit"]) == ("cifar10", "training-time", "seconds")
    assert [row["rank"] for row in board["results"]] == list(range(1, len(board["results"]) + 1))
    values = [row["value"] for row in board["results"]]
    assert values == sorted(values)


def test_leaderboard_limit_returns_the_top_rows(anonymous_client, imported_sample):
    full = anonymous_client.get(leaderboard_url("cifar10", "inference-latency")).json()["results"]

    limited = anonymous_client.get(leaderboard_url("cifar10", "inference-latency"), {"limit": 3}).json()["results"]

    assert limited == full[:3]


def test_leaderboard_limit_above_the_row_count_returns_every_row(api_client, anonymous_client):
    submit_accepted(api_client)

    board = anonymous_client.get(leaderboard_url("cifar10", "training-time"), {"limit": 1000}).json()

    assert len(board["results"]) == 1


def test_leaderboard_ranks_submitted_entries_by_recomputed_value(api_client, anonymous_client):
    slow = submit_accepted(api_client, log=training_log([(0, 0.5, 80.0), (1, 1.0, 94.2)]))
    fast = submit_accepted(api_client, log=training_log([(0, 0.1, 80.0), (1, 0.2, 94.2)]))
    submit_accepted(api_client, track="inference", entry=json_bytes(inference_document()))

    board = anonymous_client.get(leaderboard_url("cifar10", "training-time")).json()

    assert [(row["rank"], row["entry_id"]) for row in board["results"]] == [
        (1, entry_id(fast)),
        (2, entry_id(slow)),
    ]
    assert [row["value"] for row in board["results"]] == pytest.approx([0.2 * 3600, 1.0 * 3600], rel=1e-12)


@pytest.mark.parametrize(
    ("task", "metric", "code"),
    [
        pytest.param("mnist", "training-time", "unknown_task", id="unknown_task"),
        pytest.param("cifar10", "accuracy", "unknown_metric", id="unknown_metric"),
    ],
)
def test_leaderboard_of_unknown_task_or_metric_is_404_envelope(anonymous_client, db, task, metric, code):
    assert_error(anonymous_client.get(leaderboard_url(task, metric)), 404, code)


@pytest.mark.parametrize("limit", ["0", "-1", "abc", "1.5", "3x"])
def test_leaderboard_rejects_invalid_limit(anonymous_client, db, limit):
    response = anonymous_client.get(leaderboard_url("cifar10", "training-time"), {"limit": limit})

    assert_error(response, 400, "invalid_limit")
    assert response.json()["errors"][0]["field"] == "limit"


# --- GET /api/v1/tasks/ -----------------------------------------------------------------------------------------


def test_tasks_lists_the_four_tasks_with_their_thresholds(anonymous_client, db):
    tasks = anonymous_client.get("/api/v1/tasks/").json()

    current = {task["slug"]: next(version for version in task["versions"] if version["is_current"]) for task in tasks}
    assert {"cifar10", "digits", "imagenet", "squad", "bert", "llama31_8b"} <= set(current)  # MLPerf's tasks too
    dawnbench = ("cifar10", "digits", "imagenet", "squad")
    assert {
        slug: (Decimal(v["threshold"]), v["log_column"], v["scale"]) for slug, v in current.items() if slug in dawnbench
    } == {
        "cifar10": (Decimal("94.0"), "top1Accuracy", "percent"),
        "digits": (Decimal("98.0"), "top1Accuracy", "percent"),
        "imagenet": (Decimal("93.0"), "top5Accuracy", "percent"),
        "squad": (Decimal("0.75"), "f1Score", "fraction"),
    }


# --- schema and docs --------------------------------------------------------------------------------------------


def test_schema_is_served(anonymous_client, db):
    response = anonymous_client.get("/api/schema/")

    assert response.status_code == 200
    assert b"/api/v1/submissions/" in response.content


PUBLIC_OPERATIONS = {
    ("get", "/api/v1/"),
    ("get", "/api/v1/entries/"),
    ("get", "/api/v1/entries/{id}/"),
    ("get", "/api/v1/entries/{id}/files/{role}/"),
    ("get", "/api/v1/leaderboards/{task}/{metric}/"),
    ("get", "/api/v1/tasks/"),
    ("get", "/api/v1/tasks/{task}/sensitivity/"),
    ("get", "/api/v1/pricing/instances/"),
    ("get", "/api/v1/pricing/instances/{id}/"),
    ("get", "/api/v1/reference-runs/{id}/"),
    ("get", "/api/v1/algorithms/{suite}/{ruleset}/"),
    ("get", "/api/v1/algorithms/results/{id}/"),
}


def test_the_docs_put_a_padlock_only_on_operations_that_need_a_token(anonymous_client, db):
    """Swagger UI draws a padlock on every operation with a security requirement: a public read has none."""
    schema = anonymous_client.get("/api/schema/", {"format": "json"}).json()
    operations = {
        (method, path): operation for path, item in schema["paths"].items() for method, operation in item.items()
    }

    public = {key for key, operation in operations.items() if not operation.get("security")}

    assert public == PUBLIC_OPERATIONS
    for key in set(operations) - public:
        assert {"tokenAuth": []} in operations[key]["security"], key
    assert "tokenAuth" in schema["components"]["securitySchemes"]  # the Authorize button still takes a token


def test_every_public_operation_answers_without_a_token(anonymous_client, db):
    for path in ("/api/v1/", "/api/v1/entries/", "/api/v1/tasks/", "/api/v1/leaderboards/digits/training-time/"):
        assert anonymous_client.get(path).status_code == 200, path
    assert anonymous_client.get(SUBMISSIONS_URL).status_code == 401


def test_docs_page_loads_its_scripts_from_local_static_files(anonymous_client, db):
    response = anonymous_client.get("/api/docs/")

    assert response.status_code == 200
    html = response.content.decode()
    sources = re.findall(r"<script[^>]*\bsrc=[\"']([^\"']+)[\"']", html)
    assert sources, "the docs page loads Swagger UI from script files"
    # Swagger UI's start-up script comes from the docs view itself (?script), never inline (the CSP forbids it).
    assert all(source.startswith(("/static/", "/api/docs/?script")) for source in sources), sources
    assert not re.search(r"(?:src|href)=[\"'](?:https?:)?//", html)
