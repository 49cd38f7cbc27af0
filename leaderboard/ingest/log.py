"""Parse a DAWNBench training log: a TSV with `epoch`, `hours` and the task's metric column.

Real logs are messy, so the parser accepts what leaves the curve unambiguous (a byte-order mark, CRLF,
blank lines, columns in any order, extra columns, padding spaces, trailing tabs, an epoch number that
repeats while `hours` still grows) with a warning, and rejects the rest naming the line and column.

Speed matters (a log can have a row per few hundred steps), so the numbers are read by pandas' C
parser and checked with vectorised numpy; Python loops run only over lines already known to be odd.
"""

from __future__ import annotations

import csv
import io
import re
import warnings as python_warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from leaderboard.ingest.errors import ErrorCode, Issue, RejectedInput, WarningCode
from leaderboard.ingest.rules import FRACTION, TaskRules
from leaderboard.ingest.text import decode_utf8

EPOCH, HOURS = "epoch", "hours"
PADDED_CELL = re.compile(rb"(?:^|\t)[ ]|[ ](?:\t|\r?$)", re.MULTILINE)
# What pandas' C parser reads as a number, or as a missing value (NaN), in ASCII.
NUMBER_CELL = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")
MISSING_CELLS = frozenset(
    ["", "nan", "-nan", "+nan", "inf", "-inf", "+inf", "infinity", "-infinity", "+infinity", "na", "n/a", "#n/a",
     "null", "none", "<na>", "-1.#ind", "1.#qnan", "1.#ind", "-1.#qnan", "#n/a n/a", "#na", "-nan"]
)  # fmt: skip
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
    text, had_bom = decode_utf8(raw, what="log")
    if had_bom:
        warnings.append(Issue(WarningCode.BYTE_ORDER_MARK, "The log starts with a byte-order mark; it was ignored."))
    del text  # decoded only to prove the file is UTF-8; the numbers are parsed from the bytes
    body = raw[3:] if had_bom else raw
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

    lines = _LineTable.of(body)
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
    if b" " in body and PADDED_CELL.search(body):
        warnings.append(Issue(WarningCode.WHITESPACE_TRIMMED, "Spaces around cells in the log were ignored."))

    columns = _read_numbers(body, names, rules, lines)
    log = _check_curve(columns, rules, lines, warnings)
    return log, warnings


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
    tab_counts: np.ndarray
    data_lines: np.ndarray  # 1-based physical line number of each data row, in order
    blank_count: int
    first_blank: int | None

    @property
    def data_count(self) -> int:
        return len(self.data_lines)

    @classmethod
    def of(cls, body: bytes) -> _LineTable:
        buffer = np.frombuffer(body, dtype=np.uint8)
        newlines = np.flatnonzero(buffer == ord("\n"))
        ends = np.append(newlines, len(body)) if (len(body) and body[-1:] != b"\n") else newlines
        starts = np.concatenate(([0], ends[:-1] + 1))
        tabs = np.flatnonzero(buffer == ord("\t"))
        tab_counts = np.searchsorted(tabs, ends) - np.searchsorted(tabs, starts)
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
        return cls(
            starts=starts,
            ends=ends,
            tab_counts=tab_counts,
            data_lines=line_numbers[data],
            blank_count=len(blank_lines),
            first_blank=int(blank_lines[0]) if len(blank_lines) else None,
        )

    def text(self, body: bytes, line: int) -> str:
        return body[self.starts[line - 1] : self.ends[line - 1]].decode("utf-8").rstrip("\r")


def _check_cell_counts(
    body: bytes, lines: _LineTable, names: list[str], rules: TaskRules, warnings: list[Issue]
) -> None:
    """Reject rows whose cells cannot be matched to the header; accept trailing empty cells.

    A short row is accepted only when every cell it lacks belongs to an extra column.
    """
    width = len(names)
    cells_needed = 1 + max(names.index(name) for name in (EPOCH, HOURS, rules.log_column))
    expected_tabs = width - 1
    odd = lines.data_lines[lines.tab_counts[lines.data_lines - 1] != expected_tabs]
    trailing_tabs = 0
    for line in odd:
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
    with python_warnings.catch_warnings():
        python_warnings.simplefilter("ignore", pd.errors.ParserWarning)
        try:
            frame = pd.read_csv(
                io.BytesIO(body),
                sep="\t",
                header=0,
                names=_unique_names(names, width=int(lines.tab_counts.max(initial=0)) + 1),
                usecols=required,
                dtype={name: "float64" for name in required},
                engine="c",
                quoting=csv.QUOTE_NONE,  # TSV logs have no quoting: a '"' is just a character
                index_col=False,
                skip_blank_lines=True,
            )
        except ValueError:
            raise RejectedInput(_find_non_numeric_cell(body, names, required, lines)) from None
    if len(frame) != lines.data_count:  # pandas skipped a line we did not: fall back to reading rows ourselves
        raise RejectedInput(_find_non_numeric_cell(body, names, required, lines))
    return {name: frame[name].to_numpy() for name in required}


def _unique_names(names: list[str], *, width: int) -> list[str]:
    """Column names for pandas: unnamed header cells (and cells past the header) get unique placeholders."""
    named = [name or f"_unnamed_{i}" for i, name in enumerate(names)]
    return named + [f"_unnamed_{i}" for i in range(len(names), width)]


def _find_non_numeric_cell(body: bytes, names: list[str], required: list[str], lines: _LineTable) -> Issue:
    """The slow path, taken only for a file pandas refused: find the first cell that is not a number."""
    positions = {name: names.index(name) for name in required}
    for line in lines.data_lines:
        cells = lines.text(body, int(line)).split("\t")
        for name, position in positions.items():
            cell = cells[position].strip() if position < len(cells) else ""
            if not (NUMBER_CELL.match(cell) or cell.lower() in MISSING_CELLS):
                return Issue(
                    ErrorCode.NON_NUMERIC_CELL,
                    f"Line {line}, column '{name}': '{cell[:40]}' is not a number.",
                    field=name,
                    line=int(line),
                )
    return Issue(ErrorCode.NON_NUMERIC_CELL, "The log could not be read as numbers.")


def _check_curve(
    columns: dict[str, np.ndarray], rules: TaskRules, lines: _LineTable, warnings: list[Issue]
) -> TrainingLog:
    epochs, hours, metric = columns[EPOCH], columns[HOURS], columns[rules.log_column]
    line_of = lines.data_lines
    errors: list[Issue] = []

    for name, values in columns.items():
        bad = ~np.isfinite(values)
        if bad.any():
            row = int(np.argmax(bad))
            errors.append(
                Issue(
                    ErrorCode.NON_FINITE_CELL,
                    f"Line {line_of[row]}, column '{name}': the cell is empty, NaN or infinite "
                    f"({int(bad.sum())} such cell(s) in this column).",
                    field=name,
                    line=int(line_of[row]),
                )
            )
    if errors:
        raise RejectedInput(*errors)

    for code, name, values, what in (
        (ErrorCode.NEGATIVE_EPOCH, EPOCH, epochs, "an epoch"),
        (ErrorCode.NEGATIVE_HOURS, HOURS, hours, "a time"),
    ):
        negative = values < 0
        if negative.any():
            row = int(np.argmax(negative))
            errors.append(
                Issue(
                    code,
                    f"Line {line_of[row]}: {what} cannot be negative ({values[row]:g}).",
                    field=name,
                    line=int(line_of[row]),
                )
            )
    for name, values, limit in ((EPOCH, epochs, MAX_EPOCH), (HOURS, hours, MAX_HOURS)):
        too_large = values > limit
        if too_large.any():
            row = int(np.argmax(too_large))
            errors.append(
                Issue(
                    ErrorCode.NUMBER_OUT_OF_RANGE,
                    f"Line {line_of[row]}, column '{name}': {values[row]:g} is beyond any real run "
                    f"(at most {limit:g}).",
                    field=name,
                    line=int(line_of[row]),
                )
            )

    step_hours = np.diff(hours)
    backwards = step_hours < 0
    if backwards.any():
        row = int(np.argmax(backwards)) + 1
        errors.append(
            Issue(
                ErrorCode.HOURS_DECREASING,
                f"Line {line_of[row]}: hours go backwards ({hours[row - 1]:g} then {hours[row]:g}); "
                "a log must be in the order it was written.",
                field=HOURS,
                line=int(line_of[row]),
            )
        )
    repeated = np.diff(epochs) <= 0
    if repeated.any():
        ambiguous = repeated & (step_hours <= 0)
        if ambiguous.any():
            row = int(np.argmax(ambiguous)) + 1
            errors.append(
                Issue(
                    ErrorCode.AMBIGUOUS_REPEATED_EPOCH,
                    f"Line {line_of[row]}: epoch {epochs[row]:g} does not advance and neither do the hours, "
                    "so the order of these evaluations is unknown.",
                    field=EPOCH,
                    line=int(line_of[row]),
                )
            )
        else:
            row = int(np.argmax(repeated)) + 1
            warnings.append(
                Issue(
                    WarningCode.REPEATED_EPOCH,
                    f"Epoch numbers repeat or go back on {int(repeated.sum())} row(s) (first at line {line_of[row]}) "
                    "while hours still increase; rows were taken in file order.",
                    field=EPOCH,
                    line=int(line_of[row]),
                )
            )

    metric = _metric_in_task_scale(metric, rules, warnings)
    out_of_range = (metric < 0) | (metric > rules.upper_bound)
    if out_of_range.any():
        row = int(np.argmax(out_of_range))
        errors.append(
            Issue(
                ErrorCode.METRIC_OUT_OF_RANGE,
                f"Line {line_of[row]}, column '{rules.log_column}': {columns[rules.log_column][row]:g} is outside "
                f"the range of {rules.metric_label} (0 to {rules.upper_bound:g}).",
                field=rules.log_column,
                line=int(line_of[row]),
            )
        )
    if errors:
        raise RejectedInput(*errors)
    return TrainingLog(epochs=epochs, hours=hours, metric=metric, line_numbers=line_of)


def _metric_in_task_scale(metric: np.ndarray, rules: TaskRules, warnings: list[Issue]) -> np.ndarray:
    """F1 written as a percent (a fraction can never exceed 1) is converted, with a warning."""
    if rules.scale == FRACTION and len(metric) and 1.0 < float(metric.max()) <= 100.0:
        warnings.append(
            Issue(
                WarningCode.METRIC_PERCENT_CONVERTED,
                f"'{rules.log_column}' goes above 1, so it was read as a percent and divided by 100.",
                field=rules.log_column,
            )
        )
        return metric / 100.0
    return metric
