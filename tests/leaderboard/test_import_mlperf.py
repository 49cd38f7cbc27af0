"""`manage.py import_mlperf DIR --round vX.Y [--json]`: an MLPerf Training results tree imported, one entry per
accepted set, and the API's `format=mllog` submission of one set. Trees are built in tmp_path with
tests/dawnboard/mllog_runs.py."""

from __future__ import annotations

import io
import json
import os
import time
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError

from dawnboard.errors import ErrorCode
from dawnboard.formats.mllog import MAX_RESULT_FILES, write_mllog
from leaderboard.models import Entry, Run, Submission
from tests.dawnboard.mllog_runs import START_MS, raw_record, run_log, run_records, write_set
from tests.leaderboard.api.helpers import SUBMISSIONS_URL

pytestmark = pytest.mark.django_db

ROUND = "v4.1"
REACHED, SHORT = ((1, 0.20), (2, 0.35)), ((1, 0.20), (2, 0.30))  # v4.1 ssd's target is 0.340
SECONDS = 5.0  # how long one bad input may take to be refused


def ssd_logs(minutes: list[float], *, short: set[int] = frozenset(), offset: int = 0) -> list[bytes]:
    """One ssd log per duration, each a run of its own (its own start); runs in `short` miss the target."""
    return [
        run_log(
            duration_ms=duration * 60_000,
            evaluations=SHORT if index in short else REACHED,
            start_ms=START_MS + 10_000_000 * (index + 100 * offset),
        )
        for index, duration in enumerate(minutes)
    ]


def good_set(root: Path, *, system: str = "good", offset: int = 0) -> Path:
    return write_set(root, ssd_logs([10.0, 11.0, 12.0, 13.0, 14.0], offset=offset), system=system)


def bad_set(root: Path, logs: list[bytes], *, system: str = "bad") -> Path:
    """A set of five runs, the first replaced by `logs[0]` (and so on)."""
    runs = ssd_logs([20.0, 21.0, 22.0, 23.0, 24.0], offset=7)
    runs[: len(logs)] = logs
    return write_set(root, runs, system=system)


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


# --- Set rules ---


def test_set_with_the_wrong_number_of_runs_is_rejected_and_the_others_imported(tmp_path):
    good_set(tmp_path)
    write_set(tmp_path, ssd_logs([20.0, 21.0, 22.0, 23.0], offset=3), system="bad")

    assert_refused_alone(tmp_path, ErrorCode.WRONG_RUN_COUNT)


def test_unknown_benchmark_folder_is_rejected_and_the_others_imported(tmp_path):
    good_set(tmp_path)
    folder = write_set(tmp_path, ssd_logs([20.0, 21.0, 22.0, 23.0, 24.0], offset=3), system="bad")
    folder.rename(folder.parent / "not_a_benchmark")

    assert_refused_alone(tmp_path, ErrorCode.UNKNOWN_BENCHMARK)


# --- Bad input: each refused alone, quickly ---


def test_result_file_linking_outside_the_tree_is_refused(tmp_path):
    tree, outside = tmp_path / "tree", tmp_path / "outside.txt"
    outside.write_bytes(ssd_logs([30.0], offset=9)[0])
    good_set(tree)
    folder = bad_set(tree, [])
    (folder / "result_1.txt").unlink()
    os.symlink(outside, folder / "result_1.txt")

    assert_refused_alone(tree, ErrorCode.LINK_OUTSIDE_TREE)


def test_set_folder_linking_outside_the_tree_is_refused(tmp_path):
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    good_set(tree)
    write_set(outside, ssd_logs([30.0, 31.0, 32.0, 33.0, 34.0], offset=9), system="sys")
    os.symlink(outside / "Org" / "results" / "sys", tree / "Org" / "results" / "bad")

    assert_refused_alone(tree, ErrorCode.LINK_OUTSIDE_TREE)


def test_log_over_the_size_limit_is_refused_unread(tmp_path):
    good_set(tmp_path)
    folder = bad_set(tmp_path, [])
    with open(folder / "result_1.txt", "r+b") as sparse:  # 65 MB of holes: over MAX_LOG_BYTES, no disk used
        sparse.truncate(65 * 1024 * 1024)

    assert_refused_alone(tmp_path, ErrorCode.FILE_TOO_LARGE)


def test_record_line_of_ten_megabytes_is_refused(tmp_path):
    good_set(tmp_path)
    records = run_records(duration_ms=20 * 60_000, start_ms=START_MS + 77_000_000)
    huge = raw_record("padding", "x" * 10_000_000, START_MS)
    bad_set(tmp_path, [huge + write_mllog(records)])

    assert_refused_alone(tmp_path, ErrorCode.LINE_TOO_LONG)


def test_log_of_a_million_lines_over_the_limit_is_refused(tmp_path):
    good_set(tmp_path)
    log = run_log(duration_ms=20 * 60_000, start_ms=START_MS + 77_000_000)
    bad_set(tmp_path, [log + b"\n" * 2_000_001])

    assert_refused_alone(tmp_path, ErrorCode.TOO_MANY_LINES)


def test_log_of_a_million_other_lines_within_the_limit_is_read_quickly(tmp_path):
    good_set(tmp_path)
    log = run_log(duration_ms=20 * 60_000, start_ms=START_MS + 77_000_000)
    bad_set(tmp_path, [b"noise\n" * 1_000_000 + log], system="also_good")
    started = time.perf_counter()

    sets = by_system(import_json(tmp_path))

    assert time.perf_counter() - started < SECONDS
    assert sets["also_good"]["status"] == "accepted" and sets["good"]["status"] == "accepted"


def test_folder_with_more_than_max_result_files_is_refused_unread(tmp_path):
    good_set(tmp_path)
    folder = tmp_path / "Org" / "results" / "bad" / "ssd"
    folder.mkdir(parents=True)
    for index in range(MAX_RESULT_FILES + 1):
        (folder / f"result_{index}.txt").write_bytes(b"")

    assert_refused_alone(tmp_path, ErrorCode.TOO_MANY_RESULT_FILES)


@pytest.mark.parametrize("time_text", ['"1700000000000"', "NaN", "1e400"], ids=["string", "nan", "1e400"])
def test_record_whose_time_is_not_a_finite_number_is_refused(tmp_path, time_text):
    good_set(tmp_path)
    log = run_log(duration_ms=20 * 60_000, start_ms=START_MS + 77_000_000)
    bad_set(tmp_path, [raw_record("weird", 1, time_text) + log])

    assert_refused_alone(tmp_path, ErrorCode.INVALID_TIME)


def test_record_nested_a_hundred_thousand_deep_is_refused(tmp_path):
    good_set(tmp_path)
    log = run_log(duration_ms=20 * 60_000, start_ms=START_MS + 77_000_000)
    deep = (
        b':::MLLOG {"namespace": "", "time_ms": 1700000000000, "event_type": "POINT_IN_TIME", "key": "deep", '
        b'"metadata": {}, "value": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"
    )
    bad_set(tmp_path, [deep + log])

    assert_refused_alone(tmp_path, ErrorCode.NESTED_TOO_DEEP)


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
