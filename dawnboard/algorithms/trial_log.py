"""A trial's evaluation log: one CSV row an evaluation, in AlgoPerf's `eval_measurements.csv` layout.

Its header names the columns; two are required, `accumulated_submission_time` (seconds of the algorithm's timed
work when the evaluation was taken: evaluation itself is never on this clock) and `global_step`; the others are
metrics named `<split>/<metric>` (`validation/accuracy`, `train/loss`), and any bookkeeping column AlgoPerf writes
beside them (`accumulated_eval_time`, `preemption_count`, `total_duration`, ...), read and kept. A cell may be
empty (AlgoPerf leaves a metric out of some rows): it reads as NaN, which reaches no target.

Refused, each with its code and line: no header or no row (`empty_log`), a required column missing
(`missing_column`), a column named twice (`duplicate_column`), a row of another length than the header
(`wrong_cell_count`: a row cut short), a cell that is no number (`non_numeric_cell`), a time or a step that is not
finite (`non_finite_cell`), and a time or a step that runs backwards (`submission_time_decreasing`,
`step_decreasing`): each would make the time to target ambiguous. AlgoPerf's own scoring reads such files without
these checks; Dawnboard is stricter.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from dawnboard.errors import ErrorCode, Issue, IssueCounter, RejectedInput

TIME, STEP = "accumulated_submission_time", "global_step"
REQUIRED_COLUMNS = (TIME, STEP)


@dataclass(frozen=True)
class TrialLog:
    """A trial's evaluations, in the order taken: `columns` maps each column of the file to its values (floats,
    NaN where a cell was empty)."""

    columns: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def times(self) -> np.ndarray:
        """Seconds of timed work at each evaluation."""
        return self.columns[TIME]

    @property
    def steps(self) -> np.ndarray:
        return self.columns[STEP]

    def __len__(self) -> int:
        return len(self.times)

    def metric(self, name: str) -> np.ndarray:
        """A metric's values, or all NaN (never reached) where the log has no such column."""
        return self.columns.get(name, np.full(len(self), np.nan))


def read_trial_log(data: bytes, *, file_name: str = "eval_measurements.csv") -> TrialLog:
    """Read a trial's evaluation log.

    Raises:
        RejectedInput: its issues, each naming the file, the line and the column.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise RejectedInput(Issue(ErrorCode.NOT_UTF8, f"{file_name} is not UTF-8 text: {error}.")) from None
    rows = [row for row in csv.reader(io.StringIO(text)) if row]
    if len(rows) < 2:
        raise RejectedInput(
            Issue(ErrorCode.EMPTY_LOG, f"{file_name} holds no evaluation: a header and a row at least.")
        )
    header = [name.strip() for name in rows[0]]
    if header and header[0] == "":  # pandas' index column, as `DataFrame.to_csv` writes it by default
        header = header[1:]
        rows = [rows[0][1:], *(row[1:] for row in rows[1:])]
    issues = _header_issues(header, file_name)
    if issues:
        raise RejectedInput(*issues)
    values = np.full((len(rows) - 1, len(header)), np.nan)
    found = IssueCounter()
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            found.add(
                Issue(
                    ErrorCode.WRONG_CELL_COUNT,
                    f"{file_name}, line {number}: {len(row)} cells for {len(header)} columns (a row cut short?).",
                    line=number,
                )
            )
            continue
        for column, cell in enumerate(row):
            values[number - 2, column], problem = _number(cell, header[column])
            if problem and found.wants(problem[0]):
                found.listed.append(Issue(problem[0], f"{file_name}, line {number}: {problem[1]}", line=number))
    for column, code in ((TIME, ErrorCode.SUBMISSION_TIME_DECREASING), (STEP, ErrorCode.STEP_DECREASING)):
        for issue in _order_issues(values[:, header.index(column)], column, code, file_name):
            found.add(issue)
    if found.listed:
        raise RejectedInput(*found.issues())
    return TrialLog({name: values[:, index] for index, name in enumerate(header)})


def write_trial_log(rows: Sequence[Mapping[str, float]]) -> bytes:
    """The log of these evaluations (each a mapping of column to value; the required columns first, then the others
    in the order first seen), as `read_trial_log` reads it."""
    columns = list(REQUIRED_COLUMNS)
    for row in rows:
        columns += [name for name in row if name not in columns]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if _missing(row.get(name)) else repr(float(row[name])) for name in columns])
    return out.getvalue().encode()


def _header_issues(header: list[str], file_name: str) -> list[Issue]:
    issues = [
        Issue(ErrorCode.MISSING_COLUMN, f"{file_name} has no {name} column.", field=name)
        for name in REQUIRED_COLUMNS
        if name not in header
    ]
    seen = set()
    for name in header:
        if name in seen:
            issues.append(Issue(ErrorCode.DUPLICATE_COLUMN, f"{file_name} names {name} twice.", field=name))
        seen.add(name)
    return issues


def _number(cell: str, column: str) -> tuple[float, tuple[str, str] | None]:
    """A cell's value, and what is wrong with it (code and message), if anything."""
    cell = cell.strip()
    if cell == "" or cell.lower() == "nan":
        if column in REQUIRED_COLUMNS:
            return math.nan, (ErrorCode.NON_FINITE_CELL, f"{column} is empty.")
        return math.nan, None
    try:
        value = float(cell)
    except ValueError:
        return math.nan, (ErrorCode.NON_NUMERIC_CELL, f"{column} is {cell[:40]!r}, not a number.")
    if column in REQUIRED_COLUMNS and not math.isfinite(value):
        return math.nan, (ErrorCode.NON_FINITE_CELL, f"{column} is {cell[:40]}.")
    return value, None


def _order_issues(values: np.ndarray, column: str, code: str, file_name: str) -> list[Issue]:
    """A time or step lower than the row's before it: the evaluations are out of order."""
    backwards = np.flatnonzero(np.diff(values) < 0) + 1
    return [
        Issue(
            code,
            f"{file_name}, line {row + 2}: {column} {values[row]:g} is below the row before's {values[row - 1]:g}.",
            line=int(row) + 2,
        )
        for row in backwards
    ]


def _missing(value: float | None) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))
