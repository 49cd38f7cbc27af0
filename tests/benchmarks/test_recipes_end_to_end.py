"""Every recipe through the job itself, on a tiny dataset in its exact on-disk format: one epoch on the CPU,
the files written, and the board's own reading of them; then its model exported to ONNX and measured through
MLPerf LoadGen (offline, quick profile) on the same tiny evaluation set, as `measure_inference` measures it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from benchmarks.runner.config import RunConfig
from benchmarks.runner.job import reference_run
from dawnboard.formats.dawnbench import read_training_log
from dawnboard.rules import current_rules
from inference.checkpoint import checkpoint_read
from inference.export import export_onnx
from inference.job import measurement_run
from inference.options import MeasureOptions, Scenario
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
    model = tmp_path / "model.onnx"
    exported = export_onnx(checkpoint_read(Path(report.written.paths["weights"]), task=task), model)
    assert model.exists() and exported.max_abs_difference < 0.1  # within the export's own tolerance, checked there
    options = MeasureOptions(
        task=task, model=model, data_dir=data_dir, threads=1, warmup=0, scenario=Scenario.OFFLINE, quick=True
    )
    measured = measurement_run(options, tmp_path / "measured")

    assert measured.measurement.items == report.result.eval_samples or measured.measurement.items >= 1
    assert measured.measurement.valid and measured.record["samples_per_second"] > 0
    assert measured.record["accuracy"] == measured.record["timed_pass_accuracy"]  # the same answers, twice
    if task == "squad":  # four tensors an item, of any lengths, batched padded: scored as the training job scores
        assert list(exported.input_shapes) == ["context_words", "context_chars", "question_words", "question_chars"]
        assert measured.record["accuracy"] == pytest.approx(evaluation.quality)
        assert measured.record["scores"]["f1"] == pytest.approx(100 * evaluation.quality)
