"""`manage.py import_mlperf DIR --round vX.Y [--json]`: an MLPerf Training results tree imported, one entry per
accepted set, and the API's `format=mllog` submission of one set. Trees are built in tmp_path with
tests/dawnboard/mllog_trees.py (the hostile sets `make soak` imports too)."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError

from dawnboard.errors import ErrorCode
from leaderboard.models import Entry, Run, Submission
from tests.dawnboard.mllog_runs import START_MS, raw_record, run_log, write_set
from tests.dawnboard.mllog_trees import HOSTILE_SETS, ROUND, bad_set, good_set, ssd_logs
from tests.leaderboard.api.helpers import SUBMISSIONS_URL

pytestmark = pytest.mark.django_db

SECONDS = 5.0  # how long one bad input may take to be refused


def import_json(root: Path) -> dict:
    out = io.StringIO()
    call_command("import_mlperf", str(root), "--round", ROUND, "--json", stdout=out)
    return json.loads(out.getvalue())


def by_system(document: dict) -> dict[str, dict]:
    return {imported["system"]: imported for imported in document["sets"]}


def all_codes(imported: dict) -> set[str]:
    codes = {error["code"] for error in imported["errors"]}
    for run in imported["runs"]:
        codes |= {error["code"] for error in run["errors"]}
    return codes


def assert_refused_alone(root: Path, code: str) -> None:
    """The `bad` set is rejected with `code` and stores nothing; the `good` set beside it is imported."""
    started = time.perf_counter()
    document = import_json(root)
    elapsed = time.perf_counter() - started

    sets = by_system(document)
    assert sets["bad"]["status"] == "rejected" and sets["bad"]["entry_id"] is None
    assert code in all_codes(sets["bad"])
    assert sets["good"]["status"] == "accepted"
    assert Entry.objects.count() == 1 and Entry.objects.get().id == sets["good"]["entry_id"]
    assert elapsed < SECONDS


# --- The JSON document ---


SET_KEYS = {"submitter", "system", "benchmark", "status", "score_minutes", "entry_id", "errors", "runs"}
RUN_KEYS = {"file", "status", "minutes", "errors"}


def assert_set_shape(imported: dict) -> None:
    assert set(imported) == SET_KEYS
    assert all(isinstance(imported[key], str) for key in ("submitter", "system", "benchmark"))
    assert imported["status"] in ("accepted", "rejected")
    assert all(set(error) == {"code", "message"} for error in imported["errors"])
    for run in imported["runs"]:
        assert set(run) == RUN_KEYS
        assert isinstance(run["file"], str) and run["status"] in ("success", "failed", "rejected")
        assert run["minutes"] is None or type(run["minutes"]) is float
        assert all(set(error) == {"code", "message", "line"} for error in run["errors"])


def test_json_document_has_the_documented_shape_for_an_accepted_and_a_rejected_set(tmp_path):
    good_set(tmp_path)
    write_set(tmp_path, ssd_logs([20.0, 21.0, 22.0], offset=3), system="bad")

    document = import_json(tmp_path)

    assert set(document) == {"round", "sets"} and document["round"] == ROUND
    sets = by_system(document)
    for imported in document["sets"]:
        assert_set_shape(imported)
    accepted, rejected = sets["good"], sets["bad"]
    assert accepted["status"] == "accepted" and type(accepted["score_minutes"]) is float
    assert type(accepted["entry_id"]) is int and accepted["errors"] == []
    assert rejected["status"] == "rejected" and rejected["score_minutes"] is None and rejected["entry_id"] is None
    assert rejected["errors"]


def test_accepted_set_is_stored_as_one_entry_of_its_runs(tmp_path):
    good_set(tmp_path)

    imported = import_json(tmp_path)["sets"][0]

    entry = Entry.objects.get(id=imported["entry_id"])
    assert entry.run_count == 5
    assert [run.status for run in entry.runs.order_by("position")] == [Run.Status.SUCCESS] * 5
    assert entry.time_to_accuracy_seconds == pytest.approx(imported["score_minutes"] * 60, rel=1e-12)
    assert imported["score_minutes"] == pytest.approx((11.0 + 12.0 + 13.0) / 3, rel=1e-12)


def test_reimporting_the_same_tree_changes_nothing(tmp_path):
    good_set(tmp_path)
    good_set(tmp_path, system="other", offset=1)
    first = import_json(tmp_path)
    counts = (Entry.objects.count(), Run.objects.count(), Submission.objects.count())

    second = import_json(tmp_path)

    assert [s["entry_id"] for s in second["sets"]] == [s["entry_id"] for s in first["sets"]]
    assert all(s["status"] == "accepted" for s in second["sets"])
    assert (Entry.objects.count(), Run.objects.count(), Submission.objects.count()) == counts


def test_failed_run_faster_than_the_slowest_success_is_dropped_from_the_slow_end(tmp_path):
    write_set(tmp_path, ssd_logs([10.0, 11.0, 12.0, 13.0, 9.0], short={4}), system="good")

    imported = import_json(tmp_path)["sets"][0]

    assert imported["status"] == "accepted"
    assert [run["status"] for run in imported["runs"]][4] == "failed"
    assert imported["score_minutes"] == pytest.approx((11.0 + 12.0 + 13.0) / 3, rel=1e-12)
    entry = Entry.objects.get(id=imported["entry_id"])
    assert [run.status for run in entry.runs.order_by("position")][4] == Run.Status.FAILED


# --- Bad input: each refused alone, quickly, the good set beside it imported ---


@pytest.mark.parametrize("hostile", HOSTILE_SETS, ids=lambda hostile: hostile.name)
def test_hostile_set_is_refused_alone_with_its_code(tmp_path, hostile):
    tree = tmp_path / "tree"
    good_set(tree)
    hostile.write(tree, "bad")

    assert_refused_alone(tree, hostile.code)


def test_log_of_a_million_other_lines_within_the_limit_is_read_quickly(tmp_path):
    good_set(tmp_path)
    log = run_log(duration_ms=20 * 60_000, start_ms=START_MS + 77_000_000)
    bad_set(tmp_path, [b"noise\n" * 1_000_000 + log], system="also_good")
    started = time.perf_counter()

    sets = by_system(import_json(tmp_path))

    assert time.perf_counter() - started < SECONDS
    assert sets["also_good"]["status"] == "accepted" and sets["good"]["status"] == "accepted"


# --- The command's arguments ---


def test_round_is_required(tmp_path):
    good_set(tmp_path)

    with pytest.raises(CommandError):
        call_command("import_mlperf", str(tmp_path), stdout=io.StringIO(), stderr=io.StringIO())
    assert not Entry.objects.exists()


def test_unknown_round_is_refused(tmp_path):
    good_set(tmp_path)

    with pytest.raises(CommandError):
        call_command("import_mlperf", str(tmp_path), "--round", "v9.9", stdout=io.StringIO(), stderr=io.StringIO())
    assert not Entry.objects.exists()


# --- The API: one set as format=mllog ---


def post_mllog(client, logs: list[bytes], **fields):
    data = {"task": "ssd", **fields}
    data["log"] = [
        SimpleUploadedFile(f"result_{i}.txt", log, content_type="text/plain") for i, log in enumerate(logs, 1)
    ]
    return client.post(SUBMISSIONS_URL, data, format="multipart")


def error_pairs(response) -> set[tuple[str, str | None]]:
    return {(error["code"], error.get("field")) for error in response.json()["errors"]}


def test_api_accepts_an_mllog_set_as_one_entry_of_its_runs(api_client):
    response = post_mllog(api_client, ssd_logs([10.0, 11.0, 12.0, 13.0, 14.0]), format="mllog", round=ROUND)

    assert response.status_code == 201, response.content
    entry = Entry.objects.get()
    assert entry.run_count == 5 and entry.runs.count() == 5


def test_api_refuses_mllog_without_a_round(api_client):
    response = post_mllog(api_client, ssd_logs([10.0, 11.0, 12.0, 13.0, 14.0]), format="mllog")

    assert response.status_code == 400
    assert (ErrorCode.UNKNOWN_ROUND, "round") in error_pairs(response)
    assert not Entry.objects.exists()


def test_api_refuses_an_unknown_format(api_client):
    response = post_mllog(api_client, ssd_logs([10.0, 11.0, 12.0, 13.0, 14.0]), format="foo", round=ROUND)

    assert response.status_code == 400
    assert ErrorCode.UNKNOWN_FORMAT in {code for code, _ in error_pairs(response)}
    assert not Entry.objects.exists()


@pytest.mark.parametrize("time_text", ['"1700000000000"', "NaN", "1e400"], ids=["string", "nan", "1e400"])
def test_api_refuses_an_mllog_set_with_a_run_whose_time_is_not_a_number(api_client, time_text):
    logs = ssd_logs([10.0, 11.0, 12.0, 13.0, 14.0])
    logs[2] = raw_record("weird", 1, time_text) + logs[2]

    response = post_mllog(api_client, logs, format="mllog", round=ROUND)

    assert response.status_code == 400, response.content
    errors = response.json()["errors"]
    assert any(error["code"] == ErrorCode.INVALID_TIME and error.get("field") == "log[2]" for error in errors), errors
    assert not Entry.objects.exists() and not Submission.objects.exists()
