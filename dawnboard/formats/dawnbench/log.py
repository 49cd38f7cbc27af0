"""Read a DAWNBench training log: a TSV with `epoch`, `hours` and the task's metric column.

Real logs are messy, so the reader accepts what leaves the rows unambiguous (a byte-order mark, CRLF,
blank lines, columns in any order, extra columns, padding spaces, trailing tabs) with a warning where a
person may want to know, and rejects the rest naming the line and column. What the numbers mean (time
going backwards, a metric out of range) is validation's business, not the reader's.

Speed matters (a log can have a row per few hundred steps), so the numbers are read by pandas' C
parser and checked with vectorised numpy; Python loops run only over lines already known to be odd.
Every step costs time in proportion to the file, whatever its shape: a header or a row wider than
MAX_LOG_COLUMNS is refused before pandas (which makes a column per cell) sees it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

import numpy as np

from dawnboard.documents import LogReading, TrainingLog
from dawnboard.errors import ErrorCode, Issue, RejectedInput, WarningCode, listed, shown
from dawnboard.formats.dawnbench.lines import LineTable
from dawnboard.formats.dawnbench.numbers import NumberReader, locate_unreadable_line, unique_names
from dawnboard.formats.dawnbench.text import check_utf8
from dawnboard.rules import EPOCH, HOURS, TaskRules

PADDED_CELL = re.compile(rb"(?:^|\t)[ ]|[ ](?:\t|\r?$)", re.MULTILINE)
# Real DAWNBench logs have 3 to about 10 columns. pandas builds a column per cell of the widest row, and
# every name is matched and listed, so the width is bounded before anything reads the names.
MAX_LOG_COLUMNS = 1000


def read_training_log(raw: bytes, rules: TaskRules) -> LogReading:
    """Read a training log's epoch, hours and metric columns, in the metric's scale as written.

    Returns:
        The rows and the warnings about what was accepted.

    Raises:
        RejectedInput: with every error found, each naming its line and column.
    """
    warnings: list[Issue] = []
    body, had_bom = check_utf8(raw, what="log")
    if had_bom:
        warnings.append(Issue(WarningCode.BYTE_ORDER_MARK, "The log starts with a byte-order mark; it was ignored."))
    if b"\r" in body:
        warnings.append(
            Issue(WarningCode.CRLF_LINE_ENDINGS, "The log has CRLF (Windows) line ends; they were read as LF.")
        )

    header_end = body.find(b"\n")
    header_end = len(body) if header_end < 0 else header_end
    _check_width(body.count(b"\t", 0, header_end) + 1, line=1, what="header names")
    header_line = body[:header_end].decode("utf-8").rstrip("\r")
    names = [name.strip() for name in header_line.split("\t")]
    while names and names[-1] == "":
        names.pop()  # a trailing tab after the last name
    _check_header(names, rules, warnings)
    if b" " in body and PADDED_CELL.search(body):
        warnings.append(Issue(WarningCode.WHITESPACE_TRIMMED, "Spaces around cells in the log were ignored."))

    required = list(rules.required_log_columns)
    even = _read_even_log(body, names, required)
    if even is not None:
        columns, line_numbers = even
    else:
        columns, line_numbers = _read_uneven_log(body, names, rules, warnings)
    log = TrainingLog(
        epochs=columns[EPOCH], hours=columns[HOURS], metric=columns[rules.log_column], line_numbers=line_numbers
    )
    return LogReading(log=log, warnings=warnings)


def write_training_log(rows: Iterable[tuple[float, float, float]], *, metric_column: str) -> bytes:
    """The log `read_training_log` reads back unchanged and without a warning.

    Args:
        rows: (epoch, hours of training so far, metric in the task's scale), one per evaluation, in order.
        metric_column: the task's column for the metric, e.g. "top1Accuracy".

    Raises:
        ValueError: for a log with no row, or a cell that is not a finite number.
    """
    lines = ["\t".join((EPOCH, HOURS, metric_column))]
    lines += ["\t".join(_written_number(cell) for cell in row) for row in rows]
    if len(lines) == 1:
        raise ValueError("A training log needs at least one evaluation row.")
    return ("\n".join(lines) + "\n").encode("ascii")


def _written_number(value: float) -> str:
    """A whole number as such (an epoch), any other as the shortest text that reads back as the same float."""
    if isinstance(value, bool):
        raise ValueError(f"A log cell must be a number, not {value!r}.")
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"A log cell must be a finite number, not {number!r}.")
    return repr(number)


def _read_even_log(
    body: bytes, names: list[str], required: list[str]
) -> tuple[dict[str, np.ndarray], np.ndarray] | None:
    """The fast path, for the usual log: no blank line, every row as wide as the header, no empty cell.

    As many tabs as the header's on every line on average, and pandas reading every column strictly (a
    row with one cell too many is an error), prove it without counting line by line. Returns None
    whenever the log is anything else; the slow path then finds and words what is odd about it.
    """
    header_end = body.find(b"\n")
    if header_end < 0:  # a header alone: the slow path words it
        return None
    header_tabs = body.count(b"\t", 0, header_end)
    if header_tabs != len(names) - 1:  # trailing tabs, which the slow path accepts with a warning
        return None
    # pandas refuses a row wider than the rows before it, except the first row after the header, to
    # which it would widen the whole table (a column per cell): that row must be no wider than the header.
    first_row_end = body.find(b"\n", header_end + 1)
    if body.count(b"\t", header_end + 1, len(body) if first_row_end < 0 else first_row_end) > header_tabs:
        return None
    row_count = int(np.count_nonzero(np.frombuffer(body, dtype=np.uint8) == ord("\n"))) - body.endswith(b"\n")
    # pandas pads a short row to the header's width, which under a wide header costs far more than the
    # row weighs: a row short of a cell (or a blank line) sends the log to the slow path, which cuts rows.
    if row_count == 0 or body.count(b"\t") != header_tabs * (row_count + 1):
        return None
    columns = NumberReader(names=unique_names(names, width=len(names)), required=required).read(body, strict=True)
    # pandas skips blank lines, so a row for every line after the header also proves there is none.
    if (
        columns is None
        or len(columns[EPOCH]) != row_count
        or any(np.isnan(values).any() for values in columns.values())
    ):
        return None
    return columns, np.arange(2, row_count + 2)


def _read_uneven_log(
    body: bytes, names: list[str], rules: TaskRules, warnings: list[Issue]
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The slow path: map every line, accept blank lines and trailing empty cells, name what is wrong."""
    lines = LineTable.of(body, expected_tabs=len(names) - 1)
    _check_width(lines.max_tabs + 1, line=lines.widest_line, what="cells")
    if lines.data_count == 0:
        raise RejectedInput(Issue(ErrorCode.EMPTY_LOG, "The log has a header but no rows.", line=2))
    if lines.blank_count:
        warnings.append(
            Issue(
                WarningCode.BLANK_LINES,
                f"{lines.blank_count} blank line(s) in the log were skipped.",
                line=lines.first_blank,
            )
        )
    cells_needed = _check_cell_counts(body, lines, names, rules, warnings)
    return _read_numbers(body, names[:cells_needed], rules, lines), lines.data_lines


def _check_width(columns: int, *, line: int, what: str) -> None:
    if columns > MAX_LOG_COLUMNS:
        raise RejectedInput(
            Issue(
                ErrorCode.TOO_MANY_COLUMNS,
                f"Line {line} has {columns:,} {what} (tab-separated); a log has at most {MAX_LOG_COLUMNS:,} columns: "
                "epoch, hours, the metric and a few more.",
                line=line,
            )
        )


def _check_header(names: list[str], rules: TaskRules, warnings: list[Issue]) -> None:
    """Refuse a header that lacks a needed column or names one twice; note columns the task does not document.

    Columns are matched by name, so the documented ones may come in any order without a warning.
    """
    required = rules.required_log_columns
    seen: set[str] = set()
    repeated: set[str] = set()
    for name in filter(None, names):  # unnamed cells may repeat: they are placeholders, never read
        (repeated if name in seen else seen).add(name)
    errors = [
        Issue(
            ErrorCode.DUPLICATE_COLUMN,
            f"The column '{shown(name)}' appears more than once in the header.",
            field=shown(name),
            line=1,
        )
        for name in sorted(repeated)
    ]
    errors += [
        Issue(
            ErrorCode.MISSING_COLUMN,
            f"The log has no '{name}' column; the header must name {', '.join(required)} (tab-separated).",
            field=name,
            line=1,
        )
        for name in required
        if name not in seen
    ]
    if errors:
        raise RejectedInput(*errors)
    documented = set(required) | set(rules.documented_log_columns)
    extra = [name or "(unnamed)" for name in names if name not in documented]
    if extra:
        warnings.append(
            Issue(
                WarningCode.EXTRA_COLUMNS,
                f"Columns the {rules.task_slug} log format does not document were kept in the file but not used: "
                f"{listed(extra)}.",
                line=1,
            )
        )


def _check_cell_counts(body: bytes, lines: LineTable, names: list[str], rules: TaskRules, warnings: list[Issue]) -> int:
    """Reject rows whose cells cannot be matched to the header; accept trailing empty cells.

    A short row is accepted only when every cell it lacks belongs to an extra column. Returns how many
    cells every row then has at least: enough to reach each needed column.
    """
    width = len(names)
    cells_needed = 1 + max(names.index(name) for name in rules.required_log_columns)

    trailing_tabs = 0
    for line in lines.uneven_lines:
        cells = lines.text(body, int(line)).split("\t")
        filled = len(cells)
        while filled > width and not cells[filled - 1].strip():
            filled -= 1
        if cells_needed <= filled <= width:
            trailing_tabs += len(cells) > width
            continue
        raise RejectedInput(
            Issue(
                ErrorCode.WRONG_CELL_COUNT,
                f"Line {line} has {filled} cells but the header names {width} columns.",
                line=int(line),
            )
        )
    if trailing_tabs:
        warnings.append(
            Issue(WarningCode.WHITESPACE_TRIMMED, f"Trailing empty cells on {trailing_tabs} line(s) were ignored.")
        )
    return cells_needed


def _read_numbers(body: bytes, names: list[str], rules: TaskRules, lines: LineTable) -> dict[str, np.ndarray]:
    """The needed columns of rows known to have at least `len(names)` cells each.

    Every line is cut to that many cells first, so pandas reads no cell it does not need; the lines
    stay where they were, so a line named in an error is the file's.
    """
    cells = len(names)
    narrow = lines.first_cells(body, cells)
    reader = NumberReader(names=unique_names(names, width=cells), required=list(rules.required_log_columns))
    columns = reader.read(narrow)
    if columns is None or len(columns[EPOCH]) != lines.data_count:
        raise RejectedInput(locate_unreadable_line(narrow, reader, LineTable.of(narrow, expected_tabs=cells - 1)))
    return columns
