"""Property tests: any valid log gives the DAWNBench result of a naive reading; no input makes the ingest raise."""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dawnboard.errors import ErrorCode, WarningCode
from dawnboard.validation import IngestRejection, IngestResult

REQUIRED = ("epoch", "hours", "top1Accuracy")
THRESHOLD = 94.0
PRICE = "3.06"
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@dataclass(frozen=True)
class GeneratedLog:
    raw: bytes
    expected_warnings: frozenset[str]


def reference_result(raw: bytes) -> tuple[str, float, int, int] | None:
    """The DAWNBench rule, read the slow obvious way.

    Returns:
        (hours as written, epoch, physical line, data row count) of the first row whose top-1 accuracy
        is at least 94, or None when no row reaches it.
    """
    text = raw.decode("utf-8")
    text = text.removeprefix("\ufeff")
    lines = text.split("\n")
    header = [name.strip() for name in lines[0].rstrip("\r").split("\t")]
    position = {name: header.index(name) for name in REQUIRED}
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        line = line.rstrip("\r")
        if not line:
            continue
        cells = [cell.strip() for cell in line.split("\t")]
        rows.append((number, {name: cells[index] for name, index in position.items()}))
    for number, cells in rows:
        if float(cells["top1Accuracy"]) >= THRESHOLD:
            return cells["hours"], float(cells["epoch"]), number, len(rows)
    return None


@st.composite
def valid_logs(draw) -> GeneratedLog:
    """A log DAWNBench would accept, in any of the layouts real submitters used."""
    row_count = draw(st.integers(1, 30))
    epochs, hours, metrics = [], [], []
    epoch, hour = draw(st.integers(0, 3)), draw(st.floats(0, 1, allow_subnormal=False))
    repeated = False
    for _ in range(row_count):
        epochs.append(epoch)
        hours.append(hour)
        metrics.append(draw(st.floats(0, 100, allow_subnormal=False)))
        epoch_step = draw(st.integers(0, 2))
        hour_step = draw(st.floats(0, 2, allow_subnormal=False))
        if epoch_step == 0:  # a repeated epoch is only unambiguous while hours grow
            hour_step = max(hour_step, 0.001)
        repeated = repeated or (epoch_step == 0 and len(epochs) < row_count)
        epoch, hour = epoch + epoch_step, hour + hour_step

    extras = draw(st.lists(st.sampled_from(["lr", "trainLoss", "note"]), unique=True, max_size=2))
    columns = draw(st.permutations([*REQUIRED, *extras]))
    values = {"epoch": epochs, "hours": hours, "top1Accuracy": metrics}
    pad = draw(st.booleans())
    cell = (lambda value: f" {value} ") if pad else str
    rows = [
        "\t".join(cell(repr(values[name][i]) if name in values else "0.5") for name in columns)
        for i in range(row_count)
    ]
    # A row may lack the extra columns after the last required one (read the slow way, without a warning).
    droppable = len(columns) - 1 - max(columns.index(name) for name in REQUIRED)
    for i in draw(st.sets(st.integers(0, row_count - 1), max_size=3)) if droppable else ():
        rows[i] = "\t".join(rows[i].split("\t")[: len(columns) - draw(st.integers(1, droppable))])
    blank_after = draw(st.sets(st.integers(0, row_count - 1), max_size=2))
    lines = ["\t".join(columns)]
    for i, row in enumerate(rows):
        lines.append(row)
        if i in blank_after and i < row_count - 1:
            lines.append("")
    crlf, bom = draw(st.booleans()), draw(st.booleans())
    final_newline = draw(st.booleans())
    text = ("\r\n" if crlf else "\n").join(lines) + (("\r\n" if crlf else "\n") if final_newline else "")

    expected = set()
    if bom:
        expected.add(WarningCode.BYTE_ORDER_MARK)
    if crlf:
        expected.add(WarningCode.CRLF_LINE_ENDINGS)
    if extras:
        expected.add(WarningCode.EXTRA_COLUMNS)
    if pad:
        expected.add(WarningCode.WHITESPACE_TRIMMED)
    if any(i < row_count - 1 for i in blank_after):
        expected.add(WarningCode.BLANK_LINES)
    if repeated:
        expected.add(WarningCode.REPEATED_EPOCH)
    return GeneratedLog(raw=(b"\xef\xbb\xbf" if bom else b"") + text.encode(), expected_warnings=frozenset(expected))


def assert_clean(result) -> None:
    """Whatever came in, what comes out is a result or a rejection made of known codes."""
    assert isinstance(result, IngestResult | IngestRejection)
    if isinstance(result, IngestRejection):
        assert result.errors
        assert {issue.code for issue in result.errors} <= set(ErrorCode)


@SETTINGS
@given(log=valid_logs())
def test_a_valid_log_gives_the_dawnbench_result(submit, entry_json, log):
    expected = reference_result(log.raw)

    result = submit(entry=entry_json(costPerHour=float(PRICE)), log=log.raw)

    if expected is None:
        assert [issue.code for issue in result.errors] == [ErrorCode.THRESHOLD_NOT_REACHED]
        return
    hours_text, epoch, line, row_count = expected
    assert result.accepted, result.errors
    assert result.results.time_to_accuracy_seconds == float(Decimal(hours_text) * 3600)
    assert result.results.time_to_accuracy_epoch == epoch
    assert result.results.time_to_accuracy_line == line
    assert result.results.training_cost_usd == Decimal(hours_text) * Decimal(PRICE)
    assert result.runs[0].log_row_count == row_count
    assert len(result.runs[0].curve) == row_count
    assert {issue.code for issue in result.warnings} == log.expected_warnings


@SETTINGS
@given(raw=st.binary(max_size=300))
def test_arbitrary_log_bytes_never_raise(submit, raw):
    assert_clean(submit(log=raw))


LOG_ALPHABET = '0123456789.-+eEinfaN \t\r\n"#_,\x00\u00a0'


@SETTINGS
@given(
    header=st.sampled_from(["", "epoch\thours\ttop1Accuracy\n", "hours\ttop1Accuracy\tepoch\tlr\r\n"]),
    body=st.text(LOG_ALPHABET, max_size=200),
)
def test_log_like_text_never_raises(submit, header, body):
    assert_clean(submit(log=(header + body).encode()))


@SETTINGS
@given(raw=st.binary(max_size=300), track=st.sampled_from(["train", "inference"]))
def test_arbitrary_entry_bytes_never_raise(submit, raw, track):
    assert_clean(submit(track=track, entry=raw))


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=8,
)
ENTRY_FIELDS = ["version", "author", "timestamp", "costPerHour", "latency", "cost", "top1Accuracy", "misc", "codeURL"]


@SETTINGS
@given(
    overrides=st.dictionaries(st.sampled_from(ENTRY_FIELDS), JSON_VALUES, max_size=4),
    track=st.sampled_from(["train", "inference"]),
)
def test_any_json_values_in_entry_fields_never_raise(submit, entry_document, overrides, track):
    # json.dumps writes NaN and Infinity literals for such floats, as careless submitters' tools do.
    entry = json.dumps({**entry_document(track=track), **overrides}).encode()

    assert_clean(submit(track=track, entry=entry))


HOSTILE_NUMBERS = st.one_of(
    st.builds(
        "{}{}{}e{}".format,
        st.sampled_from(["", "-"]),
        st.sampled_from(["0", "1", "9" * 40, "1" + "0" * 400]),
        st.sampled_from(["", ".5", "." + "3" * 200]),
        st.integers(-(10**20), 10**20),
    ),
    st.builds(lambda sign, digits: sign + "9" * digits, st.sampled_from(["", "-"]), st.integers(1, 6000)),
    st.sampled_from(["NaN", "Infinity", "-Infinity", "-0", "0.0", "1E-1000000"]),
)
NUMBER_FIELDS = ["costPerHour", "latency", "cost", "top1Accuracy", "misc", "author", "version"]


@SETTINGS
@given(
    literals=st.dictionaries(st.sampled_from(NUMBER_FIELDS), HOSTILE_NUMBERS, min_size=1, max_size=4),
    track=st.sampled_from(["train", "inference"]),
)
def test_hostile_number_literals_never_raise(submit, entry_document, literals, track):
    document = {**entry_document(track=track), **{name: 1000 + i for i, name in enumerate(literals)}}
    raw = json.dumps(document).encode()
    for i, literal in enumerate(literals.values()):
        raw = raw.replace(f": {1000 + i}".encode(), f": {literal}".encode())

    assert_clean(submit(track=track, entry=raw))
