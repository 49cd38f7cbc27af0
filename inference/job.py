"""A measurement from start to finish: load the model and the task's evaluation items, answer them one at a
time, and write the DAWNBench inference entry (by the rules package's writer) and the record; then read the
entry back through the rules package's ingest, as the board would, so a model below the threshold is
reported with the board's own error code.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import torch

from benchmarks.runner.record import (
    DEFAULT_AUTHOR,
    DEFAULT_AUTHOR_EMAIL,
    hardware_text,
    library_versions,
    machine_facts,
)
from benchmarks.workloads import workload_class
from benchmarks.workloads.base import DatasetMissing, OnnxSignature, Workload
from dawnboard.documents import priced_as_hardware
from dawnboard.formats.dawnbench import write_entry
from dawnboard.ingest import validate_dawnbench_files
from dawnboard.recipes import recipe_named
from dawnboard.rules import Track, current_rules, rules_catalog
from dawnboard.scoring import (
    HourlyPrice,
    inference_cost_usd_per_10k,
    inference_cost_usd_per_10k_at_throughput,
    inference_cost_usd_per_item,
    shortest_decimal,
)
from dawnboard.validation import IngestRejection, IngestResult
from inference.backends import OnnxBackend, TorchBackend
from inference.checkpoint import checkpoint_read
from inference.errors import InferenceError, InferenceErrorCode
from inference.harness import PREPROCESSING, Measurement, measure
from inference.items import evaluation_items
from inference.loadgen import LoadGenSettings
from inference.options import Backend, MeasureOptions, Scenario


@dataclass(frozen=True)
class MeasurementReport:
    options: MeasureOptions
    measurement: Measurement
    threshold: float
    price: HourlyPrice | None
    entry_bytes: bytes
    record: dict[str, Any]
    entry_path: Path
    record_path: Path
    verdict: IngestResult | IngestRejection

    @property
    def meets_threshold(self) -> bool:
        return self.measurement.accuracy >= self.threshold

    @property
    def cost_usd_per_10k(self) -> float | None:
        return self.record["cost_usd_per_10k"]

    def as_dict(self) -> dict[str, Any]:
        """The `--json` document."""
        return {
            "task": self.options.task,
            "backend": str(self.options.backend),
            "items": self.measurement.items,
            "latency_ms": self.record["latency_ms"],
            "accuracy": self.measurement.accuracy,
            "threshold": self.threshold,
            "meets_threshold": self.meets_threshold,
            "cost_usd_per_10k": self.cost_usd_per_10k,
            "price": self.price.as_dict() if self.price else None,
            "entry_path": str(self.entry_path),
            "record_path": str(self.record_path),
            "scenario": self.record["scenario"],
            "samples_per_second": self.record["samples_per_second"],
            "queries_per_second": self.record["queries_per_second"],
            "cost_usd_per_10k_at_throughput": self.record["cost_usd_per_10k_at_throughput"],
            "loadgen": {
                key: self.record["loadgen"][key] for key in ("valid", "summary_path", "detail_path", "settings")
            },
        }


def measurement_run(
    options: MeasureOptions,
    out_dir: Path,
    *,
    price: HourlyPrice | None = None,
    progress: Callable[[int], None] | None = None,
    author: str = DEFAULT_AUTHOR,
    author_email: str = DEFAULT_AUTHOR_EMAIL,
) -> MeasurementReport:
    """Measure, write `<out>/<task>_<backend>.json` and `record.json`, and judge the entry as the board would.

    Raises:
        InferenceError: with its code, before anything is written.
    """
    threads_before = torch.get_num_threads()
    try:
        return _measurement_run(options, out_dir, price=price, progress=progress, author=author, email=author_email)
    finally:
        torch.set_num_threads(threads_before)  # the torch backend sets its own; a worker's next job gets its own back


def _measurement_run(options, out_dir, *, price, progress, author, email) -> MeasurementReport:
    backend, workload = _backend_and_workload(options)
    batch_size = options.batch_size or workload.batch_size
    backend.check_inputs(_signature(workload, 1))
    if options.scenario is Scenario.OFFLINE:
        backend.check_inputs(_signature(workload, batch_size))
    if "workers" in workload.config:
        # Items are decoded in this process, before LoadGen starts: no loader process competes with a query.
        workload.config["workers"] = 0
    try:
        workload.load()
    except DatasetMissing as error:
        raise InferenceError(InferenceErrorCode.DATASET_MISSING, str(error)) from None
    _check_input_encoding(backend.input_encoding, workload)
    count = workload.eval_size if options.limit is None else min(options.limit, workload.eval_size)
    rules = current_rules(options.task)
    chosen = {"latency_bound_ms": options.latency_bound_ms} if options.scenario is Scenario.SERVER else {}
    if options.scenario is Scenario.OFFLINE:
        chosen["batch_size"] = min(batch_size, count)
    settings = LoadGenSettings.of(str(options.scenario), items=count, quick=options.quick, **chosen)
    measurement = measure(
        backend.run,
        evaluation_items(workload, count, top_k=5 if rules.log_column == "top5Accuracy" else 1),
        settings,
        out_dir / "loadgen",
        warmup=options.warmup,
        progress=progress,
    )
    threshold = float(rules.threshold)
    latency, test = measurement.latency, measurement.performance.test
    throughput = test.samples_per_second if options.scenario is Scenario.OFFLINE else None
    costs = _costs(price, mean_ms=latency.mean_ms, samples_per_second=throughput)
    facts = machine_facts("cpu")
    facts["threads"] = backend.threads
    document = {
        "version": rules.version,
        "author": author,
        "authorEmail": email,
        "framework": f"{backend.name} {backend.version}",
        "model": recipe_named(options.task, workload.recipe).model,
        # The machine measured, then the catalog instance it was priced as (which the board's resolver reads).
        "hardware": priced_as_hardware(hardware_text(facts, 1), price.instance if price else None),
        "timestamp": datetime.now(UTC).date().isoformat(),
        "latency": latency.mean_ms,
        rules.inference_fields[0]: measurement.accuracy,
        "misc": {
            "measured by": "Dawnboard's inference harness, driven by MLPerf LoadGen",
            "items": measurement.items,
            "threads": backend.threads,
            "scenario": str(options.scenario),
            # More than 1: the first timed passes' means lay outside LoadGen's queries and were measured again.
            "timed passes": len(measurement.timed_pass_means_ms),
        },
    }
    if costs.per_item is not None:
        document["cost"] = float(costs.per_item)
    entry_bytes = write_entry(document)
    loadgen = _loadgen_record(measurement)
    record = {
        "task": options.task,
        "recipe": workload.recipe,
        "backend": backend.name,
        "backend_version": backend.version,
        "provider": backend.provider,
        "model_path": str(options.model),
        "model_sha256": hashlib.sha256(options.model.read_bytes()).hexdigest(),
        "scenario": str(options.scenario),
        "items": measurement.items,
        "warmup": measurement.warmup,
        "timed_items": latency.items,
        "limit": options.limit,
        "threads": backend.threads,
        "batch_size": measurement.settings.batch_size,
        "latency_ms": latency.percentiles(),
        # A single stream's timed pass is measured again while its mean lies outside LoadGen's queries (harness).
        "timed_pass_means_ms": list(measurement.timed_pass_means_ms),
        "histogram": latency.histogram(),
        "accuracy": measurement.accuracy,  # LoadGen's accuracy pass, in the task's scale
        "scores": measurement.score.figures,  # what it comes from: top-k hits, or SQuAD's exact match and F1
        "timed_pass_accuracy": measurement.timed_pass_score.quality,
        "top_k": measurement.score.figures.get("top_k"),
        "threshold": threshold,
        "meets_threshold": measurement.accuracy >= threshold,
        "samples_per_second": throughput,
        "queries_per_second": _held_rate(measurement),
        "cost_usd_per_item": _number(costs.per_item),
        "cost_usd_per_10k": _number(costs.per_10k),
        "cost_usd_per_10k_at_throughput": _number(costs.per_10k_at_throughput),
        "price": price.as_dict() if price else None,
        "preprocessing": PREPROCESSING,
        "loadgen": loadgen,
        "machine": facts,
        "versions": library_versions(),
        "measured_at": datetime.now(UTC).isoformat(),
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    entry_path = out_dir / f"{options.task}_{backend.name}.json"
    record_path = out_dir / "record.json"
    entry_path.write_bytes(entry_bytes)
    record_path.write_text(json.dumps(record, indent=2) + "\n")
    verdict = validate_dawnbench_files(
        task_slug=options.task,
        track=Track.INFERENCE,
        entry_bytes=entry_bytes,
        logs=[measurement.performance.summary_path.read_bytes(), measurement.performance.detail_path.read_bytes()],
        catalog=rules_catalog(),
    )
    return MeasurementReport(
        options=options,
        measurement=measurement,
        threshold=threshold,
        price=price,
        entry_bytes=entry_bytes,
        record=record,
        entry_path=entry_path,
        record_path=record_path,
        verdict=verdict,
    )


@dataclass(frozen=True)
class _Costs:
    per_item: Decimal | None = None  # at single stream: the mean latency's
    per_10k: Decimal | None = None
    per_10k_at_throughput: Decimal | None = None  # offline: 10,000 items at the measured samples per second


def _costs(price: HourlyPrice | None, *, mean_ms: float, samples_per_second: float | None) -> _Costs:
    """Both inference costs by the rules package's formulas, where there is a price (and, at throughput, a rate)."""
    if price is None:
        return _Costs()
    per_item = inference_cost_usd_per_item(latency_ms=shortest_decimal(mean_ms), usd_per_hour=price.usd_per_hour)
    at_throughput = None
    if samples_per_second:
        at_throughput = inference_cost_usd_per_10k_at_throughput(
            samples_per_second=shortest_decimal(samples_per_second), usd_per_hour=price.usd_per_hour
        )
    return _Costs(per_item, inference_cost_usd_per_10k(cost_usd_per_item=per_item), at_throughput)


def _number(value: Decimal | None) -> float | None:
    return float(value) if value is not None else None


def _held_rate(measurement: Measurement) -> float | None:
    """The server's highest rate LoadGen judged VALID (its scheduled queries per second); None otherwise."""
    if measurement.settings.scenario != "server" or not measurement.valid:
        return None
    return measurement.performance.test.scheduled_queries_per_second


def _loadgen_record(measurement: Measurement) -> dict[str, Any]:
    """What the record keeps of LoadGen: its verdict, its figures, its logs (path and sha256), the settings."""
    outcome, test = measurement.performance, measurement.performance.test
    summary = outcome.summary_path.read_bytes()
    return {
        "valid": test.valid,
        "scenario": test.scenario,
        "mode": test.mode,
        "version": test.loadgen_version,
        "query_count": test.query_count,
        "latency_ms": test.latencies_ms(),
        "early_stopping_p90_ms": test.early_stopping_p90_ms,
        "samples_per_second": test.samples_per_second,
        "scheduled_queries_per_second": test.scheduled_queries_per_second,
        "completed_queries_per_second": test.completed_queries_per_second,
        "min_duration_met": test.min_duration_met,
        "min_queries_met": test.min_queries_met,
        "early_stopping_met": test.early_stopping_met,
        "problems": [issue.as_dict() for issue in test.problems(scenario=measurement.settings.scenario)],
        "settings": measurement.settings.as_dict(),
        "server_tries": [attempt.as_dict() for attempt in measurement.server_tries],
        "summary_path": str(outcome.summary_path),
        "detail_path": str(outcome.detail_path),
        "summary_sha256": hashlib.sha256(summary).hexdigest(),
        "summary_text": summary.decode(errors="replace"),  # LoadGen's own account, a few lines
        "detail_sha256": hashlib.sha256(outcome.detail_path.read_bytes()).hexdigest(),
    }


def _signature(workload: Workload, batch: int) -> OnnxSignature:
    """The inputs the task's model takes, in a batch of `batch` (made-up values: their types and shapes matter)."""
    signature = workload.onnx_signature(batch, torch.Generator().manual_seed(0))
    if signature is None:
        raise InferenceError(
            InferenceErrorCode.UNSUPPORTED_TASK, f"{workload.task}/{workload.recipe} has no inputs to measure."
        )
    return signature


def _check_input_encoding(expected: dict[str, Any] | None, workload: Workload) -> None:
    """Refuse data that encodes the items otherwise than the model was trained with (SQuAD's vocabularies, rebuilt
    from the training and dev files at --data-dir): the model would answer other words than it was asked. A model
    that does not say its encoding (an ONNX file from elsewhere) is taken as it is."""
    found = workload.input_encoding()
    if expected is None or found is None or expected == found:
        return
    raise InferenceError(
        InferenceErrorCode.INPUT_ENCODING_MISMATCH,
        f"The model was trained with the input encoding {json.dumps(expected, sort_keys=True)}; the data at "
        f"--data-dir gives {json.dumps(found, sort_keys=True)}: measure it on the data (and settings) it was "
        "trained on.",
    )


def _backend_and_workload(options: MeasureOptions) -> tuple[OnnxBackend | TorchBackend, Workload]:
    if options.backend is Backend.TORCH:
        checkpoint = checkpoint_read(options.model, task=options.task)
        return TorchBackend(checkpoint, threads=options.threads), checkpoint.workload(options.data_dir)
    backend = OnnxBackend(options.model, threads=options.threads, device=options.device)
    metadata = backend.metadata
    task = metadata.get("dawnboard.task", options.task)
    if task != options.task:
        raise InferenceError(
            InferenceErrorCode.WRONG_TASK, f"{options.model} is a model of {task}, not of {options.task}."
        )
    # The items are preprocessed as the model's recipe evaluates them; a file without Dawnboard's metadata
    # gets the task's first recipe.
    recipe = metadata.get("dawnboard.recipe") or recipe_named(options.task).name
    overrides = backend.metadata_json("dawnboard.overrides", {})
    try:
        return backend, workload_class(options.task, recipe)(options.data_dir, overrides)
    except KeyError:
        raise InferenceError(InferenceErrorCode.WRONG_TASK, f"{options.task} has no recipe {recipe!r}.") from None
