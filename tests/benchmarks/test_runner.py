"""The job's own parts, without Django: data path and echoing, the clock, a digits run, the files written."""

from __future__ import annotations

import json
import random
import time
from collections import Counter

import pytest
import torch

from benchmarks.runner.config import EchoStage, RunConfig
from benchmarks.runner.data import FreshCount, Shard, batched, echoed, epoch_batches, epoch_order, steps_per_epoch
from benchmarks.runner.distributed import Processes
from benchmarks.runner.job import reference_run, runs_summary
from benchmarks.runner.loop import process_batch_size, train_reference
from benchmarks.runner.timer import TrainingClock
from benchmarks.workloads import IMPLEMENTATIONS, workload_class
from benchmarks.workloads.digits import DigitsCNNWorkload
from dawnboard.formats.dawnbench import read_entry, read_training_log
from dawnboard.recipes import RECIPES
from dawnboard.rules import current_rules


def test_every_recipe_in_the_catalog_has_code_and_every_code_a_catalog_entry():
    assert {(recipe.task_slug, recipe.name) for recipe in RECIPES} == set(IMPLEMENTATIONS)
    for task, recipe in IMPLEMENTATIONS:
        workload = workload_class(task, recipe)
        assert (workload.task, workload.recipe) == (task, recipe)
        assert {"batch_size", "epochs"} <= set(workload.defaults)


def test_echoing_repeats_every_item_factor_times_and_spreads_the_repeats():
    items = list(range(50))

    repeated = list(echoed(iter(items), factor=3, buffer_size=20, rng=random.Random(0)))

    assert Counter(repeated) == Counter(items * 3)
    assert repeated != sorted(repeated)  # shuffled by the buffer, not three copies side by side
    assert list(echoed(iter(items), factor=1, buffer_size=20, rng=random.Random(0))) == items


def test_a_short_last_batch_is_dropped_unless_it_is_the_only_one():
    assert [len(group) for group in batched(range(10), 4)] == [4, 4]
    assert [len(group) for group in batched(range(3), 4)] == [3]
    assert steps_per_epoch(10, batch_size=4, echo_factor=1, echo_stage=EchoStage.EXAMPLE) == 2
    assert steps_per_epoch(10, batch_size=4, echo_factor=2, echo_stage=EchoStage.EXAMPLE) == 5
    assert steps_per_epoch(10, batch_size=4, echo_factor=2, echo_stage=EchoStage.BATCH) == 4


def test_shards_of_an_epoch_partition_one_permutation():
    whole = epoch_order(101, seed=3, epoch=2, shard=Shard())
    parts = [epoch_order(101, seed=3, epoch=2, shard=Shard(rank=rank, count=2)) for rank in range(2)]

    assert sorted(whole) == list(range(101))
    assert len(parts[0]) == len(parts[1]) == 50  # equal shares: the one left over waits for the next epoch
    assert not set(parts[0]) & set(parts[1])
    assert parts[0] == whole[0::2][:50]
    assert epoch_order(101, seed=3, epoch=3, shard=Shard()) != whole


@pytest.mark.parametrize(("stage", "fresh_per_epoch"), [(EchoStage.EXAMPLE, 1347), (EchoStage.BATCH, 1344)])
def test_echoing_reads_each_example_once_and_trains_on_it_factor_times(stage, fresh_per_epoch):
    workload = DigitsCNNWorkload()
    workload.load()
    fresh = FreshCount()

    batches = list(
        epoch_batches(
            workload,
            list(range(workload.train_size)),
            batch_size=workload.batch_size,
            echo_factor=2,
            echo_stage=stage,
            buffer_size=256,
            rng=random.Random(0),
            fresh=fresh,
        )
    )

    assert fresh.examples == workload.train_size
    trained = sum(len(labels) for _, labels in batches)
    assert trained == pytest.approx(2 * fresh_per_epoch, abs=workload.batch_size)


def test_the_clock_leaves_out_the_time_paused_for_evaluation():
    ticks = iter([0.0, 10.0, 25.0, 30.0])
    clock = TrainingClock(torch.device("cpu"), now=lambda: next(ticks))

    clock.start()  # 0
    assert clock.pause() == 10.0  # trained 0..10
    clock.resume()  # evaluated 10..25
    assert clock.pause() == 15.0  # trained 25..30
    assert clock.paused_seconds == 15.0


def test_a_digits_run_reaches_the_threshold_and_its_files_read_back_as_the_board_reads_them(tmp_path):
    report = reference_run(RunConfig(task="digits", recipe="cnn", seed=0), tmp_path)

    assert report.result.reached and report.submittable
    rules = current_rules("digits")
    assert report.result.evaluations[-1].quality >= float(rules.threshold)
    assert all(point.quality < float(rules.threshold) for point in report.result.evaluations[:-1])  # stops at once
    paths = report.written.paths
    entry = read_entry(open(paths["entry"], "rb").read())
    log = read_training_log(open(paths["log"], "rb").read(), rules)
    assert (entry["version"], entry["model"]) == ("v1.0", "Small CNN (3 conv layers)")
    assert log.warnings == []
    assert list(log.log.epochs) == [point.epoch for point in report.result.evaluations]
    results = report.verdict.results
    assert results.time_to_accuracy_seconds == pytest.approx(report.result.time_to_accuracy_seconds, rel=1e-9)
    assert results.time_to_accuracy_epoch == report.result.epochs_to_accuracy
    record = json.loads(open(paths["record"]).read())
    assert record["seed"] == 0 and record["reached"] is True
    assert record["machine"]["cpu_count"] >= 1 and record["machine"]["threads"] >= 1
    assert record["versions"]["torch"] == torch.__version__
    assert len(record["curve"]) == len(report.result.evaluations)
    assert record["fresh_examples"] == record["curve"][-1]["epoch"] * 1347
    saved = torch.load(paths["weights"], weights_only=True)
    model = DigitsCNNWorkload().build_model()
    model.load_state_dict(saved["state_dict"])
    assert saved["config"]["recipe"] == "cnn"


def test_a_run_that_stops_before_the_threshold_is_reported_and_not_submittable(tmp_path):
    report = reference_run(RunConfig(task="digits", recipe="cnn", seed=0, max_epochs=1), tmp_path)

    assert not report.result.reached
    assert not report.submittable
    assert [error["code"] for error in report.as_dict()["errors"]] == ["threshold_not_reached"]
    assert len(report.result.evaluations) == 1


def test_echoing_halves_the_fresh_examples_per_training_step():
    plain = train_reference(RunConfig(task="digits", recipe="cnn", max_epochs=1))
    echoed_run = train_reference(RunConfig(task="digits", recipe="cnn", max_epochs=1, echo_factor=2))

    assert plain.fresh_examples == echoed_run.fresh_examples == 1347
    assert echoed_run.evaluations[-1].step == 2 * plain.evaluations[-1].step


class SlowToLoadDigits(DigitsCNNWorkload):
    def load(self):
        time.sleep(0.5)
        super().load()


def test_the_clock_starts_before_the_data_is_loaded():
    result = train_reference(RunConfig(task="digits", recipe="cnn", max_epochs=1), workload=SlowToLoadDigits())

    assert result.evaluations[0].training_seconds >= 0.5


def test_an_echoed_or_altered_run_does_not_claim_to_reproduce_the_seed_entries(tmp_path):
    plain = RunConfig(task="cifar10", recipe="resnet9", overrides={"embeddings": "x"})
    echoed_config = RunConfig(task="cifar10", recipe="resnet9", echo_factor=2)
    altered = RunConfig(task="cifar10", recipe="resnet9", overrides={"batch_size": 4})

    assert plain.runs_the_recipe_as_published
    assert not echoed_config.runs_the_recipe_as_published and not altered.runs_the_recipe_as_published
    assert echoed_config.command.endswith("--echo-factor 2 --echo-stage example")


def test_a_batch_that_does_not_split_over_the_processes_is_refused():
    assert process_batch_size(512, Processes(world_size=4)) == 128
    with pytest.raises(ValueError, match="does not split evenly"):
        process_batch_size(64, Processes(world_size=3))


def test_runs_summary_gives_median_and_coefficient_of_variation():
    class Result:
        def __init__(self, seconds, epochs):
            self.reached = seconds is not None
            self.time_to_accuracy_seconds, self.epochs_to_accuracy = seconds, epochs

    class Report:
        def __init__(self, seconds, epochs):
            self.result = Result(seconds, epochs)

    summary = runs_summary([Report(10.0, 4), Report(12.0, 5), Report(14.0, 6), Report(None, None)])

    assert (summary["runs"], summary["reached"]) == (4, 3)
    assert summary["time_to_accuracy_seconds"]["median"] == 12.0
    assert summary["time_to_accuracy_seconds"]["coefficient_of_variation"] == pytest.approx(2.0 / 12.0)
    assert summary["epochs_to_accuracy"]["coefficient_of_variation"] == pytest.approx(1.0 / 5.0)


def test_an_unknown_recipe_setting_is_refused():
    with pytest.raises(ValueError, match="no setting"):
        DigitsCNNWorkload(overrides={"learning_rate": 1})
