"""Parse a DAWNBench training log: a TSV with `epoch`, `hours` and the task's metric column.

Real logs are messy, so the parser accepts what leaves the curve unambiguous (a byte-order mark, CRLF,
blank lines, columns in any order, extra columns, padding spaces, trailing tabs, an epoch number that
repeats while `hours` still grows) with a warning, and rejects the rest naming the line and column.

Speed matters (a log can have a row per few hundred steps), so the numbers are read by pandas' C
parser and checked with vectorised numpy; Python loops run only over lines already known to be odd.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from leaderboard.ingest.errors import ErrorCode, Issue, RejectedInput, WarningCode
from leaderboard.ingest.lines import LineTable
from leaderboard.ingest.numbers import NumberReader, locate_unreadable_line, unique_names
from leaderboard.ingest.rules import EPOCH, FRACTION, HOURS, TaskRules
from leaderboard.ingest.text import check_utf8

PADDED_CELL = re.compile(rb"(?:^|\t)[ ]|[ ](?:\t|\r?$)", re.MULTILINE)
MAX_HOURS = 1e6  # over a century: a wrong unit, not a training run
MAX_EPOCH = 1e9


@dataclass(frozen=True)
class TrainingLog:
    """The curve of a checked log, one row per evaluation in file order; `metric` in the task's scale."""

    epochs: np.ndarray
    hours: np.ndarray
    metric: np.ndarray
    line_numbers: np.ndarray

    def __len__(self) -> int:
        return len(self.hours)


def parse_training_log(raw: bytes, rules: TaskRules) -> tuple[TrainingLog, list[Issue]]:
    """Read and check a training log.

    Returns:
        The log and the warnings about what was accepted.

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
    header_line = (body if header_end < 0 else body[:header_end]).decode("utf-8").rstrip("\r")
    names = [name.strip() for name in header_line.split("\t")]
    while names and names[-1] == "":
        names.pop()  # a trailing tab after the last name
    _check_header(names, rules, warnings)
    if b" " in body and PADDED_CELL.search(body):
        warnings.append(Issue(WarningCode.WHITESPACE_TRIMMED, "Spaces around cells in the log were ignored."))

    required = [EPOCH, HOURS, rules.log_column]
    even = _read_even_log(body, names, required)
    if even is not None:
        columns, line_numbers = even
    else:
        columns, line_numbers = _read_uneven_log(body, names, rules, warnings)
    return _check_curve(columns, rules, line_numbers, warnings), warnings


def _read_even_log(
    body: bytes, names: list[str], required: list[str]
) -> tuple[dict[str, np.ndarray], np.ndarray] | None:
    """The fast path, for the usual log: no blank line, every row as wide as the header, no empty cell.

    pandas reads every column strictly (a row with one cell too many is an error), so nothing has to
    be counted line by line. Returns None whenever the log is anything else; the slow path then
    finds and words what is odd about it.
    """
    header = body[: body.find(b"\n")]
    if header.count(b"\t") != len(names) - 1:  # trailing tabs, which the slow path accepts with a warning
        return None
    row_count = int(np.count_nonzero(np.frombuffer(body, dtype=np.uint8) == ord("\n"))) - body.endswith(b"\n")
    if row_count == 0:
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
    _check_cell_counts(body, lines, names, rules, warnings)
    return _read_numbers(body, names, rules, lines), lines.data_lines


def _check_header(names: list[str], rules: TaskRules, warnings: list[Issue]) -> None:
    required = [EPOCH, HOURS, rules.log_column]
    errors = [
        Issue(
            ErrorCode.DUPLICATE_COLUMN, f"The column '{name}' appears more than once in the header.", field=name, line=1
        )
        for name in sorted({name for name in names if names.count(name) > 1 and name})
    ]
    errors += [
        Issue(
            ErrorCode.MISSING_COLUMN,
            f"The log has no '{name}' column; the header must name {', '.join(required)} (tab-separated).",
            field=name,
            line=1,
        )
        for name in required
        if name not in names
    ]
    if errors:
        raise RejectedInput(*errors)
    if names[:3] != required:
        warnings.append(
            Issue(
                WarningCode.COLUMNS_REORDERED,
                f"Columns were matched by name (header order: {', '.join(names)}).",
                line=1,
            )
        )
    extra = [name for name in names if name not in required]
    if extra:
        warnings.append(
            Issue(
                WarningCode.EXTRA_COLUMNS,
                f"Extra columns were kept in the file but not used: {', '.join(extra)}.",
                line=1,
            )
        )


def _check_cell_counts(
    body: bytes, lines: LineTable, names: list[str], rules: TaskRules, warnings: list[Issue]
) -> None:
    """Reject rows whose cells cannot be matched to the header; accept trailing empty cells.

    A short row is accepted only when every cell it lacks belongs to an extra column.
    """
    width = len(names)
    cells_needed = 1 + max(names.index(name) for name in (EPOCH, HOURS, rules.log_column))

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


def _read_numbers(body: bytes, names: list[str], rules: TaskRules, lines: LineTable) -> dict[str, np.ndarray]:
    required = [EPOCH, HOURS, rules.log_column]
    reader = NumberReader(names=unique_names(names, width=lines.max_tabs + 1), required=required)
    columns = reader.read(body)
    if columns is None or len(columns[EPOCH]) != lines.data_count:
        raise RejectedInput(locate_unreadable_line(body, reader, lines))
    return columns


def _check_curve(
    columns: dict[str, np.ndarray], rules: TaskRules, line_of: np.ndarray, warnings: list[Issue]
) -> TrainingLog:
    """Check the numbers row by row, vectorised; `line_of[i]` is the file line of row i.

    Each check first asks a cheap reduction (a minimum or maximum, where NaN and infinity show
    too) and builds a row mask only for a log that fails it.
    """
    epochs, hours, metric = columns[EPOCH], columns[HOURS], columns[rules.log_column]
    lows = {name: values.min() for name, values in columns.items()}
    highs = {name: values.max() for name, values in columns.items()}
    errors: list[Issue] = []

    def at(mask: np.ndarray, offset: int = 0) -> tuple[int, int]:
        row = int(np.argmax(mask)) + offset
        return row, int(line_of[row])

    for name, values in columns.items():
        if not (np.isfinite(lows[name]) and np.isfinite(highs[name])):
            bad = ~np.isfinite(values)
            _, line = at(bad)
            errors.append(
                Issue(
                    ErrorCode.NON_FINITE_CELL,
                    f"Line {line}, column '{name}': the cell is empty, NaN or infinite "
                    f"({int(bad.sum())} such cell(s) in this column).",
                    field=name,
                    line=line,
                )
            )
    if errors:
        raise RejectedInput(*errors)

    for code, name, what in (
        (ErrorCode.NEGATIVE_EPOCH, EPOCH, "an epoch"),
        (ErrorCode.NEGATIVE_HOURS, HOURS, "a time"),
    ):
        if lows[name] < 0:
            row, line = at(columns[name] < 0)
            errors.append(
                Issue(code, f"Line {line}: {what} cannot be negative ({columns[name][row]:g}).", field=name, line=line)
            )
    for name, limit in ((EPOCH, MAX_EPOCH), (HOURS, MAX_HOURS)):
        if highs[name] > limit:
            row, line = at(columns[name] > limit)
            errors.append(
                Issue(
                    ErrorCode.NUMBER_OUT_OF_RANGE,
                    f"Line {line}, column '{name}': {columns[name][row]:g} is beyond any real run (at most {limit:g}).",
                    field=name,
                    line=line,
                )
            )

    step_hours = np.diff(hours)
    if len(step_hours) and step_hours.min() < 0:
        row, line = at(step_hours < 0, offset=1)
        errors.append(
            Issue(
                ErrorCode.HOURS_DECREASING,
                f"Line {line}: hours go backwards ({hours[row - 1]:g} then {hours[row]:g}); "
                "a log must be in the order it was written.",
                field=HOURS,
                line=line,
            )
        )
    step_epochs = np.diff(epochs)
    if len(step_epochs) and step_epochs.min() <= 0:
        repeated = step_epochs <= 0
        ambiguous = repeated & (step_hours <= 0)
        if ambiguous.any():
            row, line = at(ambiguous, offset=1)
            errors.append(
                Issue(
                    ErrorCode.AMBIGUOUS_REPEATED_EPOCH,
                    f"Line {line}: epoch {epochs[row]:g} does not advance and neither do the hours, "
                    "so the order of these evaluations is unknown.",
                    field=EPOCH,
                    line=line,
                )
            )
        else:
            _, line = at(repeated, offset=1)
            warnings.append(
                Issue(
                    WarningCode.REPEATED_EPOCH,
                    f"Epoch numbers repeat or go back on {int(repeated.sum())} row(s) (first at line {line}) "
                    "while hours still increase; rows were taken in file order.",
                    field=EPOCH,
                    line=line,
                )
            )

    metric, scale = _metric_in_task_scale(metric, highs[rules.log_column], rules, warnings)
    if lows[rules.log_column] < 0 or highs[rules.log_column] * scale > rules.upper_bound:
        row, line = at((metric < 0) | (metric > rules.upper_bound))
        errors.append(
            Issue(
                ErrorCode.METRIC_OUT_OF_RANGE,
                f"Line {line}, column '{rules.log_column}': {columns[rules.log_column][row]:g} is outside "
                f"the range of {rules.metric_label} (0 to {rules.upper_bound:g}).",
                field=rules.log_column,
                line=line,
            )
        )
    if errors:
        raise RejectedInput(*errors)
    return TrainingLog(epochs=epochs, hours=hours, metric=metric, line_numbers=line_of)


def _metric_in_task_scale(
    metric: np.ndarray, highest: float, rules: TaskRules, warnings: list[Issue]
) -> tuple[np.ndarray, float]:
    """F1 written as a percent (a fraction can never exceed 1) is converted, with a warning.

    Returns the metric in the task's scale and the factor applied to the log's values.
    """
    if rules.scale == FRACTION and 1.0 < float(highest) <= 100.0:
        warnings.append(
            Issue(
                WarningCode.METRIC_PERCENT_CONVERTED,
                f"'{rules.log_column}' goes above 1, so it was read as a percent and divided by 100.",
                field=rules.log_column,
            )
        )
        return metric / 100.0, 0.01
    return metric, 1.0
