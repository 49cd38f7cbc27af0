"""SQuAD's reader through the inference harness, on a tiny SQuAD v1.1 in the official format: exported with its four
inputs, measured in every scenario through LoadGen, gated by the official F1; questions batched padded answer as
they do alone; a model or data that does not fit is refused with its code, nothing written."""

from __future__ import annotations

import json
import shutil
from io import StringIO
from pathlib import Path

import numpy as np
import onnx
import pytest
from django.core.management import call_command

from benchmarks.runner.config import RunConfig
from benchmarks.runner.job import reference_run
from benchmarks.workloads.squad import BiDAFSquad
from inference import harness
from inference.backends import OnnxBackend
from inference.checkpoint import checkpoint_read
from inference.errors import InferenceError
from inference.export import export_onnx
from inference.items import SpanItems, context_rows, padded_join
from inference.job import measurement_run
from inference.options import Backend, MeasureOptions, Scenario
from tests.benchmarks.squad.fixtures import TINY_OVERRIDES, TRAIN, squad_document, write_tiny_squad
from tests.inference.test_chain import plain_onnx

# A reader that learns the tiny training set in about twenty epochs, a few seconds.
LEARNING = {**TINY_OVERRIDES, "optimizer": "adam", "learning_rate": 0.02, "epochs": 60, "dropout": 0.0}
LEARNING |= {"hidden_size": 16, "word_dim": 16}


@pytest.fixture(scope="module")
def reader(tmp_path_factory) -> dict[str, Path]:
    """The tiny data with its training questions as the dev set too (so a tiny reader can reach F1 0.75), a reader
    trained to the threshold, one trained an epoch (below it), and their ONNX exports."""
    folder = tmp_path_factory.mktemp("squad")
    data = write_tiny_squad(folder / "data")
    shutil.copy(data / "train-v1.1.json", data / "dev-v1.1.json")
    paths = {"data": data}
    for name, epochs in (("trained", None), ("short", 1)):
        run = reference_run(
            RunConfig(task="squad", recipe="bidaf", data_dir=data, seed=0, max_epochs=epochs, overrides=LEARNING),
            folder / name,
        )
        assert run.result.reached == (name == "trained")
        paths[name] = Path(run.written.paths["weights"])
        paths[f"{name}_quality"] = run.result.evaluations[-1].quality
        export_onnx(checkpoint_read(paths[name], task="squad"), folder / f"{name}.onnx")
        paths[f"{name}_onnx"] = folder / f"{name}.onnx"
    return paths


def measured(reader, out: Path, model: str = "trained_onnx", **options):
    chosen = {"task": "squad", "model": reader[model], "data_dir": reader["data"], "threads": 1, "warmup": 0}
    return measurement_run(MeasureOptions(**chosen, quick=True, **options), out)


@pytest.mark.parametrize(
    ("scenario", "chosen"),
    [
        (Scenario.SINGLE_STREAM, {}),
        (Scenario.OFFLINE, {"batch_size": 4}),
        # The search: a few LoadGen tests of 2048 queries, under a bound far above the reader's few milliseconds (at
        # 50 ms a machine busy with other tests missed it at every rate, its search halving to tests of minutes).
        (Scenario.SERVER, {"latency_bound_ms": 500.0}),
    ],
)
def test_the_reader_is_measured_in_every_scenario_and_gated_by_the_official_f1(
    reader, tmp_path, monkeypatch, scenario, chosen
):
    # A server test lasts 2048 queries at its rate, about 2048 x 2 mean latencies at the first (half of what one
    # instance answers): the reader's search stops once a VALID and an INVALID rate are within 4x (two or three tests,
    # 4 s here alone, where the default 1.1 took 72 s in the full suite). The bisection is tested in
    # tests/inference/test_harness.py, and run on digits (far shorter queries) in tests/inference/test_chain.py.
    monkeypatch.setattr(harness, "SERVER_SEARCH_RESOLUTION", 4.0)
    report = measured(reader, tmp_path / "out", scenario=scenario, **chosen)

    record = report.record
    assert set(record["scores"]) == {"exact_match", "f1"}
    # The official F1 of LoadGen's accuracy pass, in the task's scale: the training job's own evaluation of the model.
    assert record["accuracy"] == pytest.approx(record["scores"]["f1"] / 100) == pytest.approx(reader["trained_quality"])
    assert record["timed_pass_accuracy"] == record["accuracy"] and record["top_k"] is None
    assert record["meets_threshold"] and report.threshold == 0.75
    entry = json.loads(report.entry_bytes)
    assert entry["f1Score"] == record["accuracy"] and entry["misc"]["scenario"] == str(scenario)
    assert record["items"] == sum(len(questions) for _, questions in TRAIN)
    assert report.measurement.valid and report.verdict.accepted
    assert entry["latency"] == record["latency_ms"]["mean"]
    if scenario is Scenario.OFFLINE:
        assert record["samples_per_second"] > 0 and record["batch_size"] == 4
    if scenario is Scenario.SERVER:
        held = [attempt["target_qps"] for attempt in record["loadgen"]["server_tries"] if attempt["valid"]]
        assert record["loadgen"]["settings"]["expected_qps"] == max(held)  # the highest rate held, as scheduled:
        assert record["queries_per_second"] == record["loadgen"]["scheduled_queries_per_second"] > 0


def test_a_reader_below_the_threshold_is_refused_with_the_boards_code(reader, tmp_path):
    report = measured(reader, tmp_path / "out", model="short_onnx")

    assert report.record["accuracy"] == pytest.approx(reader["short_quality"]) and not report.meets_threshold
    assert not report.verdict.accepted
    assert [error.code for error in report.verdict.errors] == ["accuracy_below_threshold"]


def test_the_torch_backend_answers_as_the_onnx_export_does(reader, tmp_path):
    report = measured(reader, tmp_path / "out", model="trained", backend=Backend.TORCH)

    assert report.record["accuracy"] == pytest.approx(reader["trained_quality"])
    assert report.record["provider"] == "torch eager, CPU"


def test_questions_batched_padded_answer_as_each_does_alone(reader):
    workload = BiDAFSquad(reader["data"], LEARNING)
    workload.load()
    items = SpanItems(workload, workload.eval_size)
    backend = OnnxBackend(reader["trained_onnx"], threads=1)
    questions = items.read(list(range(items.count)))
    lengths = {question[0].shape[1] for question in questions}
    assert len(lengths) > 1  # contexts of several lengths: the batch is padded

    together = context_rows(backend.run(padded_join(questions)), questions)

    for question, answer in zip(questions, together, strict=True):
        alone = context_rows(backend.run(question), [question])[0]
        assert [part.shape for part in answer] == [(question[0].shape[1],)] * 2
        assert all(np.allclose(a, b, atol=1e-5) for a, b in zip(answer, alone, strict=True))


def test_the_export_keeps_the_vocabularies_it_was_trained_with(reader):
    metadata = {prop.key: prop.value for prop in onnx.load(str(reader["trained_onnx"])).metadata_props}
    workload = BiDAFSquad(reader["data"], LEARNING)
    workload.load()

    assert json.loads(metadata["dawnboard.input_encoding"]) == workload.input_encoding()
    assert workload.input_encoding()["words"] == len(workload.words) + 2


def test_data_whose_vocabularies_differ_from_the_training_data_is_refused_and_nothing_written(reader, tmp_path):
    other = write_tiny_squad(tmp_path / "other")  # two training paragraphs fewer: other words, other ids
    (other / "train-v1.1.json").write_text(json.dumps(squad_document(TRAIN[:2], "train")), encoding="utf-8")

    with pytest.raises(InferenceError) as refused:
        measurement_run(
            MeasureOptions(task="squad", model=reader["trained_onnx"], data_dir=other, quick=True), tmp_path / "out"
        )

    assert refused.value.code == "input_encoding_mismatch" and "--data-dir" in refused.value.message
    assert not (tmp_path / "out").exists()


def test_a_model_of_one_input_is_refused_for_the_reader_naming_its_inputs(tmp_path):
    model = plain_onnx(tmp_path / "image.onnx", (1, 1, 8, 8))

    with pytest.raises(InferenceError) as refused:
        measurement_run(MeasureOptions(task="squad", model=model, data_dir=tmp_path, quick=True), tmp_path / "out")

    assert refused.value.code == "input_shape_mismatch"
    assert "1 input(s); a task item here is 4" in refused.value.message
    assert not (tmp_path / "out").exists()


@pytest.mark.django_db
def test_the_command_s_summary_gives_the_official_scores_beside_the_f1_fraction(reader, tmp_path):
    out = StringIO()
    call_command(
        "measure_inference", "squad", "--model", str(reader["trained_onnx"]), "--data-dir", str(reader["data"]),
        "--quick", "--threads", "1", "--warmup", "0", "--out", str(tmp_path / "out"), stdout=out, stderr=StringIO(),
    )  # fmt: skip

    record = json.loads((tmp_path / "out" / "record.json").read_text())
    exact, f1 = (f"{record['scores'][name]:.2f}\N{NO-BREAK SPACE}%" for name in ("exact_match", "f1"))
    assert (
        f"accuracy {record['accuracy']:.4f} meets the threshold 0.75 (the official SQuAD v1.1 scores: exact match "
        f"{exact}, F1 {f1})" in out.getvalue()
    )


def test_metadata_that_is_not_json_is_refused_as_no_model_of_ours(tmp_path):
    model = plain_onnx(tmp_path / "m.onnx", (1, 1, 8, 8), **{"dawnboard.input_encoding": "{not json"})

    with pytest.raises(InferenceError) as refused:
        measurement_run(MeasureOptions(task="digits", model=model, quick=True), tmp_path / "out")

    assert refused.value.code == "not_onnx" and "dawnboard.input_encoding metadata is not JSON" in refused.value.message
    assert not (tmp_path / "out").exists()
