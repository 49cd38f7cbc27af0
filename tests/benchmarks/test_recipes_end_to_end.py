"""Every recipe through the job itself, on a tiny dataset in its exact on-disk format: one epoch on the CPU,
the files written, and the board's own reading of them."""

from __future__ import annotations

import json

import pytest
import torch

from benchmarks.runner.config import RunConfig
from benchmarks.runner.job import reference_run
from dawnboard.formats.dawnbench import read_training_log
from dawnboard.rules import current_rules
from tests.benchmarks.tiny_datasets import TINY_DATASETS


@pytest.mark.parametrize(("task", "recipe"), list(TINY_DATASETS))
def test_one_epoch_of_each_recipe_writes_an_entry_the_board_reads(task, recipe, tmp_path):
    write_dataset, overrides = TINY_DATASETS[(task, recipe)]
    data_dir = write_dataset(tmp_path / "data")
    config = RunConfig(task=task, recipe=recipe, data_dir=data_dir, max_epochs=1, overrides=dict(overrides))

    report = reference_run(config, tmp_path / "out")

    (evaluation,) = report.result.evaluations
    rules = current_rules(task)
    assert 0.0 <= evaluation.quality <= rules.upper_bound
    assert evaluation.step == report.result.steps_per_epoch >= 1
    log = read_training_log(open(report.written.paths["log"], "rb").read(), rules)
    assert log.warnings == [] and list(log.log.metric) == [evaluation.quality]
    # Submittable exactly when the board would accept it (top-5 of three classes is always 100 %).
    assert report.submittable == (evaluation.quality >= float(rules.threshold)) == report.verdict.accepted
    record = json.loads(open(report.written.paths["record"]).read())
    assert record["reproduces"] is None  # the tiny settings are not the recipe as published
    assert record["data"]["train_size"] == report.result.fresh_examples
    weights = torch.load(report.written.paths["weights"], weights_only=True)
    assert set(weights["state_dict"]) == set(report.result.model.state_dict())
