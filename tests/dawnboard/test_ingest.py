"""`validate_submission` end to end: routing by task and track, which file is needed, and the real DAWNBench sample."""

from __future__ import annotations

import json
from decimal import Decimal

import numpy as np
import pytest

from dawnboard.documents import LogReading, TrainingLog
from dawnboard.errors import ErrorCode, Issue, WarningCode
from dawnboard.formats.dawnbench import read_entry
from dawnboard.validation import validate_submission

THRESHOLD = 94.0  # cifar10 v1.0


def error_codes(result) -> list[str]:
    assert not result.accepted, "expected a rejection"
    return [issue.code for issue in result.errors]


def warning_codes(result) -> list[str]:
    return [issue.code for issue in result.warnings]


def test_accepts_a_training_submission_for_each_task(submit):
    for task in ("cifar10", "imagenet", "squad"):
        result = submit(task=task)

        assert result.accepted, task
        assert result.track == "train"
        assert result.rules.task_slug == task
        assert result.runs[0].log_row_count == 2
        assert result.results.time_to_accuracy_seconds == 3600.0


def test_accepts_an_inference_submission_for_each_task(submit):
    for task in ("cifar10", "imagenet", "squad"):
        result = submit(task=task, track="inference")

        assert result.accepted, task
        assert result.track == "inference"
        assert result.runs == []
        assert result.results.time_to_accuracy_seconds is None


def test_rejects_an_unknown_task(submit, passing_log):
    result = submit(task="mnist", log=passing_log())

    assert error_codes(result) == [ErrorCode.UNKNOWN_TASK]
    assert result.errors[0].field == "task"


def test_rejects_an_unknown_track(submit):
    result = submit(track="training")

    assert error_codes(result) == [ErrorCode.UNKNOWN_TRACK]
    assert result.errors[0].field == "track"


def test_rejects_an_unknown_task_and_track_together(submit, passing_log):
    result = submit(task="mnist", track="serving", log=passing_log())

    assert error_codes(result) == [ErrorCode.UNKNOWN_TASK, ErrorCode.UNKNOWN_TRACK]


@pytest.mark.parametrize("name", ["task", "track"])
def test_rejects_a_request_that_names_no_task_or_track(submit, passing_log, name):
    result = submit(log=passing_log(), **{name: ""})

    assert error_codes(result) == [ErrorCode.MISSING_FIELD]
    assert result.errors[0].field == name


def test_rejects_training_without_a_log(submit):
    result = submit(log=None)

    assert error_codes(result) == [ErrorCode.MISSING_LOG]
    assert result.errors[0].field == "log"


def test_ignores_a_log_sent_with_an_inference_entry(submit, passing_log):
    result = submit(track="inference", log=passing_log())

    assert result.accepted
    assert warning_codes(result) == [WarningCode.LOG_IGNORED]
    assert result.warnings[0].field == "log"
    assert result.results.latency_ms == 10.0
    assert result.runs == []


def test_ignores_even_an_unreadable_log_sent_with_an_inference_entry(submit):
    result = submit(track="inference", log=b"\xff\xfe garbage")

    assert result.accepted
    assert warning_codes(result) == [WarningCode.LOG_IGNORED]


def test_rejects_a_log_that_never_reaches_the_threshold(submit, training_log):
    result = submit(log=training_log([(0, 0.5, 80.0), (1, 1.0, 93.99), (2, 1.5, 93.0)]))

    assert error_codes(result) == [ErrorCode.THRESHOLD_NOT_REACHED]
    assert result.errors[0].field == "top1Accuracy"


def test_reports_entry_and_log_errors_together(submit, entry_json, training_log):
    log = training_log([(0, -0.5, 80.0), (1, 1.0, 95.0)])

    result = submit(entry=entry_json(timestamp="2018-02-30"), log=log)

    assert error_codes(result) == [ErrorCode.INVALID_DATE, ErrorCode.NEGATIVE_HOURS]
    assert result.errors[0].field == "timestamp"
    assert result.errors[1].line == 2


def test_reports_entry_errors_and_threshold_not_reached_together(submit, entry_json, training_log):
    result = submit(entry=entry_json(costPerHour="free"), log=training_log([(0, 0.5, 80.0)]))

    assert error_codes(result) == [ErrorCode.WRONG_TYPE, ErrorCode.THRESHOLD_NOT_REACHED]


def test_does_not_read_the_log_of_an_unknown_version(submit, entry_json):
    result = submit(entry=entry_json(version="v0.9"), log=b"not a log at all")

    assert error_codes(result) == [ErrorCode.UNKNOWN_VERSION]


def test_keeps_warnings_on_a_rejection(submit, training_log):
    result = submit(log=training_log([(0, 0.5, 80.0)], bom=True))

    assert error_codes(result) == [ErrorCode.THRESHOLD_NOT_REACHED]
    assert warning_codes(result) == [WarningCode.BYTE_ORDER_MARK]


def test_issue_as_dict_leaves_out_what_it_does_not_name():
    issue = Issue(ErrorCode.MISSING_FIELD, "The required field 'author' is missing or empty.", field="author")

    assert issue.as_dict() == {
        "code": "missing_field",
        "message": "The required field 'author' is missing or empty.",
        "field": "author",
    }


def test_results_as_dict_gives_plain_numbers(submit):
    results = submit().results.as_dict()

    assert results["time_to_accuracy_seconds"] == 3600.0
    assert results["training_cost_usd"] == 3.06
    assert isinstance(results["training_cost_usd"], float)
    json.dumps(results)


# The real DAWNBench CIFAR10 entries ------------------------------------------------------------------------


def reference_time_to_accuracy(tsv: bytes) -> tuple[str, float, int]:
    """DAWNBench's rule read naively: the hours (as written), epoch and line of the first row at >= 94."""
    lines = tsv.decode("utf-8-sig").replace("\r\n", "\n").split("\n")
    header = [name.strip() for name in lines[0].split("\t")]
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = dict(zip(header, (cell.strip() for cell in line.split("\t")), strict=False))
        if float(cells["top1Accuracy"]) >= THRESHOLD:
            return cells["hours"], float(cells["epoch"]), number
    raise AssertionError("the sample log never reaches the threshold")


def test_accepts_every_real_training_entry_with_the_dawnbench_result(dawnbench_sample, catalog, submit):
    entries = sorted((dawnbench_sample / "CIFAR10" / "train").glob("*.json"))
    assert len(entries) == 31

    for entry_path in entries:
        log = entry_path.with_suffix(".tsv").read_bytes()
        result = submit(entry=entry_path.read_bytes(), log=log)

        assert result.accepted, (entry_path.name, result.errors)
        hours_text, epoch, line = reference_time_to_accuracy(log)
        assert result.results.time_to_accuracy_seconds == pytest.approx(float(hours_text) * 3600, rel=1e-12)
        assert result.results.time_to_accuracy_epoch == epoch, entry_path.name
        assert result.results.time_to_accuracy_line == line, entry_path.name
        cost_per_hour = json.loads(entry_path.read_bytes(), parse_float=Decimal).get("costPerHour")
        if cost_per_hour is None:
            assert result.results.training_cost_usd is None
        else:
            assert result.results.training_cost_usd == Decimal(hours_text) * cost_per_hour, entry_path.name


def test_accepts_every_real_inference_entry(dawnbench_sample, submit):
    entries = sorted((dawnbench_sample / "CIFAR10" / "inference").glob("*.json"))
    assert len(entries) == 21

    for entry_path in entries:
        result = submit(track="inference", entry=entry_path.read_bytes())

        assert result.accepted, (entry_path.name, result.errors)
        document = json.loads(entry_path.read_bytes(), parse_float=Decimal)
        accuracy = document.get("top1Accuracy", document.get("accuracy"))
        assert result.entry.accuracy == accuracy, entry_path.name
        assert result.entry.latency_ms == document.get("latency"), entry_path.name
        if document.get("cost") is not None:
            assert result.results.inference_cost_usd_per_10k == document["cost"] * 10_000, entry_path.name


def test_reads_the_real_log_with_a_byte_order_mark_and_crlf(dawnbench_sample, submit):
    entry_path = dawnbench_sample / "CIFAR10" / "train" / "KRes34_1GTX1080Ti_pytorch.json"

    result = submit(entry=entry_path.read_bytes(), log=entry_path.with_suffix(".tsv").read_bytes())

    assert warning_codes(result) == [WarningCode.BYTE_ORDER_MARK, WarningCode.CRLF_LINE_ENDINGS]


def test_refuses_an_accuracy_log_written_in_fractions_rather_than_reading_it_as_percent(submit, training_log):
    result = submit(log=training_log([(0, 0.5, 0.9), (1, 1.0, 0.95)]))

    assert error_codes(result) == [ErrorCode.THRESHOLD_NOT_REACHED]
    assert result.errors[0].field == "top1Accuracy"


def test_lists_the_warnings_that_question_a_figure_before_the_notes_on_the_files(submit, training_log):
    rows = [(0, 0.01, 60.0), (0, 0.02, 90.0), (1, 0.03, 94.5)]  # the epoch repeats while the hours grow

    result = submit(log=training_log(rows, line_end="\r\n", bom=True))

    assert warning_codes(result) == [
        WarningCode.REPEATED_EPOCH,
        WarningCode.BYTE_ORDER_MARK,
        WarningCode.CRLF_LINE_ENDINGS,
    ]


def test_a_rejection_lists_the_warnings_that_question_a_figure_first_too(submit, training_log):
    rows = [(0, 0.01, 60.0), (0, 0.02, 90.0)]  # never reaches 94

    result = submit(log=training_log(rows, line_end="\r\n"))

    assert error_codes(result) == [ErrorCode.THRESHOLD_NOT_REACHED]
    assert warning_codes(result) == [WarningCode.REPEATED_EPOCH, WarningCode.CRLF_LINE_ENDINGS]


def test_a_second_log_format_plugs_in_beside_the_tsv_reader(catalog, entry_json):
    """Validation sees rows, not bytes: any reader that yields a TrainingLog is judged by the same rules."""
    rows = np.array([[0, 0.5, 80.0], [1, 1.0, 95.0]])

    def read_rows(rules):
        return LogReading(
            log=TrainingLog(epochs=rows[:, 0], hours=rows[:, 1], metric=rows[:, 2], line_numbers=np.array([7, 9])),
            warnings=[],
        )

    result = validate_submission(
        task_slug="cifar10",
        track="train",
        entry=lambda: read_entry(entry_json()),
        logs=[read_rows],
        catalog=catalog,
    )

    assert result.accepted, result.errors
    assert (result.results.time_to_accuracy_seconds, result.results.time_to_accuracy_line) == (3600.0, 9)


def test_an_empty_log_from_any_reader_is_refused(catalog, entry_json):
    empty = np.array([], dtype=np.float64)

    result = validate_submission(
        task_slug="cifar10",
        track="train",
        entry=lambda: read_entry(entry_json()),
        logs=[lambda rules: LogReading(TrainingLog(empty, empty, empty, np.array([], dtype=np.int64)))],
        catalog=catalog,
    )

    assert error_codes(result) == [ErrorCode.EMPTY_LOG]
    assert result.errors[0].field == "log"


def test_keeps_the_code_url_of_every_real_entry(dawnbench_sample, submit):
    # Every real codeURL is an https link (one with a leading space): none is refused as unsafe.
    for track in ("train", "inference"):
        for entry_path in sorted((dawnbench_sample / "CIFAR10" / track).glob("*.json")):
            log = entry_path.with_suffix(".tsv").read_bytes() if track == "train" else None

            result = submit(track=track, entry=entry_path.read_bytes(), log=log)

            assert result.accepted, (entry_path.name, result.errors)
            assert result.entry.code_url == json.loads(entry_path.read_bytes()).get("codeURL", "").strip()


def test_a_dawnbench_entry_naming_an_mlperf_round_is_told_to_send_mllog(submit, entry_json):
    result = submit(task="imagenet", entry=entry_json(version="mlperf-v4.0"))  # a ResNet-50 round

    assert error_codes(result) == [ErrorCode.UNKNOWN_FORMAT]
    assert result.errors[0].field == "version" and "format=mllog" in result.errors[0].message
