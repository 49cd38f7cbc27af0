"""Check a training log's rows: every number finite and in range, time only going forward, the metric in scale.

Format-blind: any reader that yields a `TrainingLog` (the DAWNBench TSV today, MLPerf's log next) is
checked by the same rules.
"""

from __future__ import annotations

import numpy as np

from dawnboard.documents import TrainingLog
from dawnboard.errors import ErrorCode, Issue, RejectedInput, WarningCode
from dawnboard.rules import EPOCH, FRACTION, HOURS, TaskRules

MAX_HOURS = 1e6  # over a century: a wrong unit, not a training run
MAX_EPOCH = 1e9


def check_training_log(log: TrainingLog, rules: TaskRules) -> tuple[TrainingLog, list[Issue]]:
    """Check a log's rows, vectorised, and return them with the metric in the task's scale.

    Each check first asks a cheap reduction (a minimum or maximum, where NaN and infinity show
    too) and builds a row mask only for a log that fails it.

    Returns:
        The log (metric in the task's scale) and the warnings about what was accepted.

    Raises:
        RejectedInput: with every error found, each naming the row's line and the column.
    """
    if len(log) == 0:
        raise RejectedInput(Issue(ErrorCode.EMPTY_LOG, "The log has no evaluation rows."))
    epochs, hours, metric, line_of = log.epochs, log.hours, log.metric, log.line_numbers
    columns = {EPOCH: epochs, HOURS: hours, rules.log_column: metric}
    warnings: list[Issue] = []
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
    return TrainingLog(epochs=epochs, hours=hours, metric=metric, line_numbers=line_of), warnings


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
