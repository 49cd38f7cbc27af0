"""Parse and check a DAWNBench v1.0 entry document (the JSON file)."""

from __future__ import annotations

import datetime
import json
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from leaderboard.ingest.errors import ErrorCode, Issue, RejectedInput, WarningCode
from leaderboard.ingest.rules import FRACTION, TaskRules
from leaderboard.ingest.scoring import inference_cost_usd_per_item
from leaderboard.ingest.text import decode_utf8

REQUIRED_TEXT_FIELDS = ("version", "author", "authorEmail", "framework", "model", "hardware", "timestamp")
OPTIONAL_TEXT_FIELDS = ("codeURL", "commitHash", "logFilename")
OPTIONAL_NUMBER_FIELDS = ("costPerHour",)
INFERENCE_NUMBER_FIELDS = ("latency", "cost")
KNOWN_FIELDS = frozenset(REQUIRED_TEXT_FIELDS + OPTIONAL_TEXT_FIELDS + OPTIONAL_NUMBER_FIELDS + ("misc",))
DATE_PATTERN = re.compile(r"^\d{4}-\d{2}-\d{2}$")
COST_TOLERANCE = Decimal("0.01")
MAX_JSON_DEPTH = 64
MAX_TEXT_LENGTH = 500  # per text field; the database columns are sized to match
MAX_URL_LENGTH = 2000
# Far above any real price (USD per hour or per item) or latency (ms), and small enough that the
# products Dawnboard computes stay exact and fit the database.
MAX_ENTRY_NUMBER = Decimal("1e9")
MIN_ENTRY_NUMBER = Decimal("1e-15")  # smallest non-zero price or latency taken as a real figure
MAX_STORED_NUMBER = Decimal("1e300")


class _NonFinite(float):
    """Marks a NaN/Infinity literal so it can be reported with its field name."""


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


def parse_entry_document(raw: bytes) -> dict:
    """Decode and parse the JSON, refusing what is not a UTF-8 JSON object."""
    text, _ = decode_utf8(raw, what="entry")
    try:
        document = json.loads(text, parse_float=Decimal, parse_constant=lambda name: _NonFinite(name))
    except json.JSONDecodeError as error:
        raise RejectedInput(
            Issue(ErrorCode.INVALID_JSON, f"The entry is not valid JSON: {error.msg}.", line=error.lineno)
        ) from None
    except (ValueError, ArithmeticError, RecursionError) as error:  # huge integers or exponents; absurd nesting
        raise RejectedInput(Issue(ErrorCode.INVALID_JSON, f"The entry cannot be read as JSON: {error}.")) from None
    if not isinstance(document, dict):
        raise RejectedInput(
            Issue(ErrorCode.NOT_OBJECT, f"The entry must be a JSON object, not a {type(document).__name__}.")
        )
    return document


def check_entry(
    document: dict, *, track: str, rules_by_version: dict[str, TaskRules]
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

    entry_date = None
    if "timestamp" in text_values:
        entry_date = _parse_date(text_values["timestamp"], errors)

    rules = None
    if "version" in text_values:
        rules = rules_by_version.get(text_values["version"])
        if rules is None:
            known = ", ".join(sorted(rules_by_version)) or "none"
            errors.append(
                Issue(
                    ErrorCode.UNKNOWN_VERSION,
                    f"Unknown version '{text_values['version']}'; this task accepts: {known}.",
                    field="version",
                )
            )

    numbers = {name: _number(document, name, errors) for name in OPTIONAL_NUMBER_FIELDS}
    accuracy = None
    expected_fields = set(KNOWN_FIELDS)
    if track == "inference":
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
        some_rules = rules or next(iter(rules_by_version.values()), None)
        if some_rules is not None:
            expected_fields.update(INFERENCE_NUMBER_FIELDS, some_rules.inference_fields)
            accuracy = _inference_accuracy(document, some_rules, rules, errors, warnings)

    unknown = sorted(set(document) - expected_fields)
    if unknown:
        warnings.append(
            Issue(
                WarningCode.UNKNOWN_FIELDS,
                f"Fields not in the DAWNBench v1.0 format were kept as submitted: {', '.join(unknown)}.",
                field=unknown[0],
            )
        )
    if track == "inference" and not errors:
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
        misc=json_safe(document.get("misc")),
        extra_fields={name: json_safe(document[name]) for name in unknown},
        claimed=json_safe(document),
    )
    return entry, rules, errors, warnings


def json_safe(value: Any) -> Any:
    """Turn the Decimals of a parsed document back into plain JSON numbers for storage."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_safe(item) for item in value]
    return value


def _unstorable_values(document: dict) -> list[Issue]:
    """NaN/Infinity literals, numbers too large to store, NUL characters, and nesting too deep to process.

    Walks the document without recursion, so a hostile depth cannot exhaust the stack.
    """
    issues: list[Issue] = []
    pending: list[tuple[str, Any, int]] = [("", document, 0)]
    while pending:
        path, value, depth = pending.pop()
        if depth > MAX_JSON_DEPTH:
            return [Issue(ErrorCode.INVALID_JSON, f"The entry is nested more than {MAX_JSON_DEPTH} levels deep.")]
        if isinstance(value, _NonFinite):
            issues.append(
                Issue(ErrorCode.NON_FINITE_NUMBER, f"'{path}' is {value!s}; numbers must be finite.", field=path)
            )
        elif isinstance(value, (int, Decimal)) and not isinstance(value, bool) and abs(value) > MAX_STORED_NUMBER:
            issues.append(
                Issue(ErrorCode.NUMBER_OUT_OF_RANGE, f"'{path}' is too large to be a real figure.", field=path)
            )
        elif isinstance(value, str) and "\x00" in value:
            issues.append(Issue(ErrorCode.INVALID_TEXT, f"'{path}' contains a NUL character.", field=path))
        elif isinstance(value, dict):
            issues.extend(
                Issue(ErrorCode.INVALID_TEXT, f"A key of '{path or 'the entry'}' contains a NUL character.", field=path)
                for key in value
                if "\x00" in key
            )
            pending.extend((_join(path, key), item, depth + 1) for key, item in value.items())
        elif isinstance(value, list):
            pending.extend((f"{path}[{i}]", item, depth + 1) for i, item in enumerate(value))
    return sorted(issues, key=lambda issue: issue.field or "")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _wrong_type(name: str, value: Any, expected: str) -> Issue:
    return Issue(ErrorCode.WRONG_TYPE, f"'{name}' must be {expected}, not {_json_type(value)}.", field=name)


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float, Decimal)):
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


def _parse_date(text: str, errors: list[Issue]) -> datetime.date | None:
    try:
        if not DATE_PATTERN.match(text):
            raise ValueError
        return datetime.date.fromisoformat(text)
    except ValueError:
        errors.append(
            Issue(
                ErrorCode.INVALID_DATE,
                f"'timestamp' must be a date written yyyy-mm-dd, not '{text}'.",
                field="timestamp",
            )
        )
        return None


def _number(document: dict, name: str, errors: list[Issue]) -> Decimal | None:
    """A non-negative finite number, or None when absent or null; errors are appended."""
    value = document.get(name)
    if value is None or isinstance(value, _NonFinite) or _has_error(errors, name):
        return None  # absent, or already reported
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        errors.append(_wrong_type(name, value, "a number"))
        return None
    number = Decimal(value)
    if number < 0:
        errors.append(Issue(ErrorCode.NEGATIVE_NUMBER, f"'{name}' must not be negative (got {value}).", field=name))
        return None
    if number > MAX_ENTRY_NUMBER or 0 < number < MIN_ENTRY_NUMBER:
        errors.append(
            Issue(
                ErrorCode.NUMBER_OUT_OF_RANGE,
                f"'{name}' = {value} is beyond any real figure (between {MIN_ENTRY_NUMBER:.0e} and "
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
                f"'{name}' = {value} read as a percent and converted to the fraction {value / 100}.",
                field=name,
            )
        )
        value = value / 100
    if value > Decimal(str(some_rules.upper_bound)):
        errors.append(
            Issue(
                ErrorCode.METRIC_OUT_OF_RANGE,
                f"'{name}' = {value} is outside the range of {some_rules.metric_label} "
                f"(0 to {some_rules.upper_bound:g}).",
                field=name,
            )
        )
        return None
    if rules is not None and value < rules.threshold:
        errors.append(
            Issue(
                ErrorCode.ACCURACY_BELOW_THRESHOLD,
                f"'{name}' = {value} is below the {rules.task_slug} {rules.version} threshold of {rules.threshold}.",
                field=name,
            )
        )
    return value


def _check_cost_consistency(numbers: dict[str, Decimal | None], warnings: list[Issue]) -> None:
    """DAWNBench defines cost per item as price per hour x latency; flag entries whose figures disagree."""
    cost, latency, cost_per_hour = numbers.get("cost"), numbers.get("latency"), numbers.get("costPerHour")
    if cost is None or latency is None or cost_per_hour is None:
        return
    expected = inference_cost_usd_per_item(cost_per_hour_usd=cost_per_hour, latency_ms=latency)
    if expected == 0 and cost == 0:
        return
    if expected == 0 or abs(cost - expected) / expected > COST_TOLERANCE:
        warnings.append(
            Issue(
                WarningCode.COST_MISMATCH,
                f"'cost' = {cost} USD per item disagrees by more than 1 % with costPerHour x latency = {expected:.6e}.",
                field="cost",
            )
        )
