"""Stable error and warning codes. Clients match on `code`; the wording of `message` may change."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum


class ErrorCode(StrEnum):
    """Why a submission was rejected. Listed, with their meaning, in docs/submitting/error-codes.md."""

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
    SUBMISSION_TIME_DECREASING = "submission_time_decreasing"  # a trial log's accumulated_submission_time
    STEP_DECREASING = "step_decreasing"  # a trial log's global_step
    MISSING_WORKLOAD = "missing_workload"  # an algorithm's results: no logs of a workload of the suite
    MISSING_STUDY = "missing_study"  # ... a study of a workload missing
    MISSING_TRIAL = "missing_trial"  # ... a study with fewer trials than the ruleset's
    MISSING_TRIAL_LOG = "missing_trial_log"  # ... a trial folder without its eval_measurements.csv
    INVALID_BUNDLE = "invalid_bundle"  # an algorithm's results bundle: not a safe archive, or its results.json
    AMBIGUOUS_REPEATED_EPOCH = "ambiguous_repeated_epoch"
    METRIC_OUT_OF_RANGE = "metric_out_of_range"
    THRESHOLD_NOT_REACHED = "threshold_not_reached"
    ACCURACY_BELOW_THRESHOLD = "accuracy_below_threshold"
    MISSING_LATENCY_AND_COST = "missing_latency_and_cost"
    TOO_MANY_COLUMNS = "too_many_columns"
    ENTRY_TOO_LARGE = "entry_too_large"
    INVALID_URL = "invalid_url"
    DUPLICATE_SUBMISSION = "duplicate_submission"
    LOG_ALREADY_SUBMITTED = "log_already_submitted"
    UNKNOWN_REPRODUCED_ENTRY = "unknown_reproduced_entry"
    JUDGING_FAILED = "judging_failed"
    # MLPerf Training results (`:::MLLOG` logs, results trees, result sets): see dawnboard/formats/mllog and
    # dawnboard/validation/mlperf.py.
    MALFORMED_RECORD = "malformed_record"
    INVALID_TIME = "invalid_time"
    NESTED_TOO_DEEP = "nested_too_deep"
    LINE_TOO_LONG = "line_too_long"
    TOO_MANY_LINES = "too_many_lines"
    TOO_MANY_RECORDS = "too_many_records"
    MISSING_MLLOG_KEY = "missing_mllog_key"
    CONFLICTING_VALUES = "conflicting_values"
    CLOCK_WENT_BACK = "clock_went_back"
    RUN_STOP_BEFORE_RUN_START = "run_stop_before_run_start"
    MALFORMED_QUALITY = "malformed_quality"
    RUN_ABORTED = "run_aborted"
    UNKNOWN_BENCHMARK = "unknown_benchmark"
    BENCHMARK_MISMATCH = "benchmark_mismatch"
    NO_RESULT_SETS = "no_result_sets"
    LINK_OUTSIDE_TREE = "link_outside_tree"
    NOT_REGULAR_FILE = "not_regular_file"
    UNREADABLE_FILE = "unreadable_file"
    TOO_MANY_RESULT_FILES = "too_many_result_files"
    INVALID_SCALING_FACTOR = "invalid_scaling_factor"
    WRONG_RUN_COUNT = "wrong_run_count"
    TOO_MANY_FAILED_RUNS = "too_many_failed_runs"
    UNKNOWN_FORMAT = "unknown_format"
    UNKNOWN_ROUND = "unknown_round"
    # MLPerf LoadGen's detail logs (dawnboard/formats/loadgen.py).
    LOADGEN_LOG_INCOMPLETE = "loadgen_log_incomplete"
    LOADGEN_UNKNOWN_SCENARIO = "loadgen_unknown_scenario"
    LOADGEN_WRONG_SCENARIO = "loadgen_wrong_scenario"
    LOADGEN_WRONG_MODE = "loadgen_wrong_mode"
    LOADGEN_INVALID = "loadgen_invalid"
    LOADGEN_LOGS = "loadgen_logs"
    LOADGEN_CONTRADICTS_ENTRY = "loadgen_contradicts_entry"


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
    DATE_NOT_PADDED = "date_not_padded"
    REPLACES_ENTRY = "replaces_entry"
    SYSTEM_DESCRIPTION_IGNORED = "system_description_ignored"
    RUN_FAILED = "run_failed"
    MEASURED_WHILE_BUSY = "measured_while_busy"


ERROR_DESCRIPTIONS = {
    ErrorCode.UNKNOWN_TASK: "The task field names no task.",
    ErrorCode.UNKNOWN_TRACK: "The track field is neither train nor inference.",
    ErrorCode.MISSING_FILE: "No entry file was uploaded.",
    ErrorCode.FILE_TOO_LARGE: "An upload is over the size limit.",
    ErrorCode.NOT_UTF8: "The entry or the log is not UTF-8 text.",
    ErrorCode.INVALID_JSON: "The entry is not JSON (or is nested absurdly deep).",
    ErrorCode.NOT_OBJECT: "The entry is JSON but not an object.",
    ErrorCode.MISSING_FIELD: "A required field (or the task/track form field) is missing or empty.",
    ErrorCode.WRONG_TYPE: "A field has the wrong JSON type.",
    ErrorCode.TEXT_TOO_LONG: "A text field is longer than Dawnboard stores.",
    ErrorCode.INVALID_TEXT: "A string holds a NUL character or a lone surrogate, which no database stores.",
    ErrorCode.INVALID_DATE: "timestamp is not a real calendar date written year-month-day (yyyy-mm-dd).",
    ErrorCode.UNKNOWN_VERSION: "The entry's version is not a version of this task.",
    ErrorCode.NEGATIVE_NUMBER: "A number is negative.",
    ErrorCode.NON_FINITE_NUMBER: "A number is NaN or Infinity.",
    ErrorCode.NUMBER_OUT_OF_RANGE: "A number no real run could have.",
    ErrorCode.MISSING_LOG: "A training entry came without its log.",
    ErrorCode.EMPTY_LOG: "The log has no rows (a header alone, say).",
    ErrorCode.MISSING_COLUMN: "The log lacks the epoch, hours or metric column.",
    ErrorCode.DUPLICATE_COLUMN: "The log's header names a column twice.",
    ErrorCode.WRONG_CELL_COUNT: "A log row cannot be matched to the header's columns.",
    ErrorCode.NON_NUMERIC_CELL: "A log cell is not a number.",
    ErrorCode.NON_FINITE_CELL: "A log cell is empty, NaN or infinite.",
    ErrorCode.NEGATIVE_EPOCH: "An epoch is negative.",
    ErrorCode.NEGATIVE_HOURS: "A time is negative.",
    ErrorCode.HOURS_DECREASING: "hours goes backwards.",
    ErrorCode.SUBMISSION_TIME_DECREASING: "An algorithm trial's log: accumulated_submission_time goes backwards.",
    ErrorCode.STEP_DECREASING: "An algorithm trial's log: global_step goes backwards.",
    ErrorCode.MISSING_WORKLOAD: "An algorithm's results hold no logs of one of the suite's workloads.",
    ErrorCode.MISSING_STUDY: "An algorithm's results lack a study of a workload.",
    ErrorCode.MISSING_TRIAL: "A study holds fewer trials than the ruleset's.",
    ErrorCode.MISSING_TRIAL_LOG: "A trial folder holds no eval_measurements.csv.",
    ErrorCode.INVALID_BUNDLE: (
        "An algorithm's results bundle is not a zip or tar archive within the limits (no links, no paths out of it), "
        "or its results.json lacks or misstates the suite, ruleset, algorithm, reference or held-out variants."
    ),
    ErrorCode.AMBIGUOUS_REPEATED_EPOCH: "An epoch repeats and the hours do not increase either.",
    ErrorCode.METRIC_OUT_OF_RANGE: "The quality is outside its scale (e.g. accuracy above 100).",
    ErrorCode.THRESHOLD_NOT_REACHED: "No log row reaches the threshold.",
    ErrorCode.ACCURACY_BELOW_THRESHOLD: "An inference entry's accuracy is below the threshold.",
    ErrorCode.MISSING_LATENCY_AND_COST: "An inference entry has neither latency nor cost.",
    ErrorCode.TOO_MANY_COLUMNS: "The log's header names more columns than any real log has.",
    ErrorCode.ENTRY_TOO_LARGE: "The entry JSON is over its size limit (it is a few fields, not data).",
    ErrorCode.INVALID_URL: "codeURL is not an http or https URL.",
    ErrorCode.DUPLICATE_SUBMISSION: "The files are those of an accepted entry of the same task and track (the entry's "
    "fields as published, the log's bytes).",
    ErrorCode.LOG_ALREADY_SUBMITTED: "The log (its bytes, or its rows up to the threshold as read) is already on the "
    "board under another submitter's entry.",
    ErrorCode.UNKNOWN_REPRODUCED_ENTRY: "The entry's `reproduces` names no other accepted training entry of its task "
    "(by id, or by DAWNBench file stem).",
    ErrorCode.JUDGING_FAILED: "The submission could not be judged after several tries; submit it again.",
    ErrorCode.MALFORMED_RECORD: "An MLPerf log line's text after `:::MLLOG ` is not one JSON object with a string "
    "key, a value and a time_ms (and, when present, an object as metadata).",
    ErrorCode.INVALID_TIME: "An MLPerf log record's time_ms is not a number, or is NaN or infinite.",
    ErrorCode.NESTED_TOO_DEEP: "An MLPerf log record nests objects or arrays deeper than any real record does.",
    ErrorCode.LINE_TOO_LONG: "An MLPerf log line holding a record is longer than any real record.",
    ErrorCode.TOO_MANY_LINES: "An MLPerf log has more lines than any real run writes.",
    ErrorCode.TOO_MANY_RECORDS: "An MLPerf log has more `:::MLLOG` records than any real run writes.",
    ErrorCode.MISSING_MLLOG_KEY: "An MLPerf log lacks a record every run writes (run_start, run_stop, "
    "submission_benchmark, or a key its benchmark's target needs); the field names it.",
    ErrorCode.CONFLICTING_VALUES: "A key an MLPerf run writes once (submission_benchmark, run_start, run_stop...) is "
    "written again with another value or time.",
    ErrorCode.CLOCK_WENT_BACK: "Before run_start, an MLPerf log's time_ms goes back further than processes' clocks "
    "drift apart.",
    ErrorCode.RUN_STOP_BEFORE_RUN_START: "run_stop is timed before run_start: the run would take negative minutes.",
    ErrorCode.MALFORMED_QUALITY: "A quality record (eval_accuracy) lacks its number, a sub-metric or its progress "
    "(epoch_num, samples_count...), as its benchmark writes them.",
    ErrorCode.RUN_ABORTED: "The run's run_stop status is not success: the run counts as failed.",
    ErrorCode.UNKNOWN_BENCHMARK: "A results folder names no benchmark of the round.",
    ErrorCode.BENCHMARK_MISMATCH: "A log's submission_benchmark is not the benchmark its folder names.",
    ErrorCode.NO_RESULT_SETS: "No <submitter>/results/<system>/<benchmark>/result_*.txt was found under the folder.",
    ErrorCode.LINK_OUTSIDE_TREE: "A symbolic link in a results tree points outside the tree; it was not followed.",
    ErrorCode.NOT_REGULAR_FILE: "A result file is not a regular file (a pipe, a device, a folder).",
    ErrorCode.UNREADABLE_FILE: "A file of a results tree could not be read (permissions, I/O error).",
    ErrorCode.TOO_MANY_RESULT_FILES: "A result set's folder holds more result files than any benchmark requires; "
    "none was read.",
    ErrorCode.INVALID_SCALING_FACTOR: "scaling.json is not a JSON object whose scaling_factor is a finite positive "
    "number.",
    ErrorCode.WRONG_RUN_COUNT: "The entry holds another number of runs (logs) than its task version requires.",
    ErrorCode.TOO_MANY_FAILED_RUNS: "Too many of the entry's runs failed for its task version's rule to give a score.",
    ErrorCode.UNKNOWN_FORMAT: "The format field is neither dawnbench nor mllog.",
    ErrorCode.UNKNOWN_ROUND: "MLLOG files came without a known MLPerf Training round (round=v4.0, say).",
    ErrorCode.LOADGEN_LOG_INCOMPLETE: "A LoadGen detail log lacks the results LoadGen writes when a test ends (`field` "
    "names the first missing): it was cut short.",
    ErrorCode.LOADGEN_UNKNOWN_SCENARIO: "A LoadGen detail log names a scenario other than SingleStream, Offline or "
    "Server.",
    ErrorCode.LOADGEN_WRONG_SCENARIO: "A LoadGen log is of another scenario than the measurement it stands for.",
    ErrorCode.LOADGEN_WRONG_MODE: "A LoadGen log is of an accuracy or other test, not a performance one.",
    ErrorCode.LOADGEN_INVALID: "LoadGen judged the test INVALID, or counted errors in it.",
    ErrorCode.LOADGEN_LOGS: "An inference entry's LoadGen logs are not one detail log (mlperf_log_detail.txt) and at "
    "most one summary (mlperf_log_summary.txt), or the summary tells another test than the detail log.",
    ErrorCode.LOADGEN_CONTRADICTS_ENTRY: "The LoadGen log contradicts the entry: another scenario than its "
    "misc.scenario, or a mean latency outside the latencies LoadGen measured in a single stream.",
}

WARNING_DESCRIPTIONS = {
    WarningCode.BYTE_ORDER_MARK: "The log starts with a byte-order mark; it was ignored.",
    WarningCode.CRLF_LINE_ENDINGS: "The log has Windows line ends.",
    WarningCode.WHITESPACE_TRIMMED: "Spaces around cells, or trailing empty cells, were ignored.",
    WarningCode.COLUMNS_REORDERED: "No longer raised (columns are matched by name); kept on older verdicts.",
    WarningCode.EXTRA_COLUMNS: "Columns the task's log format does not document were kept but not used.",
    WarningCode.BLANK_LINES: "Blank lines in the log were skipped.",
    WarningCode.REPEATED_EPOCH: "Epoch numbers repeat while hours increase; rows were taken in file order.",
    WarningCode.METRIC_PERCENT_CONVERTED: "F1 written as a percent was converted to a fraction.",
    WarningCode.COST_MISMATCH: "cost differs from costPerHour x latency by more than 1 %.",
    WarningCode.UNKNOWN_FIELDS: "Fields outside the task's documented DAWNBench format were kept as submitted.",
    WarningCode.LOG_IGNORED: "A log sent with an inference entry was not read.",
    WarningCode.REPLACES_ENTRY: "The submitter's own entry with the same log was withdrawn: this one replaces it.",
    WarningCode.DATE_NOT_PADDED: "timestamp was written without zero padding (e.g. 2019-6-27); the date was read.",
    WarningCode.SYSTEM_DESCRIPTION_IGNORED: "A system's description (systems/<system>.json) is too large or not a "
    "JSON object; the results were read without it.",
    WarningCode.RUN_FAILED: "One of the entry's runs missed the threshold; it counts as slower than every other.",
    WarningCode.MEASURED_WHILE_BUSY: "A reference run was timed while other work held the machine's cores.",
}

# The warnings a reader should look at: they change or question a figure. The rest note a quirk of the
# files that left every figure unambiguous. Verdicts list these first.
ATTENTION_WARNINGS = frozenset(
    {
        WarningCode.REPEATED_EPOCH,
        WarningCode.METRIC_PERCENT_CONVERTED,
        WarningCode.COST_MISMATCH,
        WarningCode.RUN_FAILED,
        WarningCode.MEASURED_WHILE_BUSY,
    }
)


@dataclass(frozen=True)
class Issue:
    """One error or warning: a stable code, a sentence a submitter can act on, and where."""

    code: str
    message: str
    field: str | None = None
    line: int | None = None

    def as_dict(self) -> dict:
        return {key: value for key, value in asdict(self).items() if value is not None}


def needs_attention(code: str) -> bool:
    """Whether a warning questions a figure (rather than noting a harmless quirk of the files)."""
    return code in ATTENTION_WARNINGS


def most_important_first(warnings: list[Issue]) -> list[Issue]:
    """The warnings that question a figure first, each group in the order found."""
    return sorted(warnings, key=lambda issue: not needs_attention(issue.code))


class RejectedInput(Exception):
    """Raised inside a parser when the rest of the file cannot be read meaningfully."""

    def __init__(self, *issues: Issue):
        super().__init__("; ".join(issue.message for issue in issues))
        self.issues = list(issues)


# A rejection lists at most this many issues of each code, then one closing issue of the same code
# saying how many more were found: a million NaNs are one mistake, not a million lines to read.
MAX_ISSUES_PER_CODE = 20


@dataclass(frozen=True)
class UnlistedIssues(Issue):
    """The closing issue of a capped code: how many more of that code were found but not listed."""

    count: int = 0

    def as_dict(self) -> dict:
        return Issue(self.code, self.message, self.field, self.line).as_dict()


def unlisted(code: str, count: int, *, kind: str = "errors") -> UnlistedIssues:
    return UnlistedIssues(code, f"... and {count:,} more {code} {kind} not listed.", count=count)


class IssueCounter:
    """Collects issues keeping at most MAX_ISSUES_PER_CODE of each code, and only counts the rest.

    Collectors that can find an issue per value of a document use it, so a hostile document costs a
    count, not an `Issue`, past the cap.
    """

    def __init__(self) -> None:
        self.listed: list[Issue] = []
        self.per_code: dict[str, int] = {}

    def wants(self, code: str) -> bool:
        """Count one issue of `code`; True when it is still to be listed (build it then)."""
        seen = self.per_code.get(code, 0)
        self.per_code[code] = seen + 1
        return seen < MAX_ISSUES_PER_CODE

    def add(self, issue: Issue) -> None:
        if self.wants(issue.code):
            self.listed.append(issue)

    def issues(self) -> list[Issue]:
        """The listed issues, then one closing issue per code that had more."""
        closing = [
            unlisted(code, seen - MAX_ISSUES_PER_CODE)
            for code, seen in self.per_code.items()
            if seen > MAX_ISSUES_PER_CODE
        ]
        return self.listed + closing


def capped_per_code(issues: list[Issue], *, kind: str = "errors") -> list[Issue]:
    """The first MAX_ISSUES_PER_CODE issues of each code in order, then one closing issue per code cut short.

    Closing issues already in `issues` (from a collector that stopped early) are merged into the count,
    so capping twice changes nothing.
    """
    listed: list[Issue] = []
    shown: dict[str, int] = {}
    more: dict[str, int] = {}
    for issue in issues:
        if isinstance(issue, UnlistedIssues):
            more[issue.code] = more.get(issue.code, 0) + issue.count
        elif shown.get(issue.code, 0) < MAX_ISSUES_PER_CODE:
            shown[issue.code] = shown.get(issue.code, 0) + 1
            listed.append(issue)
        else:
            more[issue.code] = more.get(issue.code, 0) + 1
    return listed + [unlisted(code, count, kind=kind) for code, count in more.items() if count]


MAX_SHOWN_CHARACTERS = 40  # of a submitted value quoted in a message
MAX_NAMES_LISTED = 20  # in a message that lists names (extra columns, unknown fields)


def shown(value: object) -> str:
    """A submitted value as quoted in a message: cut short, so a message never echoes a megabyte."""
    text = str(value)
    if len(text) <= MAX_SHOWN_CHARACTERS:
        return text
    return f"{text[: MAX_SHOWN_CHARACTERS - 3]}... ({len(text):,} characters)"


def listed(names: list[str]) -> str:
    """Names for a message: the first MAX_NAMES_LISTED, each cut short, then how many more."""
    text = ", ".join(shown(name) for name in names[:MAX_NAMES_LISTED])
    more = len(names) - MAX_NAMES_LISTED
    return f"{text} and {more:,} more" if more > 0 else text
