"""The inference harness's mean latency, and LoadGen's, as ratios to a bare `session.run` loop over the same inputs.

For the digits CNN (0.05 ms an item: where any overhead shows) and ResNet-9 at 32x32, exported to ONNX
with random weights, in the same run:

* baseline: a bare loop over the evaluation items already turned into numpy arrays:
  `perf_counter_ns(); session.run(None, {name: x}); perf_counter_ns()`;
* ours, one `inference.harness.measure` in the single-stream scenario (quick profile), as `measure_inference`
  runs it, which gives two figures:
  - the harness's mean: its timed pass (DAWNBench's latency, the entry's), its own loop answering one item at a
    time, each backend call (`OnnxBackend.run`) timed alone; goal at most 1.03;
  - LoadGen's mean: its performance test's, each query timed by LoadGen from its issue to its completion, its
    own bookkeeping and the Python callback included; goal at most 1.05. The difference from the bare call is
    printed in microseconds: what LoadGen's bookkeeping costs a query. Beside it, LoadGen's floor: its mean when
    the model is a function answering nothing at once, which is LoadGen and the harness's callback alone.

Both sides use one onnxruntime session per model, the same thread count, and leave out the same warm-up items;
they alternate in pairs (which goes first alternates too), at least `--rounds`, until the 95 % intervals of the
medians of both paired ratios lie within +-2 % (`bench.goals`; or a cap for each model: `--max-seconds`,
`--max-pairs`), and each ratio printed is the median of the paired ratios of means.

Usage: .venv/bin/python bench/latency_overhead.py [--rounds 9] [--threads N] [--items 450] [--max-seconds 120]
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

from bench.goals import Goal, add_rule_arguments, judge, report, rule_from  # noqa: E402
from bench.pairs import one_pair  # noqa: E402
from benchmarks.workloads.base import OnnxSignature  # noqa: E402
from benchmarks.workloads.cifar10 import ResNet9Cifar10  # noqa: E402
from benchmarks.workloads.digits import DigitsCNNWorkload  # noqa: E402
from inference.backends import OnnxBackend  # noqa: E402
from inference.export import write_onnx  # noqa: E402
from inference.harness import measure  # noqa: E402
from inference.items import ClassifiedItems  # noqa: E402
from inference.loadgen import LoadGenSettings, loadgen_run  # noqa: E402

WARMUP = 10
HARNESS_GOAL, LOADGEN_GOAL = 1.03, 1.05


def exported(model: torch.nn.Module, shape: tuple[int, ...], path: Path) -> Path:
    write_onnx(model, OnnxSignature.single_input(torch.zeros(shape)), path)
    return path


def bare_mean_ms(backend: OnnxBackend, arrays: list[np.ndarray]) -> float:
    session, name = backend.session, backend.input_name
    latencies = []
    for array in arrays:
        started = time.perf_counter_ns()
        session.run(None, {name: array})
        latencies.append(time.perf_counter_ns() - started)
    return statistics.fmean(latencies[WARMUP:]) / 1e6


def harness_mean_ms(backend: OnnxBackend, arrays: list[np.ndarray], loadgen_means: list[float]) -> float:
    """The harness's mean (its timed pass's); LoadGen's mean of the same measurement goes to `loadgen_means`."""
    settings = LoadGenSettings.of("single-stream", items=len(arrays), quick=True)
    with tempfile.TemporaryDirectory() as logs:
        items = ClassifiedItems.in_memory(arrays, [0] * len(arrays))
        measurement = measure(backend.run, items, settings, Path(logs), warmup=WARMUP)
    loadgen_means.append(measurement.performance.test.mean_ms)
    return measurement.latency.mean_ms


def loadgen_floor_us(arrays: list[np.ndarray]) -> float:
    """LoadGen's single-stream mean, in us, with a model answering nothing at once: its own cost a query."""
    nothing = np.zeros((1, 10), dtype=np.float32)
    settings = LoadGenSettings.of("single-stream", items=max(len(arrays), 2000), quick=True)
    with tempfile.TemporaryDirectory() as logs:
        return 1000 * loadgen_run(lambda _batch: nothing, arrays, settings, Path(logs)).test.mean_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="as measure_inference's default")
    parser.add_argument("--items", type=int, default=450)
    add_rule_arguments(parser)
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
        print(f"onnxruntime, {args.threads} threads, at least {args.rounds} rounds")
        for label, model, shape, items in cases:
            backend = OnnxBackend(exported(model, shape, Path(folder) / "model.onnx"), threads=args.threads)
            arrays = [np.ascontiguousarray(inputs.numpy(), dtype=np.float32) for inputs, _ in items]
            loadgen_means: list[float] = []
            pairs: list[tuple[float, float]] = []  # (harness, bare)
            harness, bare_loop = (
                partial(harness_mean_ms, backend, arrays, loadgen_means),
                partial(bare_mean_ms, backend, arrays),
            )

            def sample(index: int) -> tuple[float, float]:
                pairs.append(one_pair(harness, bare_loop, index))  # noqa: B023 (called within this iteration)
                return pairs[-1][0] / pairs[-1][1], loadgen_means[-1] / pairs[-1][1]  # noqa: B023

            goals = [
                Goal("latency_overhead", f"{label} harness / bare", HARNESS_GOAL, at_most=True),
                Goal("latency_overhead", f"{label} LoadGen / bare", LOADGEN_GOAL, at_most=True),
            ]
            verdicts = judge(goals, sample, rule_from(args, min_pairs=args.rounds))
            bare = [bare for _, bare in pairs]
            ratios = [ours / bare for ours, bare in pairs]
            loadgen_ratios = [ours / bare for ours, bare in zip(loadgen_means, bare, strict=True)]
            bookkeeping_us = [1000 * (ours - bare) for ours, bare in zip(loadgen_means, bare, strict=True)]
            print(
                f"{label}: bare session.run {statistics.median(bare):.4f} ms (median of {len(items) - WARMUP} items "
                f"x {len(pairs)})\n"
                f"  harness (timed pass)    {statistics.median(o for o, _ in pairs):.4f} ms: ratio "
                f"{verdicts[0].median:.3f} (paired {min(ratios):.3f} to {max(ratios):.3f}; goal <= {HARNESS_GOAL})\n"
                f"  LoadGen single stream   {statistics.median(loadgen_means):.4f} ms: ratio "
                f"{verdicts[1].median:.3f} (paired {min(loadgen_ratios):.3f} to "
                f"{max(loadgen_ratios):.3f}; goal <= {LOADGEN_GOAL}); LoadGen's bookkeeping "
                f"{statistics.median(bookkeeping_us):.1f} us a query (its floor, answering nothing: "
                f"{loadgen_floor_us(arrays):.1f} us)"
            )
            report(verdicts)


if __name__ == "__main__":
    main()
