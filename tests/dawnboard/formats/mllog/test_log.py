"""Reading one MLPerf run's `:::MLLOG` log: tolerant of what real logs vary in, strict (with a code and the line)
about what would make the run's time ambiguous, and quick to refuse what is too large to read."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dawnboard.errors import MAX_ISSUES_PER_CODE, ErrorCode, RejectedInput
from dawnboard.formats.mllog import (
    MAX_CLOCK_STEP_BACK_MS,
    MAX_JSON_DEPTH,
    MAX_LINE_BYTES,
    MAX_LOG_BYTES,
    MAX_LOG_LINES,
    MAX_MLLOG_RECORDS,
    read_mllog,
    write_mllog,
)
from tests.dawnboard.mllog_runs import START_MS, raw_record, run_log, run_records

SECONDS_ALLOWED = 1.5  # for a hostile log to get its code


def read(data: bytes):
    return read_mllog(data, file_name="result_1.txt")


def rejection(data: bytes) -> list:
    with pytest.raises(RejectedInput) as raised:
        read(data)
    return raised.value.issues


def codes(data: bytes) -> list[str]:
    return [issue.code for issue in rejection(data)]


def with_line(data: bytes, line: int, inserted: bytes) -> bytes:
    """`data` with `inserted` (whole lines) placed before its line `line` (1-based)."""
    lines = data.splitlines(keepends=True)
    return b"".join(lines[: line - 1]) + inserted + b"".join(lines[line - 1 :])


# --- What a log holds ---


def test_reads_every_record_with_its_key_value_time_metadata_and_line():
    log = read(run_log(evaluations=[(1, 0.2), (2, 0.35)]))

    accuracy = log.records_of("eval_accuracy")
    assert [record.value for record in accuracy] == [0.2, 0.35]
    assert accuracy[0].metadata == {"epoch_num": 1}
    assert accuracy[0].line == 13  # after 9 records of submission and init, and epoch_start, epoch_stop, eval_start
    assert log.run_start.time_ms == START_MS and log.run_stop.time_ms == START_MS + 600_000
    assert log.submission_benchmark == "ssd" and log.run_status == "success"


def test_minutes_are_computed_as_mlcommons_summarizer_computes_them():
    log = read(run_log(duration_ms=1_234_567))

    assert log.minutes == (float(START_MS + 1_234_567) - float(START_MS)) / 60 / 1000


def test_writing_then_reading_gives_back_every_record():
    records = run_records(evaluations=[(1, {"BBOX": 0.3, "SEGM": 0.2})])

    log = read(write_mllog(records))

    assert [(r.key, r.value, r.time_ms, dict(r.metadata)) for r in log.records] == [
        (key, value, float(time_ms), metadata) for key, value, time_ms, metadata in records
    ]


def test_finds_the_marker_wherever_the_line_starts_it_and_counts_the_other_lines():
    lines = run_log().splitlines(keepends=True)
    prefixed = [b"[1,0]<stdout>:" + lines[0], b"0: " + lines[1], *lines[2:]]
    data = b"Starting the job\n" + b"".join(prefixed) + b"loss 0.5\n\nDone"

    log = read(data)

    assert len(log.records) == len(lines)
    assert log.records[0].line == 2
    assert log.other_lines == 4


def test_a_record_ends_at_a_carriage_return_as_in_universal_newlines():
    data = run_log().replace(b"\n", b"\r\n")
    progress_bar = raw_record("seed", 1, START_MS - 5).rstrip(b"\n") + b"\r 10% |###      |\n"

    log = read(with_line(data, 8, progress_bar))

    assert log.records_of("seed")[0].line == 8


def test_a_single_valued_key_printed_again_with_the_same_value_is_read_once():
    data = run_log()
    repeated = raw_record("submission_benchmark", "ssd", START_MS - 30_000) * 3

    log = read(with_line(data, 8, repeated))

    assert [record.key for record in log.records].count("submission_benchmark") == 1


def test_time_may_step_back_a_little_before_run_start():
    data = run_log()
    drift = raw_record("seed", 7, START_MS - 60_000 - MAX_CLOCK_STEP_BACK_MS)

    assert read(with_line(data, 8, drift)).records_of("seed")


def test_an_offline_evaluation_written_after_an_earlier_run_stop_is_read():
    # stable_diffusion appends its offline FID/CLIP records before a run_stop timed when training ended.
    records = run_records(benchmark="stable_diffusion", evaluations=[], duration_ms=1_000)
    records.insert(-1, ("eval_accuracy", 80.0, START_MS + 50_000, {"samples_count": 512, "metric": "FID"}))

    log = read(write_mllog(records))

    assert log.records_of("eval_accuracy")[0].time_ms > log.run_stop.time_ms


@pytest.mark.parametrize("status", ["aborted", None])
def test_a_run_stop_status_other_than_success_is_read_not_refused(status):
    assert read(run_log(status=status)).run_status == status


# --- Each strict rule, with its code and line ---


def test_refuses_a_record_that_is_not_json_naming_its_line():
    data = with_line(run_log(), 3, b':::MLLOG {"key": "seed", "value": 1, "time_ms": 5,\n')

    (issue,) = rejection(data)
    assert (issue.code, issue.line) == (ErrorCode.MALFORMED_RECORD, 3)


@pytest.mark.parametrize("missing", ["key", "value", "time_ms"])
def test_refuses_a_record_without_its_key_value_or_time(missing):
    record = {"key": "seed", "value": 1, "time_ms": START_MS - 60_000}
    del record[missing]
    line = b":::MLLOG " + repr(record).replace("'", '"').encode() + b"\n"

    (issue,) = rejection(with_line(run_log(), 4, line))
    assert (issue.code, issue.line) == (ErrorCode.MALFORMED_RECORD, 4)


@pytest.mark.parametrize(
    "text",
    [
        b"[1, 2]",
        b'"a string"',
        b'{"key": 5, "value": 1, "time_ms": 1}',
        b'{"key": "k", "value": 1, "time_ms": 1, "metadata": []}',
    ],
    ids=["array", "string", "key not a string", "metadata not an object"],
)
def test_refuses_a_record_of_the_wrong_shape(text):
    (issue,) = rejection(with_line(run_log(), 2, b":::MLLOG " + text + b"\n"))
    assert (issue.code, issue.line) == (ErrorCode.MALFORMED_RECORD, 2)


@pytest.mark.parametrize("time_ms", ['"1700000000000"', "NaN", "Infinity", "1e400", "true", "null", "1" + "0" * 400])
def test_refuses_a_time_that_is_not_a_finite_number(time_ms):
    (issue,) = rejection(with_line(run_log(), 2, raw_record("seed", 1, time_ms)))
    assert (issue.code, issue.line) == (ErrorCode.INVALID_TIME, 2)


def test_refuses_a_record_that_is_not_utf8():
    (issue,) = rejection(with_line(run_log(), 2, raw_record("seed", "x", START_MS).replace(b'"x"', b'"\xff"')))
    assert (issue.code, issue.line) == (ErrorCode.NOT_UTF8, 2)


def test_accepts_nesting_up_to_the_limit_and_refuses_one_level_more():
    def nested(depth: int) -> bytes:  # the record object is one level; the value adds the rest
        return raw_record("nested", "X", START_MS - 60_000).replace(b'"X"', b"[" * (depth - 1) + b"]" * (depth - 1))

    assert read(with_line(run_log(), 2, nested(MAX_JSON_DEPTH))).records_of("nested")
    (issue,) = rejection(with_line(run_log(), 2, nested(MAX_JSON_DEPTH + 1)))
    assert (issue.code, issue.line) == (ErrorCode.NESTED_TOO_DEEP, 2)


def test_refuses_a_hundred_thousand_nested_brackets_quickly_and_without_a_recursion_error():
    deep = raw_record("nested", "X", START_MS).replace(b'"X"', b"[" * 100_000 + b"]" * 100_000)

    started = time.perf_counter()
    (issue,) = rejection(with_line(run_log(), 2, deep))
    assert time.perf_counter() - started < SECONDS_ALLOWED
    assert (issue.code, issue.line) == (ErrorCode.NESTED_TOO_DEEP, 2)


def test_refuses_a_record_line_of_ten_megabytes_quickly():
    long_line = b':::MLLOG {"key": "seed", "value": "' + b"x" * 10_000_000 + b'", "time_ms": 1}\n'

    started = time.perf_counter()
    (issue,) = rejection(with_line(run_log(), 2, long_line))
    assert time.perf_counter() - started < SECONDS_ALLOWED
    assert (issue.code, issue.line) == (ErrorCode.LINE_TOO_LONG, 2)
    assert len(long_line) > MAX_LINE_BYTES


def test_refuses_a_hundred_megabyte_log_before_reading_it():
    huge = bytes(100_000_000)

    started = time.perf_counter()
    assert codes(huge) == [ErrorCode.FILE_TOO_LARGE]
    assert time.perf_counter() - started < SECONDS_ALLOWED
    assert len(huge) > MAX_LOG_BYTES


def test_refuses_more_lines_than_any_run_writes():
    assert codes(run_log() + b"\n" * MAX_LOG_LINES) == [ErrorCode.TOO_MANY_LINES]


def test_refuses_more_records_than_any_run_writes_before_parsing_them():
    flood = raw_record("seed", 1, START_MS) * (MAX_MLLOG_RECORDS + 1)

    started = time.perf_counter()
    assert codes(run_log() + flood) == [ErrorCode.TOO_MANY_RECORDS]
    assert time.perf_counter() - started < SECONDS_ALLOWED


def test_a_million_lines_of_other_output_are_scanned_quickly():
    chatter = b"step 100 loss 0.5\n" * 1_000_000

    started = time.perf_counter()
    log = read(chatter + run_log())
    assert time.perf_counter() - started < SECONDS_ALLOWED
    assert log.other_lines == 1_000_000 and log.records[0].line == 1_000_001


@pytest.mark.parametrize("key", ["run_start", "run_stop", "submission_benchmark"])
def test_refuses_a_log_without_a_record_every_run_writes(key):
    records = [record for record in run_records() if record[0] != key]

    (issue,) = rejection(write_mllog(records))
    assert (issue.code, issue.field) == (ErrorCode.MISSING_MLLOG_KEY, key)


def test_refuses_a_log_without_any_record():
    assert codes(b"just output\n") == [ErrorCode.EMPTY_LOG]


def test_refuses_a_run_stop_timed_before_run_start():
    (issue,) = rejection(run_log(duration_ms=-5))
    assert issue.code == ErrorCode.RUN_STOP_BEFORE_RUN_START
    assert issue.line == len(run_records())


def test_refuses_a_single_valued_key_printed_again_with_another_value():
    (issue,) = rejection(with_line(run_log(), 3, raw_record("submission_benchmark", "bert", START_MS - 60_000)))
    assert (issue.code, issue.line, issue.field) == (ErrorCode.CONFLICTING_VALUES, 3, "submission_benchmark")


def test_refuses_run_stop_printed_again_at_another_time():
    records = run_records()
    records.append(("run_stop", None, records[-1][2] + 10, {"status": "success"}))

    (issue,) = rejection(write_mllog(records))
    assert (issue.code, issue.field) == (ErrorCode.CONFLICTING_VALUES, "run_stop")


def test_refuses_a_clock_going_back_further_than_drift_before_run_start():
    drift = raw_record("seed", 7, START_MS - 60_000 - MAX_CLOCK_STEP_BACK_MS - 1)

    (issue,) = rejection(with_line(run_log(), 8, drift))
    assert (issue.code, issue.line) == (ErrorCode.CLOCK_WENT_BACK, 8)


def test_refuses_a_record_after_run_start_timed_well_before_it():
    records = run_records()
    records.insert(-1, ("eval_accuracy", 0.4, START_MS - 10 * MAX_CLOCK_STEP_BACK_MS, {"epoch_num": 3}))

    (issue,) = rejection(write_mllog(records))
    assert (issue.code, issue.line) == (ErrorCode.CLOCK_WENT_BACK, len(records) - 1)


def test_lists_every_problem_and_caps_each_code():
    bad_lines = b":::MLLOG {oops\n" * 30 + raw_record("seed", 1, "NaN")

    issues = rejection(run_log() + bad_lines)

    malformed = [issue for issue in issues if issue.code == ErrorCode.MALFORMED_RECORD]
    assert len(malformed) == MAX_ISSUES_PER_CODE + 1 and malformed[-1].message.startswith("... and 10 more")
    assert [issue.code for issue in issues].count(ErrorCode.INVALID_TIME) == 1


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(
            st.binary(max_size=60),
            st.builds(lambda text: b":::MLLOG " + text, st.binary(max_size=60)),
            st.builds(lambda text: b":::MLLOG " + text.encode(), st.text(alphabet='{}[]":,0123456789.eE-tnaNIfy ')),
        ),
        max_size=12,
    )
)
def test_any_bytes_are_read_or_refused_with_codes_never_an_exception(lines):
    data = b"\n".join(lines)
    try:
        read(data)
    except RejectedInput as refused:
        assert refused.issues and all(issue.code in set(ErrorCode) for issue in refused.issues)
