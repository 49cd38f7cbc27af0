"""MLPerf LoadGen's detail log (`mlperf_log_detail.txt`): one test's figures as LoadGen itself computed them.

LoadGen (MLCommons' `mlcommons-loadgen`, the load generator of MLPerf Inference) writes its detail log as
`:::MLLOG {json}` records, read here by the same reader as a training log (`dawnboard.formats.mllog`: the same
limits on size, lines, records, nesting and times). What a board needs of it:

- the scenario (`effective_scenario`: SingleStream, Offline or Server, in Dawnboard's words `single-stream`,
  `offline`, `server`) and the mode (`effective_test_mode`: PerformanceOnly, AccuracyOnly...);
- LoadGen's verdict (`result_validity`: VALID or INVALID) and its errors (`num_errors`);
- the queries answered (`result_query_count`) and the latencies in ns (`result_mean_latency_ns`,
  `result_min_latency_ns`, `result_max_latency_ns`, `result_<p>_percentile_latency_ns`);
- single stream: the early-stopping estimate of the 90th percentile (`early_stopping_latency_ss`); offline: samples
  per second (`result_samples_per_second`); server: the scheduled and completed queries per second
  (`result_scheduled_samples_per_sec`, `result_completed_samples_per_sec`);
- the settings the test ran with (`effective_*`).

Strict, each with a stable code: a log with no `result_validity` (`loadgen_log_incomplete`: LoadGen writes its
results last, so a log cut short has none; `field` names the first key missing), a scenario LoadGen does not have
(`loadgen_unknown_scenario`), a figure that is not a number where one must be (`malformed_record`), a key
written twice with different values (`conflicting_values`). A log of another scenario than expected, or that LoadGen
judged INVALID, is read as it is: refusing it is the caller's business (`LoadGenTest.problems`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from dawnboard.errors import ErrorCode, Issue, RejectedInput, shown
from dawnboard.formats.mllog import read_records

# LoadGen's scenario names and Dawnboard's (the `--scenario` words and the API's).
SCENARIOS = {"SingleStream": "single-stream", "Offline": "offline", "Server": "server"}
PERFORMANCE_ONLY = "PerformanceOnly"
VALID = "VALID"
PERCENTILES = ("50.00", "90.00", "95.00", "97.00", "99.00", "99.90")
NS_PER_MS = 1_000_000

# Written at the start of every test, then (a performance test's) at its end: the first one missing names what
# was cut. An accuracy test (AccuracyOnly) writes no results: its figure is the task's score of its answers.
REQUIRED_SETTINGS = ("effective_scenario", "effective_test_mode")
REQUIRED_RESULTS = ("result_validity", "result_query_count")
ACCURACY_ONLY = "AccuracyOnly"
SETTING_PREFIX = "effective_"
COMMENTARY = "generic_message"  # LoadGen's notes as the test goes, written many times
# Its warnings, as many as it has, each another text: "Logging allocation detected: tid: ..." whenever a thread it had
# not seen completes a query (the server's worker), at any time of the test. They judge nothing: `result_validity`
# and `num_errors` do.
WARNINGS = "warning_generic_message"
# Written once for each set of samples loaded: an accuracy test walking a set larger than the samples held at
# once loads several, each with its own list, query count and power window.
PER_LOADED_SET = frozenset(
    {
        "loaded_qsl_set",
        "power_begin",
        "power_end",
        "generated_query_count",
        "generated_query_duration",
        "generated_samples_per_query",
    }
)
REPEATED = PER_LOADED_SET | {COMMENTARY, WARNINGS}


@dataclass(frozen=True)
class LoadGenTest:
    """One LoadGen test as its detail log reports it. Latencies in ms; None where the scenario has no such figure."""

    scenario: str  # single-stream, offline or server
    mode: str  # LoadGen's: PerformanceOnly, AccuracyOnly, SubmissionRun, FindPeakPerformance
    valid: bool
    errors: int
    query_count: int  # 0 in an accuracy test
    min_duration_met: bool | None
    min_queries_met: bool | None
    early_stopping_met: bool | None
    mean_ms: float | None
    min_ms: float | None
    max_ms: float | None
    percentiles_ms: dict[str, float]  # "90.00" -> ms
    early_stopping_p90_ms: float | None  # single stream
    samples_per_second: float | None  # offline
    scheduled_queries_per_second: float | None  # server
    completed_queries_per_second: float | None  # server
    settings: dict[str, Any]  # the effective_* values, prefix dropped
    loadgen_version: str | None

    @property
    def p90_ms(self) -> float | None:
        return self.percentiles_ms.get("90.00")

    def latencies_ms(self) -> dict[str, float | None]:
        """The mean, min, max and each percentile by its short name ("p50", "p90", "p99.90"), in ms."""
        named = {f"p{percentile.removesuffix('.00')}": value for percentile, value in self.percentiles_ms.items()}
        return {"mean": self.mean_ms, "min": self.min_ms, "max": self.max_ms, **named}

    def problems(self, *, scenario: str) -> list[Issue]:
        """Why this test cannot stand for a `scenario` measurement: another scenario, not a performance run,
        LoadGen's INVALID, or errors it counted. Empty when it can."""
        issues = []
        if self.scenario != scenario:
            message = f"The LoadGen log is of the {self.scenario} scenario, not {scenario}."
            issues.append(Issue(ErrorCode.LOADGEN_WRONG_SCENARIO, message, field="effective_scenario"))
        if self.mode != PERFORMANCE_ONLY:  # nothing of its performance to judge
            message = f"The LoadGen log is of a {self.mode} test, not a performance one ({PERFORMANCE_ONLY})."
            return [*issues, Issue(ErrorCode.LOADGEN_WRONG_MODE, message, field="effective_test_mode")]
        if not self.valid:
            message = (
                f"LoadGen judged the test INVALID (minimum duration met: {_yes_no(self.min_duration_met)}, "
                f"minimum queries met: {_yes_no(self.min_queries_met)}, early stopping met: "
                f"{_yes_no(self.early_stopping_met)}; otherwise a latency bound was missed): its summary log says why."
            )
            issues.append(Issue(ErrorCode.LOADGEN_INVALID, message, field="result_validity"))
        if self.errors:
            message = f"LoadGen counted {self.errors} error(s) in the test (num_errors)."
            issues.append(Issue(ErrorCode.LOADGEN_INVALID, message, field="num_errors"))
        return issues


SUMMARY_TITLE = b"MLPerf Results Summary"
SUMMARY_FIELDS = {"Scenario": "scenario", "Mode": "mode", "Result is": "validity"}


def is_loadgen_detail(data: bytes) -> bool:
    """Whether a file reads as LoadGen's detail log: MLLOG records, among them LoadGen's scenario setting."""
    return b":::MLLOG" in data[:65536] and b'"effective_scenario"' in data


def is_loadgen_summary(data: bytes) -> bool:
    return SUMMARY_TITLE in data[:4096]


def read_loadgen_summary(data: bytes) -> dict[str, str]:
    """What LoadGen's summary log says of its test, by Dawnboard's word: the scenario (as LoadGen names it), the
    mode and the verdict, each from its `Name : value` line (the first of each); a missing one is absent."""
    said: dict[str, str] = {}
    for line in data[:65536].decode("utf-8", errors="replace").splitlines():
        name, colon, value = line.partition(":")
        field = SUMMARY_FIELDS.get(name.strip())
        if colon and field and field not in said:
            said[field] = value.strip()
    return said


def summary_contradictions(summary: dict[str, str], test: LoadGenTest, *, file_name: str) -> list[Issue]:
    """Where the summary log tells another test than the detail log: its scenario, mode or verdict."""
    told = {
        "scenario": next((name for name, word in SCENARIOS.items() if word == test.scenario), test.scenario),
        "mode": test.mode,
        "validity": VALID if test.valid else "INVALID",
    }
    return [
        Issue(
            ErrorCode.LOADGEN_LOGS,
            f"{file_name} says {field} {shown(repr(summary[field]))}; the detail log says {told[field]!r}.",
            field=field,
        )
        for field in told
        if field in summary and summary[field] != told[field]
    ]


def read_loadgen_detail(data: bytes, *, file_name: str = "mlperf_log_detail.txt") -> LoadGenTest:
    """Read LoadGen's detail log.

    Raises:
        RejectedInput: the log is unreadable (see `dawnboard.formats.mllog`), cut short or malformed.
    """
    # Every key but LoadGen's running commentary is written once; written again with another value, the log is
    # ambiguous.
    first_of = read_records(data, file_name=file_name, single_valued=lambda key: key not in REPEATED)
    values = {key: record.value for key, record in first_of.items()}
    lines = {key: record.line for key, record in first_of.items()}
    required = REQUIRED_SETTINGS + (() if values.get("effective_test_mode") == ACCURACY_ONLY else REQUIRED_RESULTS)
    for key in required:
        if key not in values:
            message = f"{file_name} has no {key}: LoadGen writes it when a test ends, so the log was cut short."
            raise RejectedInput(Issue(ErrorCode.LOADGEN_LOG_INCOMPLETE, message, field=key))
    scenario = SCENARIOS.get(values["effective_scenario"])
    if scenario is None:
        known = ", ".join(SCENARIOS)
        message = f"The scenario {shown(repr(values['effective_scenario']))} is not one of LoadGen's: {known}."
        raise RejectedInput(
            Issue(
                ErrorCode.LOADGEN_UNKNOWN_SCENARIO,
                message,
                line=lines["effective_scenario"],
                field="effective_scenario",
            )
        )
    reader = _Figures(values, lines)
    return LoadGenTest(
        scenario=scenario,
        mode=str(values["effective_test_mode"]),
        valid=values.get("result_validity") == VALID,
        errors=reader.integer("num_errors", default=0),
        query_count=reader.integer("result_query_count", default=0),
        min_duration_met=_flag(values.get("result_min_duration_met")),
        min_queries_met=_flag(values.get("result_min_queries_met")),
        early_stopping_met=_flag(values.get("early_stopping_met")),
        mean_ms=reader.milliseconds("result_mean_latency_ns"),
        min_ms=reader.milliseconds("result_min_latency_ns"),
        max_ms=reader.milliseconds("result_max_latency_ns"),
        percentiles_ms={
            percentile: value
            for percentile in PERCENTILES
            if (value := reader.milliseconds(f"result_{percentile}_percentile_latency_ns")) is not None
        },
        early_stopping_p90_ms=reader.milliseconds("early_stopping_latency_ss") if scenario == "single-stream" else None,
        samples_per_second=reader.number("result_samples_per_second") if scenario == "offline" else None,
        scheduled_queries_per_second=reader.number("result_scheduled_samples_per_sec")
        if scenario == "server"
        else None,
        completed_queries_per_second=reader.number("result_completed_samples_per_sec")
        if scenario == "server"
        else None,
        settings={
            key.removeprefix(SETTING_PREFIX): value for key, value in values.items() if key.startswith(SETTING_PREFIX)
        },
        loadgen_version=str(values["loadgen_version"]) if "loadgen_version" in values else None,
    )


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _yes_no(flag: bool | None) -> str:
    return "unknown" if flag is None else ("yes" if flag else "no")


class _Figures:
    """Numbers out of the log's values, each checked: a figure that is there must be a finite number."""

    def __init__(self, values: dict[str, Any], lines: dict[str, int]):
        self.values, self.lines = values, lines

    def number(self, key: str) -> float | None:
        if key not in self.values:
            return None
        value = self.values[key]
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
            message = f"Line {self.lines[key]}: {key} is {shown(repr(value))}, not a number of at least 0."
            raise RejectedInput(Issue(ErrorCode.MALFORMED_RECORD, message, line=self.lines[key], field=key))
        return float(value)

    def integer(self, key: str, default: int) -> int:
        value = self.number(key)
        if value is None:
            return default
        if value != int(value):
            message = f"Line {self.lines[key]}: {key} is {value!r}, not a whole number."
            raise RejectedInput(Issue(ErrorCode.MALFORMED_RECORD, message, line=self.lines[key], field=key))
        return int(value)

    def milliseconds(self, key: str) -> float | None:
        value = self.number(key)
        return None if value is None else value / NS_PER_MS
