"""Check a DAWNBench v1.0 entry document (the parsed JSON) field by field.

Numbers arrive as `Decimal` exactly as written; NaN and Infinity literals as `NonFiniteNumber`; numbers no
reader can hold as `OutOfRangeNumber`. A number may have any exponent, so no arithmetic touches one
before its magnitude is known to be sane: comparisons are exact and never round.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from dawnboard import display
from dawnboard.documents import NonFiniteNumber, OutOfRangeNumber, plain_json
from dawnboard.errors import ErrorCode, Issue, IssueCounter, WarningCode, listed, shown
from dawnboard.links import is_web_link
from dawnboard.rules import FRACTION, TaskRules, Track
from dawnboard.scoring import inference_cost_usd_per_item
from dawnboard.verification import (
    EVALUATION_EXCLUSIONS_FIELD,
    EVALUATION_SPLIT_FIELD,
    USED_BLACKLIST_FIELD,
    EvaluationStatement,
    evaluation_statement,
)

REQUIRED_TEXT_FIELDS = ("version", "author", "authorEmail", "framework", "model", "hardware", "timestamp")
OPTIONAL_TEXT_FIELDS = ("codeURL", "commitHash", "logFilename", EVALUATION_SPLIT_FIELD, EVALUATION_EXCLUSIONS_FIELD)
OPTIONAL_NUMBER_FIELDS = ("costPerHour",)
INFERENCE_NUMBER_FIELDS = ("latency", "cost")
# `reproduces`: the entry a submitter's entry reproduces (its id on this board, or a DAWNBench file stem). DAWNBench's
# `usedBlacklist` is read wherever sent, documented by ImageNet's version alone (`TaskRules.documented_fields`).
REPRODUCES_FIELD = "reproduces"
KNOWN_FIELDS = frozenset(
    REQUIRED_TEXT_FIELDS + OPTIONAL_TEXT_FIELDS + OPTIONAL_NUMBER_FIELDS + ("misc", REPRODUCES_FIELD)
)
# Year-month-day in ASCII digits; without zero padding (2019-6-27) it is read, with a warning.
DATE_PATTERN = re.compile(r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})$")
COST_TOLERANCE = Decimal("0.01")
MAX_JSON_DEPTH = 64
MAX_TEXT_LENGTH = 500  # per text field; the database columns are sized to match
MAX_URL_LENGTH = 2000
# Far above any real price (USD per hour or per item) or latency (ms), and small enough that the
# products Dawnboard computes stay exact and fit the database.
MAX_ENTRY_NUMBER = Decimal("1e9")
MIN_ENTRY_NUMBER = Decimal("1e-15")  # smallest non-zero price or latency taken as a real figure
MAX_STORED_NUMBER = Decimal("1e300")
MAX_PATH_CHARACTERS = 200  # of a field's path named in an error (the keys are the submitter's)


@dataclass(frozen=True)
class EntryDocument:
    """A checked entry. Numbers are `Decimal` exactly as written; `accuracy` is in the task's scale."""

    version: str
    author: str
    author_email: str
    framework: str
    model: str
    hardware: str
    date: datetime.date
    code_url: str = ""
    commit_hash: str = ""
    log_filename: str = ""
    cost_per_hour_usd: Decimal | None = None
    latency_ms: Decimal | None = None
    cost_usd_per_item: Decimal | None = None
    accuracy: Decimal | None = None
    misc: Any = None
    extra_fields: dict = field(default_factory=dict)
    claimed: dict = field(default_factory=dict)
    evaluation: EvaluationStatement = field(default_factory=EvaluationStatement)
    reproduces: int | str | None = None  # an entry id on this board, or a DAWNBench file stem


def check_entry(
    document: dict, *, track: Track, rules_by_version: Mapping[str, TaskRules]
) -> tuple[EntryDocument | None, TaskRules | None, list[Issue], list[Issue]]:
    """Check every field; return the entry and the rules it is judged by, or the errors found.

    Returns:
        (entry, rules, errors, warnings): entry is None when there are errors; rules is None only when
        the version is unknown, so that the log can still be checked against a known version.
    """
    errors: list[Issue] = []
    warnings: list[Issue] = []
    errors.extend(_unstorable_values(document))
    if errors and errors[0].code == ErrorCode.INVALID_JSON:
        return None, None, errors, warnings

    text_values: dict[str, str] = {}
    for name in REQUIRED_TEXT_FIELDS:
        value = document.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            errors.append(
                Issue(ErrorCode.MISSING_FIELD, f"The required field '{name}' is missing or empty.", field=name)
            )
        elif not isinstance(value, str):
            errors.append(_wrong_type(name, value, "a string"))
        else:
            text_values[name] = value.strip()
    for name in OPTIONAL_TEXT_FIELDS:
        value = document.get(name)
        if value is not None and not isinstance(value, str):
            errors.append(_wrong_type(name, value, "a string"))
        else:
            text_values[name] = (value or "").strip()
    for name, value in text_values.items():
        limit = MAX_URL_LENGTH if name == "codeURL" else MAX_TEXT_LENGTH
        if len(value) > limit:
            errors.append(
                Issue(ErrorCode.TEXT_TOO_LONG, f"'{name}' is {len(value)} characters; at most {limit}.", field=name)
            )
    if text_values.get("codeURL") and not _has_error(errors, "codeURL"):
        _check_code_url(text_values["codeURL"], errors)

    used_blacklist = _used_blacklist(document, errors)
    reproduces = _reproduces(document, errors)

    entry_date = None
    if "timestamp" in text_values:
        entry_date = _parse_date(text_values["timestamp"], errors, warnings)

    rules = None
    if "version" in text_values:
        rules = rules_by_version.get(text_values["version"])
        if rules is None:
            known = ", ".join(sorted(rules_by_version)) or "none"
            errors.append(
                Issue(
                    ErrorCode.UNKNOWN_VERSION,
                    f"Unknown version '{shown(text_values['version'])}'; this task accepts: {known}.",
                    field="version",
                )
            )

    # Fields are read by the named version's rules; when it is unknown, by any version's, to say more.
    some_rules = rules or next(iter(rules_by_version.values()), None)
    numbers = {name: _number(document, name, errors) for name in OPTIONAL_NUMBER_FIELDS}
    accuracy = None
    expected_fields = set(KNOWN_FIELDS) | set(some_rules.documented_fields if some_rules else ())
    if track == Track.INFERENCE:
        for name in INFERENCE_NUMBER_FIELDS:
            numbers[name] = _number(document, name, errors)
        if numbers["latency"] is None and numbers["cost"] is None and not _has_error(errors, "latency", "cost"):
            errors.append(
                Issue(
                    ErrorCode.MISSING_LATENCY_AND_COST,
                    "An inference entry needs 'latency' (ms per item) or 'cost' (USD per item), or both.",
                    field="latency",
                )
            )
        if some_rules is not None:
            expected_fields.update(INFERENCE_NUMBER_FIELDS, some_rules.inference_fields)
            accuracy = _inference_accuracy(document, some_rules, rules, errors, warnings)

    unknown = sorted(set(document) - expected_fields)
    if unknown:
        warnings.append(
            Issue(
                WarningCode.UNKNOWN_FIELDS,
                f"Fields the task's DAWNBench format does not document were kept as submitted: {listed(unknown)}.",
                field=unknown[0],
            )
        )
    if track == Track.INFERENCE and not errors:
        _check_cost_consistency(numbers, warnings)
    if errors:
        return None, rules, errors, warnings

    entry = EntryDocument(
        version=text_values["version"],
        author=text_values["author"],
        author_email=text_values["authorEmail"],
        framework=text_values["framework"],
        model=text_values["model"],
        hardware=text_values["hardware"],
        date=entry_date,
        code_url=text_values["codeURL"],
        commit_hash=text_values["commitHash"],
        log_filename=text_values["logFilename"],
        cost_per_hour_usd=numbers["costPerHour"],
        latency_ms=numbers.get("latency"),
        cost_usd_per_item=numbers.get("cost"),
        accuracy=accuracy,
        misc=plain_json(document.get("misc")),
        extra_fields={name: plain_json(document[name]) for name in unknown},
        claimed=plain_json(document),
        evaluation=evaluation_statement(
            {
                EVALUATION_SPLIT_FIELD: text_values[EVALUATION_SPLIT_FIELD],
                # Exclusions stated, even as "": what was evaluated is said (null counts as absent).
                EVALUATION_EXCLUSIONS_FIELD: text_values[EVALUATION_EXCLUSIONS_FIELD]
                if document.get(EVALUATION_EXCLUSIONS_FIELD) is not None
                else None,
                USED_BLACKLIST_FIELD: used_blacklist,
            }
        ),
        reproduces=reproduces,
    )
    return entry, rules, errors, warnings


def _used_blacklist(document: dict, errors: list[Issue]) -> bool | None:
    """DAWNBench ImageNet's `usedBlacklist`: a boolean (also written "true" or "false"); None when absent."""
    value = document.get(USED_BLACKLIST_FIELD)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    errors.append(_wrong_type(USED_BLACKLIST_FIELD, value, "true or false"))
    return None


def _reproduces(document: dict, errors: list[Issue]) -> int | str | None:
    """`reproduces`: the id of an entry on this board (a positive integer) or a DAWNBench file stem (text)."""
    value = document.get(REPRODUCES_FIELD)
    if value is None:
        return None
    if isinstance(value, (int, Decimal)) and not isinstance(value, bool) and value == int(value) and 0 < value < 2**63:
        return int(value)
    if isinstance(value, str) and value.strip() and len(value) <= 255:
        return value.strip()
    errors.append(_wrong_type(REPRODUCES_FIELD, value, "an entry's id (a positive integer) or a file stem (text)"))
    return None


def _unstorable_values(document: dict) -> list[Issue]:
    """NaN/Infinity literals, numbers too large to store, text no database can store, and nesting too deep.

    Walks the document without recursion, so a hostile depth cannot exhaust the stack. Past
    MAX_ISSUES_PER_CODE of a code it only counts, and a value's path is spelled out only for an issue
    (a long key over a long list would otherwise be copied into every item's path): the walk costs
    time and memory in proportion to the document, whatever it holds.
    """
    found = IssueCounter()
    pending: list[tuple[Any, int, _Step | None]] = [(document, 0, None)]
    while pending:
        value, depth, step = pending.pop()
        if depth > MAX_JSON_DEPTH:
            return [Issue(ErrorCode.INVALID_JSON, f"The entry is nested more than {MAX_JSON_DEPTH} levels deep.")]
        if isinstance(value, NonFiniteNumber):
            if found.wants(ErrorCode.NON_FINITE_NUMBER):
                path = _path(step)
                found.listed.append(
                    Issue(ErrorCode.NON_FINITE_NUMBER, f"'{path}' is {value!s}; numbers must be finite.", field=path)
                )
        elif _too_large_to_store(value):
            if found.wants(ErrorCode.NUMBER_OUT_OF_RANGE):
                path = _path(step)
                found.listed.append(
                    Issue(
                        ErrorCode.NUMBER_OUT_OF_RANGE,
                        f"'{path}' = {shown(value)} is too large to be a real figure.",
                        field=path,
                    )
                )
        elif isinstance(value, str) and (problem := _unstorable_text(value)):
            if found.wants(ErrorCode.INVALID_TEXT):
                path = _path(step)
                found.listed.append(Issue(ErrorCode.INVALID_TEXT, f"'{path}' contains {problem}.", field=path))
        elif isinstance(value, dict):
            for key in value:
                if (problem := _unstorable_text(key)) and found.wants(ErrorCode.INVALID_TEXT):
                    path = _path(step)
                    message = f"A key of '{path or 'the entry'}' contains {problem}."
                    found.listed.append(Issue(ErrorCode.INVALID_TEXT, message, field=path))
            pending.extend((item, depth + 1, (step, key)) for key, item in value.items())
        elif isinstance(value, list):
            pending.extend((item, depth + 1, (step, index)) for index, item in enumerate(value))
    found.listed.sort(key=lambda issue: issue.field or "")
    return found.issues()


# Where a value stands in the document: (the step to its parent, its key or index), None for the document.
_Step = tuple[Any, str | int]


def _path(step: _Step | None) -> str:
    """The path of a value, as `misc.runs[3].loss`; a very long one is cut short in the middle."""
    parts: list[str] = []
    while step is not None:
        step, key = step
        parts.append(f"[{key}]" if isinstance(key, int) else f".{key}")
    path = "".join(reversed(parts)).removeprefix(".")
    if len(path) <= MAX_PATH_CHARACTERS:
        return path
    half = (MAX_PATH_CHARACTERS - 3) // 2
    return f"{path[:half]}...{path[-half:]}"


def _too_large_to_store(value: Any) -> bool:
    """Whether a number is past MAX_STORED_NUMBER, decided without arithmetic (`abs` rounds, and can overflow)."""
    if isinstance(value, OutOfRangeNumber):
        return True
    if isinstance(value, Decimal):
        return value.copy_abs() > MAX_STORED_NUMBER  # copy_abs is exact and ignores the context
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_STORED_NUMBER


def _unstorable_text(text: str) -> str | None:
    """What makes a string unstorable: a NUL, or a lone surrogate (JSON can escape one; no UTF-8 can hold it)."""
    if "\x00" in text:
        return "a NUL character"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "a lone surrogate (\\ud800 to \\udfff), which is not text"
    return None


def _wrong_type(name: str, value: Any, expected: str) -> Issue:
    return Issue(ErrorCode.WRONG_TYPE, f"'{name}' must be {expected}, not {_json_type(value)}.", field=name)


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float, Decimal, OutOfRangeNumber)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return "null"


def _has_error(errors: list[Issue], *names: str) -> bool:
    return any(issue.field in names for issue in errors)


def _parse_date(text: str, errors: list[Issue], warnings: list[Issue]) -> datetime.date | None:
    """A real calendar date written year-month-day; without zero padding (2019-6-27) it is read, with a warning."""
    match = DATE_PATTERN.match(text)
    try:
        if match is None:
            raise ValueError
        date = datetime.date(*(int(part) for part in match.groups()))
    except ValueError:
        errors.append(
            Issue(
                ErrorCode.INVALID_DATE,
                f"'timestamp' must be a date written yyyy-mm-dd, not '{shown(text)}'.",
                field="timestamp",
            )
        )
        return None
    if text != date.isoformat():
        warnings.append(
            Issue(
                WarningCode.DATE_NOT_PADDED,
                f"'timestamp' '{text}' is not zero-padded; it was read as {date.isoformat()}.",
                field="timestamp",
            )
        )
    return date


def _number(document: dict, name: str, errors: list[Issue]) -> Decimal | None:
    """A non-negative finite number, or None when absent or null; errors are appended."""
    value = document.get(name)
    if value is None or isinstance(value, (NonFiniteNumber, OutOfRangeNumber)) or _has_error(errors, name):
        return None  # absent, or already reported
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        errors.append(_wrong_type(name, value, "a number"))
        return None
    number = Decimal(value)  # exact for an int; the comparisons below are exact too, whatever the exponent
    if number < 0:
        errors.append(
            Issue(ErrorCode.NEGATIVE_NUMBER, f"'{name}' must not be negative (got {shown(value)}).", field=name)
        )
        return None
    if number > MAX_ENTRY_NUMBER or 0 < number < MIN_ENTRY_NUMBER:
        errors.append(
            Issue(
                ErrorCode.NUMBER_OUT_OF_RANGE,
                f"'{name}' = {shown(value)} is beyond any real figure (between {MIN_ENTRY_NUMBER:.0e} and "
                f"{MAX_ENTRY_NUMBER:.0e}, or 0).",
                field=name,
            )
        )
        return None
    return number


def _inference_accuracy(
    document: dict, some_rules: TaskRules, rules: TaskRules | None, errors: list[Issue], warnings: list[Issue]
) -> Decimal | None:
    """The quality an inference entry claims, in the task's scale, checked against the threshold."""
    name = next((candidate for candidate in some_rules.inference_fields if document.get(candidate) is not None), None)
    if name is None:
        if not _has_error(errors, *some_rules.inference_fields):
            fields = " or ".join(f"'{candidate}'" for candidate in some_rules.inference_fields)
            errors.append(
                Issue(
                    ErrorCode.MISSING_FIELD,
                    f"An inference entry must state the {some_rules.metric_label} it reaches, in {fields}.",
                    field=some_rules.inference_fields[0],
                )
            )
        return None
    value = _number(document, name, errors)
    if value is None:
        return None
    if some_rules.scale == FRACTION and Decimal(1) < value <= Decimal(100):
        warnings.append(
            Issue(
                WarningCode.METRIC_PERCENT_CONVERTED,
                f"'{name}' = {shown(value)} read as a percent and converted to the fraction {shown(value / 100)}.",
                field=name,
            )
        )
        value = value / 100
    if value > Decimal(str(some_rules.upper_bound)):
        errors.append(
            Issue(
                ErrorCode.METRIC_OUT_OF_RANGE,
                f"'{name}' = {shown(value)} is outside the range of {some_rules.metric_label} "
                f"(0 to {some_rules.upper_bound:g}).",
                field=name,
            )
        )
        return None
    if rules is not None and value < rules.threshold:
        errors.append(
            Issue(
                ErrorCode.ACCURACY_BELOW_THRESHOLD,
                f"'{name}' = {shown(value)} is below the {rules.task_slug} {rules.version} threshold of "
                f"{display.threshold(rules.threshold, rules.scale)}.",
                field=name,
            )
        )
    return value


def _check_cost_consistency(numbers: dict[str, Decimal | None], warnings: list[Issue]) -> None:
    """DAWNBench defines cost per item as price per hour x latency; flag entries whose figures disagree."""
    cost, latency, cost_per_hour = numbers.get("cost"), numbers.get("latency"), numbers.get("costPerHour")
    if cost is None or latency is None or cost_per_hour is None:
        return
    expected = inference_cost_usd_per_item(latency_ms=latency, usd_per_hour=cost_per_hour)
    if expected == 0 and cost == 0:
        return
    if expected == 0 or abs(cost - expected) / expected > COST_TOLERANCE:
        warnings.append(
            Issue(
                WarningCode.COST_MISMATCH,
                f"'cost' = {shown(cost)} USD per item disagrees by more than 1 % with costPerHour x latency = "
                f"{expected:.6e}.",
                field="cost",
            )
        )


def _check_code_url(url: str, errors: list[Issue]) -> None:
    if not is_web_link(url):
        errors.append(
            Issue(
                ErrorCode.INVALID_URL,
                f"'codeURL' must be an absolute http:// or https:// link with a host, such as "
                f"https://github.com/you/your-repo, without spaces; not '{shown(url)}'.",
                field="codeURL",
            )
        )
