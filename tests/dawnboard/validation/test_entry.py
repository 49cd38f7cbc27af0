"""The entry JSON: what is accepted, with which warning, and what is rejected with which code and field."""

from __future__ import annotations

import datetime
import json
from decimal import Decimal

import pytest

from dawnboard.documents import NonFiniteNumber
from dawnboard.errors import MAX_ISSUES_PER_CODE, ErrorCode, WarningCode
from dawnboard.formats.dawnbench.entry import MAX_ENTRY_BYTES
from dawnboard.rules import Track
from dawnboard.validation import IngestRejection, IngestResult
from dawnboard.validation.entry import check_entry

REQUIRED_FIELDS = ("version", "author", "authorEmail", "framework", "model", "hardware", "timestamp")


def error_codes(result) -> list[str]:
    assert not result.accepted, "expected a rejection"
    return [issue.code for issue in result.errors]


def warning_codes(result) -> list[str]:
    return [issue.code for issue in result.warnings]


def the_error(result, code: str):
    matching = [issue for issue in result.errors if issue.code == code]
    assert len(matching) == 1, f"expected one {code} in {error_codes(result)}"
    return matching[0]


# Accepted ------------------------------------------------------------------------------------------------


def test_accepts_a_valid_training_entry(submit):
    result = submit()

    assert result.accepted
    assert result.warnings == []
    assert result.entry.author == "Stanford DAWN"
    assert result.entry.date == datetime.date(2018, 4, 20)
    assert result.entry.cost_per_hour_usd == Decimal("3.06")


def test_accepts_an_entry_with_a_byte_order_mark(submit, entry_json):
    result = submit(entry=b"\xef\xbb\xbf" + entry_json())

    assert result.accepted
    assert result.entry.version == "v1.0"


def test_warns_about_unknown_fields_and_keeps_them(submit, entry_json):
    result = submit(entry=entry_json(gpuCount=8, notes="spot instance"))

    assert result.accepted
    assert warning_codes(result) == [WarningCode.UNKNOWN_FIELDS]
    assert result.warnings[0].field == "gpuCount"
    assert result.entry.extra_fields == {"gpuCount": 8, "notes": "spot instance"}


def test_accepts_null_optional_fields_as_absent(submit, entry_json):
    result = submit(entry=entry_json(codeURL=None, commitHash=None, logFilename=None, costPerHour=None, misc=None))

    assert result.accepted
    assert result.warnings == []
    assert result.entry.code_url == ""
    assert result.entry.commit_hash == ""
    assert result.entry.cost_per_hour_usd is None
    assert result.entry.misc is None
    assert result.results.training_cost_usd is None


def test_accepts_null_inference_cost_when_latency_is_given(submit, entry_json):
    result = submit(track="inference", entry=entry_json(track="inference", cost=None))

    assert result.accepted
    assert result.results.latency_ms == 10.0
    assert result.results.inference_cost_usd_per_10k is None


def test_accepts_null_inference_latency_when_cost_is_given(submit, entry_json):
    result = submit(track="inference", entry=entry_json(track="inference", latency=None))

    assert result.accepted
    assert result.results.latency_ms is None
    assert result.results.inference_cost_usd_per_10k == Decimal("8.5E-6") * 10_000


def test_trims_spaces_around_text_fields(submit, entry_json):
    result = submit(entry=entry_json(author="  Stanford DAWN ", timestamp=" 2018-04-20 "))

    assert result.accepted
    assert result.entry.author == "Stanford DAWN"
    assert result.entry.date == datetime.date(2018, 4, 20)


# Rejected: the document itself ---------------------------------------------------------------------------


def test_rejects_invalid_json(submit):
    result = submit(entry=b'{\n  "version": "v1.0",\n  "author": \n}')

    assert error_codes(result) == [ErrorCode.INVALID_JSON]
    assert result.errors[0].field == "entry"
    assert result.errors[0].line == 4


def test_rejects_an_empty_entry_file_as_invalid_json(submit):
    result = submit(entry=b"")

    assert error_codes(result) == [ErrorCode.INVALID_JSON]


@pytest.mark.parametrize("document", [b"[]", b'"v1.0"', b"42", b"null", b"true"])
def test_rejects_a_document_that_is_not_an_object(submit, document):
    result = submit(entry=document)

    assert error_codes(result) == [ErrorCode.NOT_OBJECT]
    assert result.errors[0].field == "entry"


def test_rejects_an_entry_that_is_not_utf8(submit, entry_json):
    entry = entry_json(author="Jos\u00e9").replace(b"Jos\\u00e9", b"Jos\xe9")  # Latin-1, as some editors save

    result = submit(entry=entry)

    assert error_codes(result) == [ErrorCode.NOT_UTF8]
    assert result.errors[0].field == "entry"


def test_rejects_an_entry_with_no_file(submit):
    result = submit(entry=None)

    assert error_codes(result) == [ErrorCode.MISSING_FILE]
    assert result.errors[0].field == "entry"


# Rejected: fields -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", REQUIRED_FIELDS)
def test_rejects_each_missing_required_field(submit, entry_json, name):
    result = submit(entry=entry_json(without=[name]))

    assert error_codes(result) == [ErrorCode.MISSING_FIELD]
    assert result.errors[0].field == name


@pytest.mark.parametrize("value", [None, "", "   "])
def test_rejects_a_null_or_blank_required_field(submit, entry_json, value):
    result = submit(entry=entry_json(model=value))

    assert error_codes(result) == [ErrorCode.MISSING_FIELD]
    assert result.errors[0].field == "model"


def test_reports_every_field_error_at_once(submit, entry_json):
    result = submit(entry=entry_json(without=["author"], timestamp="2018-13-01", costPerHour=-1))

    assert sorted(error_codes(result)) == sorted(
        [ErrorCode.MISSING_FIELD, ErrorCode.INVALID_DATE, ErrorCode.NEGATIVE_NUMBER]
    )


@pytest.mark.parametrize(
    "timestamp",
    [
        "2018-13-01",
        "20180420",
        "2018-4-31",
        "2018-02-30",
        "0000-1-1",
        "April 20, 2018",
        "2018-04-20T10:00",
        "18-4-2",
        "\u0662\u0660\u0661\u0669-\u0660\u0666-\u0662\u0667",  # the last in Arabic-Indic digits
    ],
)
def test_rejects_a_bad_date(submit, entry_json, timestamp):
    result = submit(entry=entry_json(timestamp=timestamp))

    assert error_codes(result) == [ErrorCode.INVALID_DATE]
    assert result.errors[0].field == "timestamp"


@pytest.mark.parametrize(("timestamp", "date"), [("2019-6-27", "2019-06-27"), ("2018-4-2", "2018-04-02")])
def test_accepts_a_real_date_without_zero_padding_with_a_warning(submit, entry_json, timestamp, date):
    result = submit(entry=entry_json(timestamp=timestamp))

    assert result.accepted, result.errors
    assert warning_codes(result) == [WarningCode.DATE_NOT_PADDED]
    assert result.warnings[0].field == "timestamp"
    assert result.entry.date.isoformat() == date


def test_rejects_a_lone_surrogate_that_json_can_escape_but_no_text_can_hold(submit):
    result = submit(
        entry=b'{"version": "v1.0", "author": "Team \\ud800", "authorEmail": "a@b.c", "framework": "f",'
        b' "model": "m", "hardware": "h", "timestamp": "2018-04-20"}'
    )

    assert error_codes(result) == [ErrorCode.INVALID_TEXT]
    assert result.errors[0].field == "author"


def test_rejects_an_unknown_version(submit, entry_json):
    result = submit(entry=entry_json(version="v2.0"))

    assert error_codes(result) == [ErrorCode.UNKNOWN_VERSION]
    assert result.errors[0].field == "version"


def test_rejects_a_cost_per_hour_written_as_a_string(submit, entry_json):
    result = submit(entry=entry_json(costPerHour="3.06"))

    assert error_codes(result) == [ErrorCode.WRONG_TYPE]
    assert result.errors[0].field == "costPerHour"


def test_rejects_a_boolean_latency(submit, entry_json):
    result = submit(track="inference", entry=entry_json(track="inference", latency=True))

    assert error_codes(result) == [ErrorCode.WRONG_TYPE]
    assert result.errors[0].field == "latency"


def test_rejects_a_numeric_author(submit, entry_json):
    result = submit(entry=entry_json(author=42))

    assert error_codes(result) == [ErrorCode.WRONG_TYPE]
    assert result.errors[0].field == "author"


def test_rejects_a_non_text_optional_field(submit, entry_json):
    result = submit(entry=entry_json(codeURL=["https://github.com/example"]))

    assert error_codes(result) == [ErrorCode.WRONG_TYPE]
    assert result.errors[0].field == "codeURL"


@pytest.mark.parametrize(("track", "name"), [("train", "costPerHour"), ("inference", "latency"), ("inference", "cost")])
def test_rejects_a_negative_number(submit, entry_json, track, name):
    result = submit(track=track, entry=entry_json(track=track, **{name: -0.5}))

    assert error_codes(result) == [ErrorCode.NEGATIVE_NUMBER]
    assert result.errors[0].field == name


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_rejects_a_non_finite_number_literal(submit, entry_json, literal):
    entry = entry_json(costPerHour=1.5).replace(b"1.5", literal.encode())

    result = submit(entry=entry)

    assert error_codes(result) == [ErrorCode.NON_FINITE_NUMBER]
    assert result.errors[0].field == "costPerHour"


def test_rejects_a_non_finite_number_nested_in_misc(submit, entry_json):
    entry = entry_json(misc={"schedule": [0.1, 1.5]}).replace(b"1.5", b"NaN")

    result = submit(entry=entry)

    assert error_codes(result) == [ErrorCode.NON_FINITE_NUMBER]
    assert result.errors[0].field == "misc.schedule[1]"


# Inference entries ----------------------------------------------------------------------------------------


def test_accepts_a_valid_inference_entry(submit):
    result = submit(track="inference")

    assert result.accepted
    assert result.warnings == []
    assert result.entry.latency_ms == Decimal("10.0")
    assert result.results.accuracy == 94.5


def test_accepts_the_accuracy_under_its_alternative_name(submit, entry_json):
    entry = entry_json(track="inference", without=["top1Accuracy"], accuracy=95.1)

    result = submit(track="inference", entry=entry)

    assert result.accepted
    assert result.warnings == []
    assert result.results.accuracy == 95.1


def test_rejects_inference_accuracy_below_the_threshold(submit, entry_json):
    result = submit(track="inference", entry=entry_json(track="inference", top1Accuracy=93.99))

    assert error_codes(result) == [ErrorCode.ACCURACY_BELOW_THRESHOLD]
    assert result.errors[0].field == "top1Accuracy"


def test_accepts_inference_accuracy_exactly_at_the_threshold(submit, entry_json):
    result = submit(track="inference", entry=entry_json(track="inference", top1Accuracy=94.0))

    assert result.accepted


def test_rejects_inference_accuracy_out_of_range(submit, entry_json):
    result = submit(track="inference", entry=entry_json(track="inference", top1Accuracy=101))

    assert error_codes(result) == [ErrorCode.METRIC_OUT_OF_RANGE]
    assert result.errors[0].field == "top1Accuracy"


def test_rejects_an_inference_entry_without_accuracy(submit, entry_json):
    result = submit(track="inference", entry=entry_json(track="inference", without=["top1Accuracy"]))

    assert error_codes(result) == [ErrorCode.MISSING_FIELD]
    assert result.errors[0].field == "top1Accuracy"


def test_rejects_an_inference_entry_with_neither_latency_nor_cost(submit, entry_json):
    result = submit(track="inference", entry=entry_json(track="inference", without=["latency", "cost"]))

    assert error_codes(result) == [ErrorCode.MISSING_LATENCY_AND_COST]


def test_rejects_an_inference_entry_with_null_latency_and_cost(submit, entry_json):
    result = submit(track="inference", entry=entry_json(track="inference", latency=None, cost=None))

    assert error_codes(result) == [ErrorCode.MISSING_LATENCY_AND_COST]


def test_converts_a_squad_inference_f1_written_as_a_percent(submit, entry_json):
    result = submit(task="squad", track="inference", entry=entry_json(task="squad", track="inference", f1Score=80.5))

    assert result.accepted
    assert warning_codes(result) == [WarningCode.METRIC_PERCENT_CONVERTED]
    assert result.warnings[0].field == "f1Score"
    assert result.entry.accuracy == Decimal("0.805")
    assert result.results.accuracy == 0.805


def test_rejects_a_squad_inference_f1_percent_below_the_threshold(submit, entry_json):
    result = submit(task="squad", track="inference", entry=entry_json(task="squad", track="inference", f1Score=70))

    assert error_codes(result) == [ErrorCode.ACCURACY_BELOW_THRESHOLD]
    assert warning_codes(result) == [WarningCode.METRIC_PERCENT_CONVERTED]


def test_accepts_a_squad_inference_f1_as_a_fraction_without_warning(submit, entry_json):
    result = submit(task="squad", track="inference", entry=entry_json(task="squad", track="inference", f1Score=0.805))

    assert result.accepted
    assert result.warnings == []
    assert result.entry.accuracy == Decimal("0.805")


def test_warns_when_inference_cost_disagrees_with_price_times_latency(submit, entry_json):
    # costPerHour 3.06 x latency 10 ms = 8.5e-6 USD per item; 2 % more is a mismatch.
    result = submit(track="inference", entry=entry_json(track="inference", cost=8.67e-06))

    assert result.accepted
    assert warning_codes(result) == [WarningCode.COST_MISMATCH]
    assert result.warnings[0].field == "cost"
    assert result.results.inference_cost_usd_per_10k == Decimal("8.67E-6") * 10_000


@pytest.mark.parametrize("cost", [8.5e-06, 8.58e-06, 8.42e-06])
def test_accepts_inference_cost_within_one_percent_without_warning(submit, entry_json, cost):
    result = submit(track="inference", entry=entry_json(track="inference", cost=cost))

    assert result.accepted
    assert result.warnings == []


def test_does_not_check_inference_cost_without_a_price_per_hour(submit, entry_json):
    result = submit(track="inference", entry=entry_json(track="inference", without=["costPerHour"], cost=1.0))

    assert result.accepted
    assert result.warnings == []


# Numbers and shapes no real entry has ----------------------------------------------------------------------


def with_raw_numbers(entry: bytes, **literals: str) -> bytes:
    """Write number literals JSON allows but Python's json.dumps would never produce."""
    document = json.loads(entry)
    for index, name in enumerate(literals):
        document[name] = 1000 + index
    raw = json.dumps(document).encode()
    for index, literal in enumerate(literals.values()):
        raw = raw.replace(f": {1000 + index}".encode(), f": {literal}".encode())
    return raw


def test_rejects_a_price_beyond_any_real_figure(submit, entry_json):
    result = submit(entry=entry_json(costPerHour=2e9))

    assert error_codes(result) == [ErrorCode.NUMBER_OUT_OF_RANGE]
    assert result.errors[0].field == "costPerHour"


def test_rejects_inference_numbers_too_large_for_decimal_arithmetic(submit, entry_json):
    entry = with_raw_numbers(entry_json(track="inference"), costPerHour="1e999999", latency="1e999999")

    result = submit(track="inference", entry=entry)

    assert [(issue.code, issue.field) for issue in result.errors] == [
        (ErrorCode.NUMBER_OUT_OF_RANGE, "costPerHour"),
        (ErrorCode.NUMBER_OUT_OF_RANGE, "latency"),
    ]


def test_rejects_a_number_too_large_to_store_anywhere_in_the_entry(submit, entry_json):
    entry = entry_json(misc={"steps": 7}).replace(b'"steps": 7', b'"steps": 1e301')

    result = submit(entry=entry)

    assert error_codes(result) == [ErrorCode.NUMBER_OUT_OF_RANGE]
    assert result.errors[0].field == "misc.steps"


def test_rejects_an_integer_too_long_for_python_naming_its_field(submit, entry_json):
    # Python refuses to convert an integer of over 4,300 digits; that once failed the whole document.
    entry = with_raw_numbers(entry_json(), costPerHour="9" * 5000)

    result = submit(entry=entry)

    assert [(issue.code, issue.field) for issue in result.errors] == [(ErrorCode.NUMBER_OUT_OF_RANGE, "costPerHour")]


def test_rejects_json_nested_too_deep_to_parse(submit, entry_json):
    depth = 100_000
    entry = with_raw_numbers(entry_json(), misc="[" * depth + "]" * depth)

    result = submit(entry=entry)

    assert error_codes(result) == [ErrorCode.INVALID_JSON]


def test_rejects_misc_nested_hundreds_of_levels_deep(submit, entry_json):
    depth = 600
    entry = with_raw_numbers(entry_json(), misc="[" * depth + "]" * depth)

    result = submit(entry=entry)

    assert error_codes(result) == [ErrorCode.INVALID_JSON]


def test_accepts_misc_nested_a_few_levels_deep(submit, entry_json):
    misc = {"optimizer": {"name": "sgd", "schedule": [[0, 0.1], [10, 0.01]]}}

    result = submit(entry=entry_json(misc=misc))

    assert result.accepted
    assert result.entry.misc == misc


def test_rejects_cleanly_a_number_whose_exponent_decimal_cannot_hold(submit, entry_json):
    entry = with_raw_numbers(entry_json(), costPerHour="1e99999999999999999999")

    result = submit(entry=entry)

    assert isinstance(result, IngestRejection)


def test_handles_an_inference_price_too_small_for_decimal_arithmetic(submit, entry_json):
    entry = with_raw_numbers(entry_json(track="inference"), costPerHour="1e-1000010", latency="1", cost="1")

    result = submit(track="inference", entry=entry)

    assert isinstance(result, IngestResult | IngestRejection)


# Hostile numbers: no arithmetic before the magnitude is known ------------------------------------------------

HUGE_LITERALS = ["1e1000000", "-1e1000000", "1e999999999999999999", "1e99999999999999999999", "9" * 5000]


@pytest.mark.parametrize("literal", HUGE_LITERALS)
@pytest.mark.parametrize(
    ("track", "name"),
    [("train", "costPerHour"), ("inference", "latency"), ("inference", "cost"), ("inference", "top1Accuracy")],
)
def test_rejects_a_number_past_any_decimal_context_naming_its_field(submit, entry_json, track, name, literal):
    # 1e1000000 once raised decimal.Overflow in abs(): a 500, and the submission stayed pending.
    entry = with_raw_numbers(entry_json(track=track), **{name: literal})

    result = submit(track=track, entry=entry)

    assert [(issue.code, issue.field) for issue in result.errors] == [(ErrorCode.NUMBER_OUT_OF_RANGE, name)]


@pytest.mark.parametrize("literal", HUGE_LITERALS)
def test_rejects_a_number_past_any_decimal_context_inside_misc(submit, entry_json, literal):
    entry = entry_json(misc={"runs": [{"loss": 7}]}).replace(b'"loss": 7', f'"loss": {literal}'.encode())

    result = submit(entry=entry)

    assert [(issue.code, issue.field) for issue in result.errors] == [
        (ErrorCode.NUMBER_OUT_OF_RANGE, "misc.runs[0].loss")
    ]
    assert len(result.errors[0].message) < 200


@pytest.mark.parametrize("literal", ["1e-1000000", "-1e-1000000", "1e-99999999999999999999"])
def test_rejects_a_price_too_small_for_any_decimal_context(submit, entry_json, literal):
    result = submit(entry=with_raw_numbers(entry_json(), costPerHour=literal))

    assert [issue.code for issue in result.errors] in (
        [ErrorCode.NUMBER_OUT_OF_RANGE],
        [ErrorCode.NEGATIVE_NUMBER],
    )
    assert result.errors[0].field == "costPerHour"


def test_keeps_a_vanishingly_small_number_in_misc_as_zero(submit, entry_json):
    entry = entry_json(misc={"eps": 7}).replace(b'"eps": 7', b'"eps": 1e-1000000')

    result = submit(entry=entry)

    assert result.accepted
    assert result.entry.misc == {"eps": 0.0}


def test_quotes_a_number_of_a_hundred_thousand_digits_briefly(submit, entry_json):
    entry = with_raw_numbers(entry_json(), costPerHour="-0." + "1" * 100_000)

    result = submit(entry=entry)

    assert error_codes(result) == [ErrorCode.NEGATIVE_NUMBER]
    assert len(result.errors[0].message) < 200


# Size and error amplification --------------------------------------------------------------------------------


def test_refuses_an_entry_over_one_mebibyte_before_reading_it(submit, entry_json):
    entry = entry_json(misc={f"k{i}": i for i in range(100_000)})
    assert len(entry) > MAX_ENTRY_BYTES

    result = submit(entry=entry)

    assert error_codes(result) == [ErrorCode.ENTRY_TOO_LARGE]
    assert result.errors[0].field == "entry"
    assert "1,048,576" in result.errors[0].message


def test_refuses_an_entry_too_large_even_when_it_is_not_json(submit):
    result = submit(entry=b"\xff" * (MAX_ENTRY_BYTES + 1))

    assert error_codes(result) == [ErrorCode.ENTRY_TOO_LARGE]


def test_accepts_an_entry_of_exactly_one_mebibyte(submit, entry_json):
    entry = entry_json(misc={"notes": ""})
    entry = entry.replace(b'"notes": ""', b'"notes": "' + b"x" * (MAX_ENTRY_BYTES - len(entry)) + b'"')
    assert len(entry) == MAX_ENTRY_BYTES

    assert submit(entry=entry).accepted


def test_lists_twenty_errors_of_a_code_and_counts_the_rest(submit, entry_json):
    # A million NaNs once gave a million errors: a 110 MB response from a 756 MB worker.
    nans = b"[" + b",".join([b"NaN"] * 200_000) + b"]"
    entry = entry_json(misc={"values": 0}).replace(b'"values": 0', b'"values": ' + nans)

    result = submit(entry=entry)

    assert error_codes(result) == [ErrorCode.NON_FINITE_NUMBER] * 21
    closing = result.errors[-1]
    assert "199,980 more non_finite_number errors not listed" in closing.message
    assert closing.as_dict() == {"code": "non_finite_number", "message": closing.message}


def test_stops_building_errors_past_the_cap_while_checking_the_document(catalog):
    document = {"misc": [NonFiniteNumber("nan")] * 50_000 + [Decimal("1e1000000")] * 50_000}

    _, _, errors, _ = check_entry(document, track=Track.TRAIN, rules_by_version=catalog["cifar10"])

    capped = [issue for issue in errors if issue.code in (ErrorCode.NON_FINITE_NUMBER, ErrorCode.NUMBER_OUT_OF_RANGE)]
    assert len(capped) == 2 * (MAX_ISSUES_PER_CODE + 1)


def test_walks_a_long_key_over_a_long_list_without_copying_the_key(submit, entry_json):
    # Each item's path once held a copy of the key: 50,000 x 500 KB.
    key = "k" * 500_000
    entry = entry_json(misc={key: 0}).replace(b": 0}", b": [" + b",".join([b"0"] * 49_999 + [b"NaN"]) + b"]}")

    result = submit(entry=entry)

    assert error_codes(result) == [ErrorCode.NON_FINITE_NUMBER]
    assert result.errors[0].field.endswith("[49999]")
    assert len(result.errors[0].field) <= 200
    assert len(result.errors[0].message) < 400


def test_lists_at_most_twenty_unknown_field_names(submit, entry_json):
    result = submit(entry=entry_json(**{f"field{i:03}": i for i in range(100)}))

    assert warning_codes(result) == [WarningCode.UNKNOWN_FIELDS]
    assert "field019 and 80 more." in result.warnings[0].message
    assert "field020" not in result.warnings[0].message


# codeURL: rendered as a link, so only http and https ------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(document.cookie)",
        "JavaScript:alert(1)",
        " javascript:alert(1)",
        "java\tscript:alert(1)",
        "javascript\n:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "vbscript:msgbox(1)",
        "file:///etc/passwd",
        "ftp://example.org/code",
        "//evil.example.org/code",
        "/relative/path",
        "github.com/example/cifar10-fast",
        "https:github.com/example",
        "https:///no-host",
        "https://exa mple.org/",
        "https://example.org/a\x01b",
        "https://example.org/a\x85b",
        "http://[::1",
        "https://example.org:port/",
    ],
)
def test_rejects_a_code_url_that_is_not_an_absolute_http_link(submit, entry_json, url):
    result = submit(entry=entry_json(codeURL=url))

    assert [(issue.code, issue.field) for issue in result.errors] == [(ErrorCode.INVALID_URL, "codeURL")]


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/example/cifar10-fast",
        "http://example.org/code?commit=abc#L10",
        "HTTPS://GitHub.com/Example",
        "https://127.0.0.1:8443/repo",
        " https://github.com/BAIDU-USA-GAIT-LEOPARD/CIFAR10-Inference-BaiduNet8",
    ],
)
def test_accepts_an_http_or_https_code_url(submit, entry_json, url):
    result = submit(entry=entry_json(codeURL=url))

    assert result.accepted
    assert result.entry.code_url == url.strip()


def test_accepts_an_empty_code_url(submit, entry_json):
    result = submit(entry=entry_json(codeURL=""))

    assert result.accepted
    assert result.entry.code_url == ""


# --- Dawnboard's own fields: what was evaluated, and what an entry reproduces ---------------------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("reproduces", True),
        ("reproduces", 0),
        ("reproduces", -3),
        ("reproduces", 1.5),
        ("reproduces", ""),
        ("reproduces", ["seed"]),
        ("usedBlacklist", "maybe"),
        ("usedBlacklist", 1),
        ("evaluationSplit", 3),
        ("evaluationExclusions", {"images": 50}),
    ],
)
def test_a_trust_field_of_the_wrong_type_is_refused_naming_it(submit, entry_json, field, value):
    result = submit(entry=entry_json(**{field: value}))

    assert [(issue.code, issue.field) for issue in result.errors] == [(ErrorCode.WRONG_TYPE, field)]


@pytest.mark.parametrize(("value", "reproduces"), [(12, 12), ("  davidcpage_resnet9  ", "davidcpage_resnet9")])
def test_reproduces_names_an_entry_by_id_or_by_file_stem(submit, entry_json, value, reproduces):
    assert submit(entry=entry_json(reproduces=value)).entry.reproduces == reproduces


def test_used_blacklist_written_as_text_is_read_as_a_boolean(submit, entry_json):
    result = submit(entry=entry_json(usedBlacklist="TRUE"))

    assert result.entry.evaluation.evaluated == "with-exclusions"
