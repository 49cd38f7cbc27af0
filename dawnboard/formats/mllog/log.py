"""Read and write one MLPerf run's log: the `:::MLLOG {json}` records MLCommons' `mlperf_logging.mllog` prints.

A record is the JSON object after the marker `:::MLLOG `, wherever the marker starts on its line: launchers prefix
the output of each process (`[1,0]<stdout>:`, `0: `). Lines without the marker are the program's other output:
counted, never parsed. The record ends at the line's end (or at a carriage return: MLCommons' parser reads lines
as Python's universal newlines do).

Tolerant where real logs vary and the run's time is still unambiguous:
- a single-valued key (`SINGLE_VALUED_KEYS`) printed again with the same value (several processes print it) is
  read once;
- before run_start, time_ms may step back up to MAX_CLOCK_STEP_BACK_MS (processes' clocks drift apart; published
  v4.1 logs step back up to 0.6 s there). After run_start the order of times is not checked: stable_diffusion
  appends its offline evaluations' records after training, before a run_stop timed earlier than they are;
- any run_stop status is read; whether the run failed is validation's business.

Strict, each with a stable code and the line: a record that is not a JSON object with a string key, a value and a
time_ms (`malformed_record`, `not_utf8`); a time_ms that is not a finite number (`invalid_time`: a string, NaN,
1e400); nesting deeper than MAX_JSON_DEPTH (`nested_too_deep`); a record line over MAX_LINE_BYTES
(`line_too_long`); a single-valued key printed again with another value, or run_start/run_stop again at another
time or status (`conflicting_values`); no run_start, run_stop or submission_benchmark (`missing_mllog_key`, the
key in `field`); run_stop before run_start (`run_stop_before_run_start`: MLCommons' summarizer would score
negative minutes); a clock going back further than drift explains (`clock_went_back`).

Sizes are checked before anything is parsed, by counts the bytes type does in C: a log over MAX_LOG_BYTES
(`file_too_large`), over MAX_LOG_LINES lines (`too_many_lines`) or MAX_MLLOG_RECORDS markers
(`too_many_records`) is refused in milliseconds. Lines without the marker cost nothing per line: the reader jumps
from marker to marker with `bytes.find`, so a million lines of other output are a scan, not a loop. The record
line limit applies to record lines only, for the same reason.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from dawnboard.errors import ErrorCode, Issue, IssueCounter, RejectedInput, shown
from dawnboard.mllog_records import (
    RUN_START,
    RUN_STOP,
    SINGLE_VALUED_KEYS,
    SUBMISSION_BENCHMARK,
    MllogLog,
    MllogRecord,
)

MARKER = b":::MLLOG "
# Published logs (v4.1: 1,309 runs) reach 4 MB, 13,212 records, 2,322-byte record lines and a few thousand lines.
MAX_LOG_BYTES = 64 * 1024 * 1024
MAX_LOG_LINES = 2_000_000
MAX_MLLOG_RECORDS = 250_000
MAX_LINE_BYTES = 1024 * 1024
MAX_JSON_DEPTH = 20  # a record's value nests a level or two (maskrcnn's {"BBOX": .., "SEGM": ..})
MAX_CLOCK_STEP_BACK_MS = 1000.0

REQUIRED_KEYS = (RUN_START, RUN_STOP, SUBMISSION_BENCHMARK)
EVENTS = (RUN_START, RUN_STOP)  # single-valued keys whose time (and status) must agree too when repeated


def read_mllog(data: bytes, *, file_name: str) -> MllogLog:
    """Read one run's MLPerf log.

    Args:
        data: the file's bytes.
        file_name: where they come from, for messages.

    Raises:
        RejectedInput: with every problem found (at most MAX_ISSUES_PER_CODE of each code, then a count).
    """
    _check_size(data)
    issues = IssueCounter()
    records, record_lines = _read_records(data, issues)
    if not records and not issues.per_code:
        raise RejectedInput(Issue(ErrorCode.EMPTY_LOG, f"{file_name} has no {MARKER.decode().strip()} record."))
    kept, first_of = _kept_records(records, issues, SINGLE_VALUED_KEYS.__contains__)
    single_values = {key: record.value for key, record in first_of.items()}
    events = {key: _first(kept, key) for key in EVENTS}
    _check_required(single_values, file_name, issues)
    _check_times(kept, events[RUN_START], events[RUN_STOP], issues)
    if issues.per_code:
        raise RejectedInput(*issues.issues())
    return MllogLog(
        file_name=file_name,
        records=tuple(kept),
        single_values=single_values,
        run_start=events[RUN_START],
        run_stop=events[RUN_STOP],
        other_lines=_line_count(data) - record_lines,
    )


def read_records(data: bytes, *, file_name: str, single_valued: Callable[[str], bool]) -> dict[str, MllogRecord]:
    """The first record of each key that `single_valued` names, in a log of another kind than a training run's
    (MLPerf LoadGen's detail log): checked as `read_mllog` checks every log, for size and for each record's shape,
    and, as it checks its single-valued keys, a key written again with another value refused.

    Raises:
        RejectedInput: as `read_mllog`, before its checks of a training run.
    """
    _check_size(data)
    issues = IssueCounter()
    records, _ = _read_records(data, issues)
    if not records and not issues.per_code:
        raise RejectedInput(Issue(ErrorCode.EMPTY_LOG, f"{file_name} has no {MARKER.decode().strip()} record."))
    _, first_of = _kept_records(records, issues, single_valued)
    if issues.per_code:
        raise RejectedInput(*issues.issues())
    return first_of


def write_mllog(records: Iterable[tuple[str, Any, float, Mapping[str, Any]]]) -> bytes:
    """The log of (key, value, time_ms, metadata) records, one `:::MLLOG` line each, as `mlperf_logging.mllog`
    writes them; `read_mllog` reads it back record for record."""
    lines = []
    for key, value, time_ms, metadata in records:
        document = {
            "namespace": "",
            "time_ms": time_ms,
            "event_type": _event_type(key),
            "key": key,
            "value": value,
            "metadata": dict(metadata),
        }
        lines.append(MARKER + json.dumps(document).encode() + b"\n")
    return b"".join(lines)


def _event_type(key: str) -> str:
    if key.endswith("_start"):
        return "INTERVAL_START"
    if key.endswith("_stop"):
        return "INTERVAL_END"
    return "POINT_IN_TIME"


def _line_count(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _check_size(data: bytes) -> None:
    if len(data) > MAX_LOG_BYTES:
        raise RejectedInput(
            Issue(ErrorCode.FILE_TOO_LARGE, f"The log has {len(data):,} bytes; at most {MAX_LOG_BYTES:,} are read.")
        )
    lines = _line_count(data)
    if lines > MAX_LOG_LINES:
        raise RejectedInput(
            Issue(ErrorCode.TOO_MANY_LINES, f"The log has {lines:,} lines; at most {MAX_LOG_LINES:,} are read.")
        )
    markers = data.count(MARKER)
    if markers > MAX_MLLOG_RECORDS:
        raise RejectedInput(
            Issue(
                ErrorCode.TOO_MANY_RECORDS,
                f"The log has {markers:,} {MARKER.decode().strip()} records; at most {MAX_MLLOG_RECORDS:,} are read.",
            )
        )


def _read_records(data: bytes, issues: IssueCounter) -> tuple[list[MllogRecord], int]:
    """Every readable record in file order, and how many lines hold one; problems go to `issues`."""
    records: list[MllogRecord] = []
    lines_with_records = 0
    line, counted_to, last_line = 1, 0, 0
    position = data.find(MARKER)
    while position >= 0:
        line += data.count(b"\n", counted_to, position)
        counted_to = position
        end = _record_end(data, position)
        if line != last_line:
            lines_with_records, last_line = lines_with_records + 1, line
        if end - position > MAX_LINE_BYTES:
            message = f"Line {line}: the record has {end - position:,} bytes; at most {MAX_LINE_BYTES:,} are read."
            _add(issues, ErrorCode.LINE_TOO_LONG, message, line)
        else:
            record = _parse_record(data[position + len(MARKER) : end], line, issues)
            if record is not None:
                records.append(record)
        position = data.find(MARKER, end)
    return records, lines_with_records


def _record_end(data: bytes, start: int) -> int:
    """Where the record starting at `start` ends: at its line's end, or at a carriage return before it."""
    end = data.find(b"\n", start)
    end = len(data) if end < 0 else end
    carriage_return = data.find(b"\r", start, end)
    return end if carriage_return < 0 else carriage_return


def _parse_record(text: bytes, line: int, issues: IssueCounter) -> MllogRecord | None:
    document = _json_object(text, line, issues)
    if document is None:
        return None
    problem = _shape_problem(document)
    if problem is not None:
        _add(issues, ErrorCode.MALFORMED_RECORD, f"Line {line}: {problem}.", line)
        return None
    time_ms = _finite_time(document["time_ms"])
    if time_ms is None:
        message = f"Line {line}: time_ms is {shown(json.dumps(document['time_ms']))}, not a finite number of ms."
        _add(issues, ErrorCode.INVALID_TIME, message, line)
        return None
    metadata = document.get("metadata", {})
    return MllogRecord(key=document["key"], value=document["value"], time_ms=time_ms, metadata=metadata, line=line)


def _json_object(text: bytes, line: int, issues: IssueCounter) -> dict | None:
    """The record's JSON, or None with the problem added to `issues`."""
    try:
        decoded = text.decode("utf-8")
    except UnicodeDecodeError:
        _add(issues, ErrorCode.NOT_UTF8, f"Line {line}: the record is not UTF-8 text.", line)
        return None
    # Depth is only possible past MAX_JSON_DEPTH openers; json's C parser refuses ~1000 levels with a
    # RecursionError before using more stack, and anything shallower is measured once parsed.
    may_be_deep = text.count(b"{") + text.count(b"[") > MAX_JSON_DEPTH
    try:
        document = json.loads(decoded)
    except RecursionError:
        document, may_be_deep = None, True
    except ValueError as error:  # JSONDecodeError, or an integer past Python's 4,300 digits
        _add(issues, ErrorCode.MALFORMED_RECORD, f"Line {line}: the record is not JSON ({shown(error)}).", line)
        return None
    if may_be_deep and (document is None or _deeper_than(document, MAX_JSON_DEPTH)):
        message = f"Line {line}: the record nests objects or arrays more than {MAX_JSON_DEPTH} deep."
        _add(issues, ErrorCode.NESTED_TOO_DEEP, message, line)
        return None
    if not isinstance(document, dict):
        _add(issues, ErrorCode.MALFORMED_RECORD, f"Line {line}: the record is JSON but not an object.", line)
        return None
    return document


def _deeper_than(document: Any, limit: int) -> bool:
    """Whether `document` nests containers more than `limit` deep (walked without recursion)."""
    stack = [(document, 1)]
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, (dict, list)):
            continue
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _shape_problem(document: dict) -> str | None:
    for name in ("key", "value", "time_ms"):
        if name not in document:
            return f"the record has no {name}"
    if not isinstance(document["key"], str):
        return "the record's key is not a string"
    if not isinstance(document.get("metadata", {}), dict):
        return "the record's metadata is not an object"
    return None


def _finite_time(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        time_ms = float(value)
    except OverflowError:  # an integer past a float's range
        return None
    return time_ms if math.isfinite(time_ms) else None


def _add(issues: IssueCounter, code: str, message: str, line: int | None = None, field: str | None = None) -> None:
    if issues.wants(code):
        issues.listed.append(Issue(code, message, field=field, line=line))


def _kept_records(
    records: list[MllogRecord], issues: IssueCounter, single_valued: Callable[[str], bool]
) -> tuple[list[MllogRecord], dict[str, MllogRecord]]:
    """The records with each single-valued key's repeats left out, and each such key's first record."""
    kept: list[MllogRecord] = []
    first_of: dict[str, MllogRecord] = {}
    for record in records:
        if not single_valued(record.key):
            kept.append(record)
            continue
        first = first_of.get(record.key)
        if first is None:
            first_of[record.key] = record
            kept.append(record)
        elif _identity(first) != _identity(record):
            message = (
                f"Line {record.line}: {record.key} is written again with {shown(_described(record))}; "
                f"line {first.line} wrote {shown(_described(first))}."
            )
            _add(issues, ErrorCode.CONFLICTING_VALUES, message, record.line, record.key)
    return kept, first_of


def _identity(record: MllogRecord) -> tuple:
    if record.key in EVENTS:
        return record.value, record.time_ms, record.metadata.get("status")
    return (record.value,)


def _described(record: MllogRecord) -> str:
    if record.key in EVENTS:
        return f"time_ms {record.time_ms:.0f}, status {record.metadata.get('status')}"
    return json.dumps(record.value)


def _first(records: list[MllogRecord], key: str) -> MllogRecord | None:
    return next((record for record in records if record.key == key), None)


def _check_required(single_values: dict[str, Any], file_name: str, issues: IssueCounter) -> None:
    for key in REQUIRED_KEYS:
        if key not in single_values:
            _add(issues, ErrorCode.MISSING_MLLOG_KEY, f"{file_name} has no {key} record.", field=key)
    benchmark = single_values.get(SUBMISSION_BENCHMARK)
    if SUBMISSION_BENCHMARK in single_values and (not isinstance(benchmark, str) or not benchmark):
        message = f"submission_benchmark is {shown(json.dumps(benchmark))}, not a benchmark's name."
        _add(issues, ErrorCode.MALFORMED_RECORD, message, field=SUBMISSION_BENCHMARK)


def _check_times(
    records: list[MllogRecord], run_start: MllogRecord | None, run_stop: MllogRecord | None, issues: IssueCounter
) -> None:
    if run_start is not None and run_stop is not None and run_stop.time_ms < run_start.time_ms:
        message = (
            f"Line {run_stop.line}: run_stop is timed {run_start.time_ms - run_stop.time_ms:,.0f} ms before "
            f"run_start (line {run_start.line})."
        )
        _add(issues, ErrorCode.RUN_STOP_BEFORE_RUN_START, message, run_stop.line, RUN_STOP)
    _check_clock(records, run_start, issues)


def _check_clock(records: list[MllogRecord], run_start: MllogRecord | None, issues: IssueCounter) -> None:
    """Before run_start, time steps back at most MAX_CLOCK_STEP_BACK_MS; after it, no record is timed earlier than
    run_start by more than that."""
    latest, started = -math.inf, False
    for record in records:
        if record is run_start:
            started = True
        elif not started:
            if latest - record.time_ms > MAX_CLOCK_STEP_BACK_MS:
                message = (
                    f"Line {record.line}: {record.key} is timed {latest - record.time_ms:,.0f} ms before a record "
                    f"above it; before run_start, processes' clocks may differ by {MAX_CLOCK_STEP_BACK_MS:,.0f} ms."
                )
                _add(issues, ErrorCode.CLOCK_WENT_BACK, message, record.line)
            latest = max(latest, record.time_ms)
        elif run_start.time_ms - record.time_ms > MAX_CLOCK_STEP_BACK_MS:
            message = (
                f"Line {record.line}: {record.key} is timed {run_start.time_ms - record.time_ms:,.0f} ms before "
                f"run_start (line {run_start.line}), which is written above it."
            )
            _add(issues, ErrorCode.CLOCK_WENT_BACK, message, record.line)
