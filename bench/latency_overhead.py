"""The inference harness's mean latency as a ratio to a bare `session.run` loop over the same inputs.

For the digits CNN (0.05 ms an item: where any overhead shows) and ResNet-9 at 32x32, exported to ONNX
with random weights, in the same run:

* baseline: a bare loop over the evaluation items already turned into numpy arrays:
  `perf_counter_ns(); session.run(None, {name: x}); perf_counter_ns()`;
* ours: `inference.harness.measure` over the workload's own items through `OnnxBackend.run`, timing the
  backend call alone as `measure_inference` does.

Both use one onnxruntime session per model, the same thread count, and leave out the same warm-up items;
they alternate `--rounds` times and the ratio printed is the median of the paired ratios of means. The
goal is at most 1.03.

Usage: .venv/bin/python bench/latency_overhead.py [--rounds 9] [--threads N] [--items 450]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.pairs import alternating_pairs  # noqa: E402
from benchmarks.workloads.cifar10 import ResNet9Cifar10  # noqa: E402
from benchmarks.workloads.digits import DigitsCNNWorkload  # noqa: E402
from inference.backends import OnnxBackend  # noqa: E402
from inference.export import write_onnx  # noqa: E402
from inference.harness import measure  # noqa: E402

WARMUP = 10


def exported(model: torch.nn.Module, shape: tuple[int, ...], path: Path) -> Path:
    write_onnx(model, torch.zeros(shape), path)
    return path


def bare_mean_ms(backend: OnnxBackend, arrays: list[np.ndarray]) -> float:
    session, name = backend.session, backend.input_name
    latencies = []
    for array in arrays:
        started = time.perf_counter_ns()
        session.run(None, {name: array})
        latencies.append(time.perf_counter_ns() - started)
    return statistics.fmean(latencies[WARMUP:]) / 1e6


def harness_mean_ms(backend: OnnxBackend, items: list[tuple[torch.Tensor, torch.Tensor]]) -> float:
    return measure(backend.run, items, top_k=1, warmup=WARMUP).latency.mean_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="as measure_inference's default")
    parser.add_argument("--items", type=int, default=450)
    args = parser.parse_args()
    torch.manual_seed(0)
    digits = DigitsCNNWorkload()
    digits.load()
    digits_items = list(digits.evaluation_batches(1))[: args.items]
    cifar_items = [(torch.randn(1, 3, 32, 32), torch.zeros(1, dtype=torch.int64)) for _ in range(min(args.items, 200))]
    with tempfile.TemporaryDirectory() as folder:
        cases = [
            ("digits CNN 1x1x8x8", digits.build_model(), (1, 1, 8, 8), digits_items),
            ("ResNet-9 1x3x32x32", ResNet9Cifar10().build_model(), (1, 3, 32, 32), cifar_items),
        ]
        print(f"onnxruntime, {args.threads} threads, {args.rounds} rounds")
        for label, model, shape, items in cases:
            backend = OnnxBackend(exported(model, shape, Path(folder) / "model.onnx"), threads=args.threads)
            arrays = [np.ascontiguousarray(inputs.numpy(), dtype=np.float32) for inputs, _ in items]
            pairs = alternating_pairs(
                partial(harness_mean_ms, backend, items), partial(bare_mean_ms, backend, arrays), rounds=args.rounds
            )
            ratios = [ours / bare for ours, bare in pairs]
            print(
                f"{label}: harness {statistics.median(o for o, _ in pairs):.4f} ms, bare session.run "
                f"{statistics.median(b for _, b in pairs):.4f} ms (medians of {len(items) - WARMUP} items x "
                f"{args.rounds}); ratio {statistics.median(ratios):.3f} (paired {min(ratios):.3f} to "
                f"{max(ratios):.3f}; goal <= 1.03)"
            )


if __name__ == "__main__":
    main()
