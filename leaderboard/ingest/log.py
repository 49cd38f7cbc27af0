"""Parse a DAWNBench training log: a TSV with `epoch`, `hours` and the task's metric column.

Real logs are messy, so the parser accepts what leaves the curve unambiguous (a byte-order mark, CRLF,
blank lines, columns in any order, extra columns, padding spaces, trailing tabs, an epoch number that
repeats while `hours` still grows) with a warning, and rejects the rest naming the line and column.

Speed matters (a log can have a row per few hundred steps), so the numbers are read by pandas' C
parser and checked with vectorised numpy; Python loops run only over lines already known to be odd.
"""

from __future__ import annotations

import csv
import re
import tempfile
import warnings as python_warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from leaderboard.ingest.errors import ErrorCode, Issue, RejectedInput, WarningCode
from leaderboard.ingest.rules import FRACTION, TaskRules
from leaderboard.ingest.text import check_utf8

EPOCH, HOURS = "epoch", "hours"
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
    columns = _NumberReader(names=_unique_names(names, width=len(names)), required=required).read(body, strict=True)
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
    lines = _LineTable.of(body, expected_tabs=len(names) - 1)
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


@dataclass(frozen=True)
class _LineTable:
    """Where each physical line starts and ends, and how many tabs it holds, found without a Python loop."""

    starts: np.ndarray
    ends: np.ndarray
    data_lines: np.ndarray  # 1-based physical line number of each data row, in order
    uneven_lines: np.ndarray  # data lines whose tab count differs from the header's
    max_tabs: int
    blank_count: int
    first_blank: int | None

    @property
    def data_count(self) -> int:
        return len(self.data_lines)

    @classmethod
    def of(cls, body: bytes, *, expected_tabs: int) -> _LineTable:
        buffer = np.frombuffer(body, dtype=np.uint8)
        newlines = np.flatnonzero(buffer == ord("\n"))
        ends = np.append(newlines, len(body)) if (len(body) and body[-1:] != b"\n") else newlines
        starts = np.concatenate(([0], ends[:-1] + 1))
        tabs = np.flatnonzero(buffer == ord("\t"))
        lengths = ends - starts
        carriage = np.zeros(len(ends), dtype=bool)
        nonempty = lengths > 0
        carriage[nonempty] = buffer[ends[nonempty] - 1] == ord("\r")
        blank = (lengths - carriage) == 0
        blank[0] = False  # the header
        line_numbers = np.arange(1, len(ends) + 1)
        data = ~blank
        data[0] = False
        blank_lines = line_numbers[blank]
        data_lines = line_numbers[data]
        uneven_lines, max_tabs = _uneven_lines(tabs, starts, ends, data_lines, expected_tabs)
        return cls(
            starts=starts,
            ends=ends,
            data_lines=data_lines,
            uneven_lines=uneven_lines,
            max_tabs=max_tabs,
            blank_count=len(blank_lines),
            first_blank=int(blank_lines[0]) if len(blank_lines) else None,
        )

    def text(self, body: bytes, line: int) -> str:
        return body[self.starts[line - 1] : self.ends[line - 1]].decode("utf-8").rstrip("\r")


def _uneven_lines(
    tabs: np.ndarray, starts: np.ndarray, ends: np.ndarray, data_lines: np.ndarray, expected_tabs: int
) -> tuple[np.ndarray, int]:
    """The data lines whose tab count is not `expected_tabs`, and the most tabs on any line.

    The usual log is even: then its data tabs, taken `expected_tabs` at a time, fall each group in
    its own line, which a few vectorised comparisons prove. Otherwise every line's tabs are counted.
    """
    header_tabs = int(np.searchsorted(tabs, ends[0]))
    data_tabs = tabs[header_tabs:]
    rows = len(data_lines)
    if expected_tabs and rows and len(data_tabs) == expected_tabs * rows:
        groups = data_tabs.reshape(rows, expected_tabs)
        if np.all(groups[:, 0] > starts[data_lines - 1]) and np.all(groups[:, -1] < ends[data_lines - 1]):
            return data_lines[:0], max(expected_tabs, header_tabs)
    # A line starts just after the previous line's newline, so one search gives both bounds.
    tab_counts = np.diff(np.searchsorted(tabs, ends), prepend=0)
    return data_lines[tab_counts[data_lines - 1] != expected_tabs], int(tab_counts.max(initial=0))


def _check_cell_counts(
    body: bytes, lines: _LineTable, names: list[str], rules: TaskRules, warnings: list[Issue]
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


def _read_numbers(body: bytes, names: list[str], rules: TaskRules, lines: _LineTable) -> dict[str, np.ndarray]:
    required = [EPOCH, HOURS, rules.log_column]
    reader = _NumberReader(names=_unique_names(names, width=lines.max_tabs + 1), required=required)
    columns = reader.read(body)
    if columns is None or len(columns[EPOCH]) != lines.data_count:
        raise RejectedInput(_locate_unreadable_line(body, reader, lines))
    return columns


@dataclass(frozen=True)
class _NumberReader:
    """pandas' C parser set up for a DAWNBench log: the required columns, as float64, nothing else."""

    names: list[str]
    required: list[str]

    def read(
        self, data: bytes, columns: list[str] | None = None, *, strict: bool = False
    ) -> dict[str, np.ndarray] | None:
        """The parsed columns as float64 arrays, or None when a cell is not a number.

        The types are inferred rather than forced to float64, because a forced conversion would
        quietly read the words True and False as 1 and 0. `strict` reads every column and refuses a
        row with more cells than there are names.
        """
        columns = columns or self.required
        # pandas' C parser reads a file by its path about 1.5x faster than from an in-memory buffer,
        # and that read is most of the ingest's time: spool the bytes to a temporary file first.
        with tempfile.NamedTemporaryFile(prefix="dawnboard-log-", suffix=".tsv") as spool:
            spool.write(data)
            spool.flush()
            with python_warnings.catch_warnings():
                python_warnings.simplefilter("error" if strict else "ignore", pd.errors.ParserWarning)
                try:
                    frame = pd.read_csv(
                        spool.name,
                        sep="\t",
                        header=0,
                        names=self.names,
                        usecols=None if strict else columns,
                        engine="c",
                        quoting=csv.QUOTE_NONE,  # TSV logs have no quoting: a '"' is just a character
                        index_col=False,
                        skip_blank_lines=True,
                    )
                except (ValueError, pd.errors.ParserError, pd.errors.ParserWarning):
                    return None
        if not all(_is_number_column(frame[name]) for name in columns):
            return None
        return {name: frame[name].to_numpy(dtype=np.float64) for name in columns}


def _is_number_column(column: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)


def _unique_names(names: list[str], *, width: int) -> list[str]:
    """Column names for pandas: unnamed header cells (and cells past the header) get unique placeholders."""
    named = [name or f"_unnamed_{i}" for i, name in enumerate(names)]
    return named + [f"_unnamed_{i}" for i in range(len(names), width)]


def _locate_unreadable_line(body: bytes, reader: _NumberReader, lines: _LineTable) -> Issue:
    """The slow path, for a log pandas refused: bisect with pandas itself to the first line it cannot read.

    Asking the same parser (rather than imitating it) keeps the verdict and the line it names in
    agreement; halving costs about one more pass over the file.
    """
    header = body[: lines.ends[0]] + b"\n"
    data_lines = lines.data_lines

    def chunk(first: int, stop: int) -> bytes:
        return header + body[lines.starts[data_lines[first] - 1] : lines.ends[data_lines[stop - 1] - 1]]

    def readable(first: int, stop: int) -> bool:
        columns = reader.read(chunk(first, stop))
        return columns is not None and len(columns[EPOCH]) == stop - first

    first, stop = 0, len(data_lines)
    while stop - first > 1:
        middle = (first + stop) // 2
        if readable(first, middle):
            first = middle
        else:
            stop = middle
    line = int(data_lines[first])
    text = lines.text(body, line)
    if "\r" in text:
        return Issue(
            ErrorCode.NON_NUMERIC_CELL,
            f"Line {line} holds a carriage return inside the row, which splits it in two.",
            line=line,
            field=reader.required[0],
        )
    for name in reader.required:
        if reader.read(chunk(first, first + 1), columns=[name]) is None:
            cell = text.split("\t")[reader.names.index(name)] if name in reader.names else ""
            return Issue(
                ErrorCode.NON_NUMERIC_CELL,
                f"Line {line}, column '{name}': '{cell[:40]}' is not a number.",
                field=name,
                line=line,
            )
    return Issue(
        ErrorCode.NON_NUMERIC_CELL, f"Line {line} cannot be read as numbers.", field=reader.required[0], line=line
    )


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
