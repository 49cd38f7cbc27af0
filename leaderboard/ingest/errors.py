"""Stable error and warning codes. Clients match on `code`; the wording of `message` may change."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum


class ErrorCode(StrEnum):
    """Why a submission was rejected. Listed, with their meaning, in the README."""

    UNKNOWN_TASK = "unknown_task"
    UNKNOWN_TRACK = "unknown_track"
    MISSING_FILE = "missing_file"
    FILE_TOO_LARGE = "file_too_large"
    NOT_UTF8 = "not_utf8"
    INVALID_JSON = "invalid_json"
    NOT_OBJECT = "not_object"
    MISSING_FIELD = "missing_field"
    WRONG_TYPE = "wrong_type"
    TEXT_TOO_LONG = "text_too_long"
    INVALID_TEXT = "invalid_text"
    INVALID_DATE = "invalid_date"
    UNKNOWN_VERSION = "unknown_version"
    NEGATIVE_NUMBER = "negative_number"
    NON_FINITE_NUMBER = "non_finite_number"
    NUMBER_OUT_OF_RANGE = "number_out_of_range"
    MISSING_LOG = "missing_log"
    EMPTY_LOG = "empty_log"
    MISSING_COLUMN = "missing_column"
    DUPLICATE_COLUMN = "duplicate_column"
    WRONG_CELL_COUNT = "wrong_cell_count"
    NON_NUMERIC_CELL = "non_numeric_cell"
    NON_FINITE_CELL = "non_finite_cell"
    NEGATIVE_EPOCH = "negative_epoch"
    NEGATIVE_HOURS = "negative_hours"
    HOURS_DECREASING = "hours_decreasing"
    AMBIGUOUS_REPEATED_EPOCH = "ambiguous_repeated_epoch"
    METRIC_OUT_OF_RANGE = "metric_out_of_range"
    THRESHOLD_NOT_REACHED = "threshold_not_reached"
    ACCURACY_BELOW_THRESHOLD = "accuracy_below_threshold"
    MISSING_LATENCY_AND_COST = "missing_latency_and_cost"


class WarningCode(StrEnum):
    """What was accepted but changed or questioned; recorded on the entry."""

    BYTE_ORDER_MARK = "byte_order_mark"
    CRLF_LINE_ENDINGS = "crlf_line_endings"
    WHITESPACE_TRIMMED = "whitespace_trimmed"
    COLUMNS_REORDERED = "columns_reordered"
    EXTRA_COLUMNS = "extra_columns"
    BLANK_LINES = "blank_lines"
    REPEATED_EPOCH = "repeated_epoch"
    METRIC_PERCENT_CONVERTED = "metric_percent_converted"
    COST_MISMATCH = "cost_mismatch"
    UNKNOWN_FIELDS = "unknown_fields"
    LOG_IGNORED = "log_ignored"


@dataclass(frozen=True)
class Issue:
    """One error or warning: a stable code, a sentence a submitter can act on, and where."""

    code: str
    message: str
    field: str | None = None
    line: int | None = None

    def as_dict(self) -> dict:
        return {key: value for key, value in asdict(self).items() if value is not None}


class RejectedInput(Exception):
    """Raised inside a parser when the rest of the file cannot be read meaningfully."""

    def __init__(self, *issues: Issue):
        super().__init__("; ".join(issue.message for issue in issues))
        self.issues = list(issues)
