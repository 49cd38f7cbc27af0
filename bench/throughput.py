"""Offline throughput through MLPerf LoadGen against a bare batched `session.run` loop, and the gap between the
two inference costs (single stream against throughput), for each reference model that exports to ONNX.

For each model, exported with random weights (the figures do not depend on them), in the same run:

* bare: `session.run` over batches of the model's batch size made up beforehand (concatenated, or for SQuAD's
  questions padded, once), timed as a whole: samples per second;
* LoadGen offline: one query of the same number of samples, which the harness's system under test answers in
  batches of the same size (`inference.loadgen`, as `measure_inference --scenario offline` does, concatenating or
  padding each batch's items as it goes): LoadGen's samples per second. Goal: at least 0.95 of the bare loop's;
* LoadGen single stream (quick profile, at least 64 queries): its mean latency, whence the rate one item at a time,
  1000 / mean ms. The offline rate over it is how much cheaper 10,000 items are at throughput than at single
  stream on the same machine (the two costs differ by exactly that factor).

Each test holds about `--seconds` of work (sized from a first bare pass); the two offline sides alternate
`--rounds` times (bench.pairs) and the ratio printed is the median of the paired ratios.

Usage: .venv/bin/python bench/throughput.py [--rounds 5] [--threads N] [--seconds 1.0] [--models digits,...,bidaf]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.made_up_items import held_library, made_up_items  # noqa: E402
from bench.pairs import alternating_pairs  # noqa: E402
from benchmarks.workloads import workload_class  # noqa: E402
from inference.backends import OnnxBackend  # noqa: E402
from inference.export import write_onnx  # noqa: E402
from inference.loadgen import Item, LoadGenSettings, SampleLibrary, loadgen_run  # noqa: E402

GOAL_RATIO = 0.95
IMAGENET_CLASSES = 1000
# SQuAD's reader at the size the recipe's vocabularies reach on the real training file (about 20,000 words seen 10
# times or more, about 200 characters seen 50 times), over made-up questions of the dev set's typical lengths.
SQUAD_WORDS, SQUAD_CHARS = 20_000, 200


@dataclass(frozen=True)
class Model:
    label: str
    task: str
    recipe: str
    batch_size: int  # offline's batch here: the recipe's training batch, capped so the bench stays short on a CPU


MODELS = {
    "digits": Model("digits CNN", "digits", "cnn", 64),
    "resnet9": Model("ResNet-9 (CIFAR10)", "cifar10", "resnet9", 64),
    "resnet164": Model("ResNet-164 (CIFAR10)", "cifar10", "resnet164", 32),
    "resnet50": Model("ResNet-50 (ImageNet, 224x224)", "imagenet", "resnet50", 16),
    "bidaf": Model("BiDAF (SQuAD, contexts of 100-180 tokens)", "squad", "bidaf", 60),
}


def feed(backend: OnnxBackend, batch: Item) -> dict[str, np.ndarray]:
    return dict(zip(backend.input_names, batch if isinstance(batch, tuple) else (batch,), strict=True))


def bare_samples_per_second(backend: OnnxBackend, batches: list[Item]) -> float:
    session, feeds = backend.session, [feed(backend, batch) for batch in batches]
    started = time.perf_counter()
    for inputs in feeds:
        session.run(None, inputs)
    return sum(len(next(iter(inputs.values()))) for inputs in feeds) / (time.perf_counter() - started)


def loadgen_samples_per_second(backend: OnnxBackend, items: SampleLibrary, samples: int, batch_size: int) -> float:
    settings = LoadGenSettings.of("offline", items=samples, quick=True, batch_size=batch_size)
    with tempfile.TemporaryDirectory() as logs:
        return loadgen_run(backend.run, items, settings, Path(logs)).test.samples_per_second


def single_stream_mean_ms(backend: OnnxBackend, items: SampleLibrary) -> float:
    settings = LoadGenSettings.of("single-stream", items=len(items), quick=True)
    with tempfile.TemporaryDirectory() as logs:
        return loadgen_run(backend.run, items, settings, Path(logs)).test.mean_ms


def measure_model(model: Model, args: argparse.Namespace, folder: Path) -> None:
    workload = workload_class(model.task, model.recipe)()
    if model.task == "imagenet":
        workload.classes = tuple(f"n{index:08d}" for index in range(IMAGENET_CLASSES))  # what `load` counts
    if model.task == "squad":
        workload.shape_from(
            {
                "word_embedding.weight": torch.zeros(SQUAD_WORDS, workload.config["word_dim"]),
                "char_cnn.embedding.weight": torch.zeros(SQUAD_CHARS, 1),
            }
        )
    path = folder / f"{model.task}-{model.recipe}.onnx"
    generator = torch.Generator().manual_seed(0)
    write_onnx(workload.build_model().eval(), workload.onnx_signature(1, generator), path)
    backend = OnnxBackend(path, threads=args.threads)
    items, batching = made_up_items(workload, model.batch_size * 2, generator)
    batch = batching.join(items[: model.batch_size])
    first = bare_samples_per_second(backend, [batch, batch])  # also the warm-up
    batches_needed = max(2, math.ceil(first * args.seconds / model.batch_size))
    samples = batches_needed * model.batch_size
    batches = [batch] * batches_needed
    items = held_library(items, batching)
    pairs = alternating_pairs(
        partial(loadgen_samples_per_second, backend, items, samples, model.batch_size),
        partial(bare_samples_per_second, backend, batches),
        rounds=args.rounds,
    )
    ratios = [ours / bare for ours, bare in pairs]
    offline = statistics.median(ours for ours, _ in pairs)
    single_mean_ms = single_stream_mean_ms(backend, items)
    single_rate = 1000 / single_mean_ms
    verdict = "PASS" if statistics.median(ratios) >= GOAL_RATIO else "FAIL"
    print(
        f"{model.label}, batch {model.batch_size}, {samples:,} samples a test:\n"
        f"  offline: LoadGen {offline:,.1f} samples/s, bare session.run "
        f"{statistics.median(bare for _, bare in pairs):,.1f}; ratio {statistics.median(ratios):.3f} (paired "
        f"{min(ratios):.3f} to {max(ratios):.3f}; goal >= {GOAL_RATIO}): {verdict}\n"
        f"  single stream: LoadGen mean {single_mean_ms:.4f} ms = {single_rate:,.1f} items/s one at a time; "
        f"offline answers {offline / single_rate:.1f}x as many: 10,000 items cost {offline / single_rate:.1f}x less "
        "at throughput"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="as measure_inference's default")
    parser.add_argument("--seconds", type=float, default=1.0, help="work in each offline test (default 1.0)")
    parser.add_argument("--models", default=",".join(MODELS), help=f"of {', '.join(MODELS)}")
    args = parser.parse_args()
    chosen = [name.strip() for name in args.models.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in MODELS]
    if unknown or args.rounds < 1 or args.seconds <= 0:
        parser.error(f"--models from {', '.join(MODELS)}; --rounds at least 1; --seconds above 0")
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"onnxruntime, {args.threads} threads, {args.rounds} rounds; load average {load} on {os.cpu_count()} CPUs")
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as folder:
        for name in chosen:
            measure_model(MODELS[name], args, Path(folder))
    print(f"load average after: {' '.join(f'{value:.2f}' for value in os.getloadavg())}")


if __name__ == "__main__":
    main()
