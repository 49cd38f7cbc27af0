"""The write services: an entry written by the rules package's writer goes through the same submission path as
any upload, and hardware matching is an explicit step of storing an entry and of reloading prices."""

from __future__ import annotations

from decimal import Decimal

import pytest

from dawnboard.formats.dawnbench import write_entry, write_training_log
from dawnboard.rules import Track, current_rules
from dawnboard.scoring import seconds_of, shortest_decimal
from leaderboard.models import Entry, HardwareMatch, Submission
from leaderboard.services import Upload, catalog_reload, submission_create
from pricing.domain.catalog import CatalogError
from pricing.models import PriceQuote
from pricing.services import prices_load
from tests.pricing.catalog_text import BASE, ONE_GPU, catalog, row

pytestmark = pytest.mark.django_db

ROWS = [(0, 0.0125, 71.5), (1, 0.025, 90.25), (2, 0.0375, 94.125), (3, 0.05, 94.5)]  # crosses 94 on the third
FACTORS = (0.75, 0.96, 1.001, 1.005)  # of a task's threshold: below, below, above, above


def reference_job_entry(**fields) -> dict:
    """What a reference training job would write: the DAWNBench v1.0 fields, nothing else."""
    return {
        "version": "v1.0",
        "author": "Dawnboard reference",
        "authorEmail": "reference@example.org",
        "framework": "PyTorch 2.13",
        "codeURL": "https://example.org/dawnboard/benchmarks",
        "commitHash": "0123456789abcdef",
        "model": "ResNet-9",
        "hardware": "2 x AVX2 CPU cores",
        "costPerHour": 0.096,
        "timestamp": "2026-11-23",
        "misc": {"seed": 0, "threads": 2},
        **fields,
    }


@pytest.mark.parametrize("task", ["cifar10", "imagenet", "squad"])
def test_an_entry_written_by_the_writer_is_accepted_with_no_warning_and_the_same_results(task):
    rules = current_rules(task)
    threshold = float(rules.threshold)
    # The task's metric in its own scale, crossing its threshold on the third evaluation.
    rows = [(epoch, hours, threshold * factor) for (epoch, hours, _), factor in zip(ROWS, FACTORS, strict=True)]

    outcome = submission_create(
        task_slug=task,
        track=Track.TRAIN,
        entry=Upload(name="reference.json", content=write_entry(reference_job_entry())),
        logs=[Upload(name="reference.tsv", content=write_training_log(rows, metric_column=rules.log_column))],
        source=Submission.Source.COMMAND,
    )

    assert outcome.status == "accepted", outcome.errors
    assert outcome.warnings == []
    hours = shortest_decimal(rows[2][1])
    assert outcome.results == {
        "accuracy": rows[2][2],
        "time_to_accuracy_seconds": float(seconds_of(hours)),
        "time_to_accuracy_epoch": 2.0,
        "training_cost_usd": float(hours * Decimal("0.096")),
        "latency_ms": None,
        "inference_cost_usd_per_10k": None,
        "spread": {
            "runs": 1,
            "successful_runs": 1,
            "min": float(seconds_of(hours)),
            "max": float(seconds_of(hours)),
            "coefficient_of_variation": None,
            "interval_95_low": float(seconds_of(hours)),
            "interval_95_high": float(seconds_of(hours)),
        },
    }
    entry = Entry.objects.get(id=outcome.entry_id)
    assert entry.warnings == []
    assert [(point.epoch, point.hours, point.metric) for point in entry.runs.get().curve.all()] == rows


def test_an_inference_entry_written_by_the_writer_is_accepted_with_no_warning():
    document = reference_job_entry(latency=1.25, cost=3.3333e-8, top1Accuracy=94.5)
    document.pop("costPerHour")

    outcome = submission_create(
        task_slug="cifar10",
        track=Track.INFERENCE,
        entry=Upload(name="reference.json", content=write_entry(document)),
        logs=[],
        source=Submission.Source.COMMAND,
    )

    assert outcome.status == "accepted", outcome.errors
    assert outcome.warnings == []
    assert outcome.results["latency_ms"] == 1.25
    assert outcome.results["inference_cost_usd_per_10k"] == pytest.approx(3.3333e-4)


def submit_cifar10_run_on(hardware: str) -> int:
    """A cifar10 training entry run on `hardware`, through the submission service; returns its entry id."""
    outcome = submission_create(
        task_slug="cifar10",
        track=Track.TRAIN,
        entry=Upload(name="e.json", content=write_entry(reference_job_entry(hardware=hardware))),
        logs=[Upload(name="l.tsv", content=write_training_log(ROWS, metric_column="top1Accuracy"))],
        source=Submission.Source.COMMAND,
    )
    assert outcome.status == "accepted", outcome.errors
    return outcome.entry_id


def test_storing_an_entry_matches_its_hardware_to_the_catalog():
    prices_load(text=BASE)

    entry_id = submit_cifar10_run_on("TestCloud tc.gpu1")

    assert HardwareMatch.objects.get(entry_id=entry_id).instance.name == "tc.gpu1"


def test_a_price_reload_matches_entries_to_instances_it_adds():
    entry_id = submit_cifar10_run_on("TestCloud tc.gpu1")
    assert HardwareMatch.objects.get(entry_id=entry_id).instance is None  # no catalog yet

    reload = catalog_reload(text=BASE)

    assert (reload.matches.entries, reload.matches.changed) == (1, 1)
    assert HardwareMatch.objects.get(entry_id=entry_id).instance.name == "tc.gpu1"


def test_reloading_an_unchanged_catalog_changes_nothing():
    catalog_reload(text=BASE)

    reload = catalog_reload(text=BASE)

    assert (reload.prices.created, reload.prices.updated, reload.matches.changed) == (0, 0, 0)
    assert not reload.changed


def test_a_reload_keeps_every_decimal_of_a_price():
    text = catalog(row(ONE_GPU, "on-demand", "5.06879789", "2024-06-01"))
    catalog_reload(text=text)

    assert catalog_reload(text=text).prices.updated == 0
    quote = PriceQuote.objects.get(instance__name="tc.gpu1", valid_from="2024-06-01")
    assert quote.usd_per_hour == Decimal("5.06879789")


def test_a_price_with_more_decimals_than_the_catalog_keeps_is_refused_by_line():
    with pytest.raises(CatalogError) as caught:
        catalog_reload(text=catalog(row(ONE_GPU, "on-demand", "1.00000000001", "2024-06-01")))

    assert [(problem.line, problem.field) for problem in caught.value.problems] == [(2, "usd_per_hour")]
    assert not PriceQuote.objects.filter(instance__name="tc.gpu1").exists()
