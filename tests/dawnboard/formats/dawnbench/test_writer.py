"""The DAWNBench writers: what they write, the readers give back exactly, with no warning and the same results."""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dawnboard.documents import plain_json
from dawnboard.formats.dawnbench import read_entry, read_training_log, write_entry, write_training_log
from dawnboard.ingest import validate_dawnbench_files
from dawnboard.rules import TASKS as ALL_TASKS
from dawnboard.rules import current_rules, rules_catalog

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CATALOG = rules_catalog()
TASKS = sorted(task.slug for task in ALL_TASKS if task.dawnbench_folder)  # the DAWNBench-format tasks

finite = st.floats(allow_nan=False, allow_infinity=False)


def json_values(text: st.SearchStrategy[str], numbers: st.SearchStrategy[float] = finite) -> st.SearchStrategy:
    scalars = st.none() | st.booleans() | st.integers(-(10**15), 10**15) | numbers | text
    return st.recursive(
        scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4), max_leaves=20
    )


any_text = st.text(st.characters(), max_size=12)  # surrogates included
# What validation stores: no NUL or lone surrogate in text, no number past 1e300 (all refused on purpose).
storable_text = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=12)
storable_numbers = st.floats(-1e300, 1e300)


@SETTINGS
@given(document=st.dictionaries(any_text, json_values(any_text), max_size=8))
def test_an_entry_document_reads_back_as_written(document):
    assert plain_json(read_entry(write_entry(document))) == document


@SETTINGS
@given(rows=st.lists(st.tuples(st.integers(0, 10**6) | finite, finite, finite), min_size=1, max_size=40))
def test_a_log_reads_back_row_for_row_with_no_warning(rows):
    rules = current_rules("cifar10")

    reading = read_training_log(write_training_log(rows, metric_column=rules.log_column), rules)

    assert reading.warnings == []
    epochs, hours, metric = (np.array([row[i] for row in rows], dtype=np.float64) for i in range(3))
    assert np.array_equal(reading.log.epochs, epochs)
    assert np.array_equal(reading.log.hours, hours)
    assert np.array_equal(reading.log.metric, metric)
    assert reading.log.line_numbers.tolist() == list(range(2, len(rows) + 2))


@st.composite
def training_runs(draw) -> tuple[str, dict, list[tuple[int, float, float]]]:
    """A task, a valid entry document and the evaluations of a run that reaches the task's threshold."""
    task = draw(st.sampled_from(TASKS))
    rules = current_rules(task)
    top, threshold = rules.upper_bound, float(rules.threshold)
    count = draw(st.integers(1, 25))
    steps = draw(st.lists(st.floats(1e-6, 2.0), min_size=count, max_size=count))
    hours = np.cumsum(steps).tolist()
    metric = draw(st.lists(st.floats(0, top), min_size=count, max_size=count))
    metric[draw(st.integers(0, count - 1))] = draw(st.floats(threshold, top))
    rows = [(epoch, hour, value) for epoch, (hour, value) in enumerate(zip(hours, metric, strict=True))]
    document = {
        "version": rules.version,
        "author": draw(st.text(st.characters(exclude_categories=["Cs", "Cc"]), min_size=1, max_size=30)).strip()
        or "team",
        "authorEmail": "team@example.org",
        "framework": "PyTorch 2.13",
        "model": "ResNet-9",
        "hardware": "1 x V100",
        "timestamp": draw(st.dates()).isoformat(),
        "costPerHour": draw(st.none() | st.floats(0.01, 100)),
        "misc": draw(st.dictionaries(storable_text, json_values(storable_text, storable_numbers), max_size=3)),
    }
    return task, {name: value for name, value in document.items() if value is not None}, rows


@SETTINGS
@given(run=training_runs())
def test_a_written_training_entry_is_accepted_with_no_warning_and_the_run_s_results(run):
    task, document, rows = run
    rules = current_rules(task)

    result = validate_dawnbench_files(
        task_slug=task,
        track="train",
        entry_bytes=write_entry(document),
        logs=[write_training_log(rows, metric_column=rules.log_column)],
        catalog=CATALOG,
    )

    assert result.accepted, result.errors
    assert result.warnings == []
    # DAWNBench's rule, worked out by hand: the first row at or above the threshold; hours as written.
    crossing = next(index for index, row in enumerate(rows) if row[2] >= float(rules.threshold))
    epoch, hours, metric = rows[crossing]
    hours_written = Decimal(repr(hours))
    assert result.results.time_to_accuracy_epoch == epoch
    assert result.results.time_to_accuracy_line == crossing + 2
    assert result.results.accuracy == metric
    assert result.results.time_to_accuracy_seconds == float(hours_written * 3600)
    price = document.get("costPerHour")
    assert result.results.training_cost_usd == (None if price is None else hours_written * Decimal(repr(price)))
    assert plain_json(result.entry.claimed) == document


@pytest.mark.parametrize("cell", [math.nan, math.inf, -math.inf, True])
def test_the_log_writer_refuses_a_cell_no_reader_accepts(cell):
    with pytest.raises(ValueError):
        write_training_log([(0, 0.5, cell)], metric_column="top1Accuracy")


def test_the_log_writer_refuses_a_log_with_no_row():
    with pytest.raises(ValueError):
        write_training_log([], metric_column="top1Accuracy")


def test_the_entry_writer_refuses_nan():
    with pytest.raises(ValueError):
        write_entry({"latency": math.nan})


def test_the_log_writer_writes_the_documented_header_and_one_row_per_evaluation():
    written = write_training_log([(0, 0.25, 91.5), (1, 0.5, 94.25)], metric_column="top1Accuracy")

    assert written == b"epoch\thours\ttop1Accuracy\n0\t0.25\t91.5\n1\t0.5\t94.25\n"


# The real DAWNBench CIFAR10 entries -----------------------------------------------------------------------


def test_every_sample_training_entry_reads_writes_and_reads_back_to_the_same_results(dawnbench_sample):
    rules = current_rules("cifar10")
    entries = sorted((dawnbench_sample / "CIFAR10" / "train").glob("*.json"))
    assert entries

    for entry_path in entries:
        entry_bytes, log_bytes = entry_path.read_bytes(), entry_path.with_suffix(".tsv").read_bytes()
        original = validate_dawnbench_files(
            task_slug="cifar10", track="train", entry_bytes=entry_bytes, logs=[log_bytes], catalog=CATALOG
        )
        log = read_training_log(log_bytes, rules).log
        rewritten_log = write_training_log(
            zip(log.epochs.tolist(), log.hours.tolist(), log.metric.tolist(), strict=True),
            metric_column=rules.log_column,
        )
        rewritten = validate_dawnbench_files(
            task_slug="cifar10",
            track="train",
            entry_bytes=write_entry(read_entry(entry_bytes)),
            logs=[rewritten_log],
            catalog=CATALOG,
        )

        assert original.accepted and rewritten.accepted, entry_path.name
        assert rewritten.results == original.results, entry_path.name
        assert read_training_log(rewritten_log, rules).warnings == [], entry_path.name
        assert plain_json(rewritten.entry.claimed) == plain_json(original.entry.claimed), entry_path.name


def test_every_sample_inference_entry_reads_writes_and_reads_back_to_the_same_results(dawnbench_sample):
    entries = sorted((dawnbench_sample / "CIFAR10" / "inference").glob("*.json"))
    assert entries

    for entry_path in entries:
        original = validate_dawnbench_files(
            task_slug="cifar10", track="inference", entry_bytes=entry_path.read_bytes(), logs=[], catalog=CATALOG
        )
        rewritten = validate_dawnbench_files(
            task_slug="cifar10",
            track="inference",
            entry_bytes=write_entry(read_entry(entry_path.read_bytes())),
            logs=[],
            catalog=CATALOG,
        )

        assert original.accepted and rewritten.accepted, entry_path.name
        assert rewritten.results == original.results, entry_path.name
