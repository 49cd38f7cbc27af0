"""The whole chain on digits: train (the reference job) -> export to ONNX -> measure one item at a time ->
the entry on the board; and every bad input refused with its code, nothing stored."""

from __future__ import annotations

import hashlib
import json
import pickle
import re
import warnings
from io import StringIO
from pathlib import Path

import onnx
import pytest
import torch
from celery import current_app
from django.core.management import CommandError, call_command

from benchmarks.runner.config import RunConfig
from benchmarks.runner.job import reference_run
from benchmarks.workloads import workload_class
from inference.errors import InferenceError, InferenceErrorCode
from inference.tasks import measure_inference_task
from leaderboard.models import Entry, Submission


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> dict[str, Path]:
    """A digits model that reaches 98 %, and one trained a single epoch (below it)."""
    folder = tmp_path_factory.mktemp("checkpoints")
    trained = reference_run(RunConfig(task="digits", recipe="cnn", seed=0), folder / "trained")
    short = reference_run(RunConfig(task="digits", recipe="cnn", seed=0, max_epochs=1), folder / "short")
    assert trained.result.reached and not short.result.reached
    return {"trained": Path(trained.written.paths["weights"]), "short": Path(short.written.paths["weights"])}


def command(name: str, *args: str) -> str:
    out = StringIO()
    call_command(name, *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def export(checkpoint: Path, out: Path, task: str = "digits") -> Path:
    command("export_onnx", task, str(checkpoint), str(out))
    return out


SCENARIO_FLAGS = {"single-stream": [], "offline": ["--batch-size", "32"], "server": ["--latency-bound-ms", "50"]}


@pytest.mark.django_db
@pytest.mark.parametrize("scenario", list(SCENARIO_FLAGS))
def test_train_export_measure_and_the_entry_is_on_the_board(checkpoints, tmp_path, client, scenario):
    model = export(checkpoints["trained"], tmp_path / "digits.onnx")
    metadata = {prop.key: prop.value for prop in onnx.load(str(model)).metadata_props}
    assert (metadata["dawnboard.task"], metadata["dawnboard.recipe"]) == ("digits", "cnn")
    flags = ["--scenario", scenario, "--quick", *SCENARIO_FLAGS[scenario]]

    document = json.loads(
        command(
            "measure_inference",
            "digits",
            "--model",
            str(model),
            *flags,
            "--cost-per-hour",
            "0.34",
            "--threads",
            "1",
            "--out",
            str(tmp_path / "out"),
            "--submit",
            "--json",
        )
    )

    assert set(document) == {
        "task", "backend", "items", "latency_ms", "accuracy", "threshold", "meets_threshold",
        "cost_usd_per_10k", "price", "entry_path", "record_path",
        "scenario", "samples_per_second", "queries_per_second", "cost_usd_per_10k_at_throughput", "loadgen",
    }  # fmt: skip
    assert set(document["latency_ms"]) == {"mean", "p50", "p90", "p99", "max"}
    assert set(document["loadgen"]) == {"valid", "summary_path", "detail_path", "settings"}
    assert document["scenario"] == scenario and document["loadgen"]["valid"] is True
    assert document["loadgen"]["settings"]["profile"] == "quick"
    assert document["items"] == 450 and document["backend"] == "onnxruntime"
    latency = document["latency_ms"]
    assert 0 < latency["p50"] <= latency["p90"] <= latency["p99"] <= latency["max"]
    assert document["accuracy"] >= 98.0 and document["meets_threshold"] is True
    # mean ms x 10,000 x 0.34 USD/h / 3,600,000 ms/h
    assert document["cost_usd_per_10k"] == pytest.approx(latency["mean"] * 10_000 * 0.34 / 3_600_000)
    record = json.loads(Path(document["record_path"]).read_text())
    summary = Path(document["loadgen"]["summary_path"]).read_text()
    assert {"Offline": "offline", "Server": "server", "SingleStream": "single-stream"}[
        re.search(r"Scenario : (\w+)", summary).group(1)
    ] == scenario and "Result is : VALID" in summary
    assert (
        record["loadgen"]["detail_sha256"]
        == hashlib.sha256(Path(document["loadgen"]["detail_path"]).read_bytes()).hexdigest()
    )
    if scenario == "offline":
        assert document["samples_per_second"] > 0 and document["queries_per_second"] is None
        assert record["batch_size"] == 32 and document["loadgen"]["settings"]["batch_size"] == 32
        # 10,000 / samples per second x 0.34 USD/h / 3,600 s/h
        assert document["cost_usd_per_10k_at_throughput"] == pytest.approx(
            10_000 / document["samples_per_second"] * 0.34 / 3_600, rel=1e-9
        )
    elif scenario == "server":
        assert document["queries_per_second"] > 0 and document["samples_per_second"] is None
        held = [attempt for attempt in record["loadgen"]["server_tries"] if attempt["valid"]]
        assert max(attempt["target_qps"] for attempt in held) == document["loadgen"]["settings"]["expected_qps"]
        assert all(attempt["p99_ms"] <= 50 for attempt in held)
    else:
        assert document["samples_per_second"] is None and document["queries_per_second"] is None
        assert record["loadgen"]["query_count"] >= 450 and record["loadgen"]["early_stopping_p90_ms"] > 0
    if scenario != "offline":
        assert document["cost_usd_per_10k_at_throughput"] is None
    entry = Entry.objects.get(track="inference")
    assert entry.track == "inference" and entry.submission.source == Submission.Source.MEASURED
    assert entry.latency_ms == pytest.approx(latency["mean"])
    assert (entry.latency_p90_ms, entry.latency_p99_ms) == (
        pytest.approx(latency["p90"]),
        pytest.approx(latency["p99"]),
    )
    assert float(entry.inference_cost_usd_per_10k) == pytest.approx(document["cost_usd_per_10k"], rel=1e-9)
    assert entry.accuracy == pytest.approx(document["accuracy"])
    assert record["model_sha256"] and sum(record["histogram"]["counts"]) == 450 - record["warmup"]
    board = client.get("/api/v1/leaderboards/digits/inference-latency/").json()
    assert [row["entry_id"] for row in board["results"]] == [entry.id]
    api_entry = client.get(f"/api/v1/entries/{entry.id}/").json()
    assert api_entry["latency_percentiles_ms"]["p90"] == pytest.approx(latency["p90"])
    assert (api_entry["samples_per_second"], api_entry["queries_per_second"]) == (
        document["samples_per_second"],
        document["queries_per_second"],
    )
    # The cost at throughput on the board is reckoned from the entry's own cost (its price cancels out), and
    # agrees with the harness's, reckoned from the price itself.
    at_throughput = client.get("/api/v1/leaderboards/digits/inference-cost/?cost_at=throughput").json()
    assert at_throughput["cost_at"] == "throughput"
    if scenario == "offline":
        assert float(entry.inference_cost_usd_per_10k_at_throughput) == pytest.approx(
            document["cost_usd_per_10k_at_throughput"], rel=1e-9
        )
        assert [row["entry_id"] for row in at_throughput["results"]] == [entry.id]
        assert at_throughput["results"][0]["value"] == pytest.approx(document["cost_usd_per_10k_at_throughput"])
    else:
        assert entry.inference_cost_usd_per_10k_at_throughput is None and at_throughput["results"] == []
    page = client.get(f"/entries/{entry.id}/").content.decode()
    assert 'id="loadgen"' in page and record["loadgen"]["detail_sha256"] in page and "Result is : VALID" in page
    assert ("samples/s" in page) == (scenario == "offline") and ("queries/s" in page) == (scenario == "server")
    # LoadGen's p90 is a per-item latency in a single stream only; an offline test is one query, said so.
    assert ('data-stat="loadgen-p90"' in page) == (scenario == "single-stream")
    assert (", 1 query." in page) == (scenario == "offline")


@pytest.mark.django_db
def test_a_test_loadgen_judges_invalid_is_reported_and_refused_by_submit(checkpoints, tmp_path):
    model = export(checkpoints["trained"], tmp_path / "digits.onnx")
    # A bound no query can keep: every rate the server's search tries is INVALID.
    flags = ["--scenario", "server", "--latency-bound-ms", "0.000001", "--quick", "--out", str(tmp_path / "out")]

    document = json.loads(command("measure_inference", "digits", "--model", str(model), *flags, "--json"))
    message = refused("measure_inference", "digits", "--model", str(model), *flags, "--submit")

    assert document["loadgen"]["valid"] is False and document["queries_per_second"] is None
    # Under the model's own unloaded 99th percentile, no rate can hold: one test shows it, no search follows.
    assert len(json.loads(Path(document["record_path"]).read_text())["loadgen"]["server_tries"]) == 1
    assert "loadgen_invalid" in message and Submission.objects.count() == 0


@pytest.mark.django_db
def test_the_torch_backend_measures_the_checkpoint_itself(checkpoints, tmp_path):
    document = json.loads(
        command(
            "measure_inference",
            "digits",
            "--model",
            str(checkpoints["trained"]),
            "--backend",
            "torch",
            "--quick",
            "--threads",
            "1",
            "--limit",
            "60",
            "--out",
            str(tmp_path),
            "--json",
        )
    )

    assert (document["backend"], document["items"], document["cost_usd_per_10k"]) == ("torch", 60, None)


@pytest.mark.django_db
def test_a_model_below_the_threshold_is_refused_with_the_boards_code(checkpoints, tmp_path):
    model = export(checkpoints["short"], tmp_path / "short.onnx")

    with pytest.raises(CommandError, match="accuracy_below_threshold"):
        command(
            "measure_inference", "digits", "--model", str(model), "--quick", "--out", str(tmp_path / "o"), "--submit"
        )

    assert Submission.objects.count() == 0 and Entry.objects.count() == 0


def refused(name: str, *args: str) -> str:
    with pytest.raises(CommandError) as raised:
        command(name, *args)
    return str(raised.value)


@pytest.mark.django_db
def test_a_file_that_is_not_onnx_is_refused(tmp_path):
    garbage = tmp_path / "model.onnx"
    garbage.write_bytes(b"not a model")

    assert refused("measure_inference", "digits", "--model", str(garbage)).startswith("not_onnx:")


def test_a_checkpoint_of_another_task_is_refused(checkpoints, tmp_path):
    message = refused("export_onnx", "cifar10", str(checkpoints["trained"]), str(tmp_path / "x.onnx"))

    assert message.startswith("wrong_task:") and not (tmp_path / "x.onnx").exists()


def test_a_file_that_is_no_checkpoint_is_refused(tmp_path):
    path = tmp_path / "x.pt"
    torch.save({"weights": torch.zeros(2)}, path)

    assert refused("export_onnx", "digits", str(path), str(tmp_path / "x.onnx")).startswith("not_a_checkpoint:")


def plain_onnx(path: Path, shape: tuple[int, ...], **metadata: str) -> Path:
    """An ONNX model of another shape, not made by export_onnx (no Dawnboard metadata unless given)."""
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.LazyLinear(10))
    model(torch.zeros(shape))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.zeros(shape),), str(path), opset_version=17, dynamo=False)
    if metadata:
        loaded = onnx.load(str(path))
        onnx.helper.set_model_props(loaded, metadata)
        onnx.save(loaded, str(path))
    return path


@pytest.mark.django_db
def test_a_model_whose_input_does_not_fit_the_task_is_refused(tmp_path):
    model = plain_onnx(tmp_path / "cifar_shaped.onnx", (1, 3, 32, 32))

    assert refused("measure_inference", "digits", "--model", str(model)).startswith("input_shape_mismatch:")


@pytest.mark.django_db
def test_a_missing_test_set_is_refused(tmp_path):
    model = plain_onnx(
        tmp_path / "m.onnx", (1, 3, 32, 32), **{"dawnboard.task": "cifar10", "dawnboard.recipe": "resnet9"}
    )

    message = refused("measure_inference", "cifar10", "--model", str(model), "--data-dir", str(tmp_path / "none"))

    assert message.startswith("dataset_missing:") and "test_batch" in message


@pytest.mark.django_db
def test_an_unknown_instance_is_refused_before_measuring(checkpoints, tmp_path):
    model = export(checkpoints["trained"], tmp_path / "digits.onnx")

    out = tmp_path / "out"
    arguments = ["--model", str(model), "--instance", "x9.huge", "--provider", "aws", "--out", str(out)]

    message = refused("measure_inference", "digits", *arguments)

    assert message.startswith("unknown_instance:")
    assert not out.exists()


def test_an_export_that_disagrees_with_torch_is_an_error_and_leaves_no_file(checkpoints, tmp_path, monkeypatch):
    import onnxruntime

    original = onnxruntime.InferenceSession.run
    monkeypatch.setattr(
        onnxruntime.InferenceSession, "run", lambda self, *args, **kwargs: [o + 0.01 for o in original(self, *args)]
    )

    message = refused("export_onnx", "digits", str(checkpoints["trained"]), str(tmp_path / "bad.onnx"))

    assert message.startswith("export_mismatch:") and not (tmp_path / "bad.onnx").exists()


@pytest.mark.django_db
def test_the_celery_task_measures_on_the_reference_queue(checkpoints, tmp_path, settings):
    model = export(checkpoints["trained"], tmp_path / "digits.onnx")

    result = measure_inference_task.apply(
        kwargs={"task": "digits", "model": str(model), "limit": 50, "quick": True, "out": str(tmp_path / "out")}
    ).get()

    assert result["measurement"]["items"] == 50 and result["measurement"]["latency_ms"]["mean"] > 0
    route = current_app.amqp.router.route({}, "inference.measure")
    assert route["queue"].name == settings.CELERY_REFERENCE_QUEUE


@pytest.mark.django_db
def test_submit_refuses_a_measurement_of_part_of_the_test_set(checkpoints, tmp_path):
    model = export(checkpoints["trained"], tmp_path / "digits.onnx")

    message = refused("measure_inference", "digits", "--model", str(model), "--limit", "50", "--submit")

    assert "drop --limit" in message and Submission.objects.count() == 0


@pytest.mark.django_db
def test_the_torch_backend_leaves_the_thread_count_as_it_found_it(checkpoints, tmp_path):
    before = torch.get_num_threads()
    arguments = ["--backend", "torch", "--threads", str(before + 1), "--limit", "20", "--quick", "--out", str(tmp_path)]

    command("measure_inference", "digits", "--model", str(checkpoints["trained"]), *arguments)

    assert torch.get_num_threads() == before


def test_an_error_keeps_its_code_through_pickling_as_a_celery_failure_does():
    error = pickle.loads(pickle.dumps(InferenceError(InferenceErrorCode.NOT_ONNX, "x.onnx is no model")))

    assert (error.code, error.message) == ("not_onnx", "x.onnx is no model")
    assert str(error) == "not_onnx: x.onnx is no model"


@pytest.mark.parametrize(
    ("task", "recipe", "shape"), [("cifar10", "resnet9", (3, 32, 32)), ("imagenet", "resnet50", (3, 224, 224))]
)
def test_the_image_tasks_give_the_shape_of_one_item(task, recipe, shape):
    assert workload_class(task, recipe)().inference_input_shape == shape


@pytest.mark.django_db
def test_a_catalog_instance_prices_the_measurement_and_names_itself_beside_the_machine(checkpoints, tmp_path):
    model = export(checkpoints["trained"], tmp_path / "digits.onnx")
    arguments = ["--model", str(model), "--instance", "c5.large", "--provider", "aws", "--limit", "40", "--quick"]

    document = json.loads(command("measure_inference", "digits", *arguments, "--out", str(tmp_path / "o"), "--json"))

    assert document["price"]["instance"] == "aws/c5.large" and document["price"]["source"].startswith("catalog: aws/")
    entry = json.loads(Path(document["entry_path"]).read_text())
    assert re.fullmatch(r"\d+ CPU cores \(.+\), priced as aws/c5\.large", entry["hardware"]), entry["hardware"]
    assert entry["cost"] == pytest.approx(document["cost_usd_per_10k"] / 10_000)


@pytest.mark.django_db
def test_the_summary_writes_every_figure_as_the_pages_do(checkpoints, tmp_path):
    model = export(checkpoints["trained"], tmp_path / "digits.onnx")
    arguments = ["--model", str(model), "--instance", "c5.large", "--provider", "aws", "--limit", "60", "--quick"]

    text = command("measure_inference", "digits", *arguments, "--out", str(tmp_path / "o"))

    latency = text.splitlines()[2]
    assert re.fullmatch(r"( +[\d.,]+\u00a0ms){5}", latency), latency  # mean, p50, p90, p99, max to 3 figures
    assert re.search(r"accuracy \d+\.\d\d\u00a0% (meets|is BELOW) the threshold 98\u00a0%", text)
    # A fast machine answers in under 0.05 ms: a cost below 1e-5 USD is written as a power of ten (display.usd).
    power_of_ten = "(\u00a0\u00d7\u00a010\u207b[\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+)?"  # times ten to a minus n
    assert re.search(
        rf"cost \$[\d.]+{power_of_ten} per 10,000 items one at a time, at 0\.085 USD/h \(catalog: aws/c5\.large", text
    )
    assert re.search(r"LoadGen single-stream \(quick profile\): VALID, [\d,]+ queries: p90 [\d.]+\u00a0ms", text), text
    assert "e-0" not in text and "98.0000" not in text


def test_the_export_summary_writes_its_difference_without_an_exponent(checkpoints, tmp_path):
    text = command("export_onnx", "digits", str(checkpoints["trained"]), str(tmp_path / "digits.onnx"))

    assert re.search(r"max \|difference\| [\d.]+ \(tolerance 0\.0001 \+ 0\.001 x \|torch\|\)", text), text
    assert "e-0" not in text


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--scenario", "server", "--latency-bound-ms", "0"], "--latency-bound-ms"),
        (["--scenario", "server", "--latency-bound-ms", "nan"], "--latency-bound-ms"),
        (["--scenario", "server"], "--latency-bound-ms"),
        (["--scenario", "offline", "--batch-size", "0"], "--batch-size"),
    ],
)
def test_settings_loadgen_cannot_run_are_refused_before_anything_is_loaded(tmp_path, flags, named):
    message = refused("measure_inference", "digits", "--model", str(tmp_path / "absent.onnx"), *flags)

    assert message.startswith("invalid_setting:") and named in message


@pytest.mark.django_db
def test_make_run_s_measurement_is_priced_as_the_cpu_instance_of_its_cores_and_runs_once(
    checkpoints, tmp_path, monkeypatch
):
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    model = export(checkpoints["trained"], tmp_path / "digits.onnx")
    arguments = ["--model", str(model), "--scenario", "offline", "--quick", "--instance", "auto", "--provider", "aws"]
    arguments += ["--only-if-missing", "--submit", "--out", str(tmp_path / "o")]

    first = command("measure_inference", "digits", *arguments)
    again = command("measure_inference", "digits", *arguments)

    entry = Entry.objects.get(track="inference")
    assert "(catalog: aws/c5.large on-demand" in first and "nothing was measured" in again
    assert entry.hardware.endswith(", priced as aws/c5.large") and entry.samples_per_second > 0
    assert Entry.objects.count() == 1


@pytest.mark.django_db
def test_cuda_where_onnxruntime_has_no_cuda_provider_is_refused_saying_what_to_install(
    checkpoints, tmp_path, monkeypatch
):
    monkeypatch.setattr("onnxruntime.get_available_providers", lambda: ["CPUExecutionProvider"])
    model = export(checkpoints["trained"], tmp_path / "digits.onnx")

    message = refused("measure_inference", "digits", "--model", str(model), "--device", "cuda", "--quick")
    torch_on_cuda = refused(
        "measure_inference", "digits", "--model", str(checkpoints["trained"]), "--backend", "torch", "--device", "cuda"
    )

    assert message.startswith("no_cuda_provider:") and "onnxruntime-gpu" in message
    assert torch_on_cuda.startswith("invalid_setting:")


@pytest.mark.django_db
def test_the_record_names_the_execution_provider_that_ran_the_model(checkpoints, tmp_path):
    model = export(checkpoints["trained"], tmp_path / "digits.onnx")

    document = json.loads(
        command("measure_inference", "digits", "--model", str(model), "--quick", "--out", str(tmp_path / "o"), "--json")
    )

    assert json.loads(Path(document["record_path"]).read_text())["provider"] == "CPUExecutionProvider"
