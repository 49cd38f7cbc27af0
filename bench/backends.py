"""Batch-1 inference latency of onnxruntime against torch eager on the reference models, on this machine's CPU
cores, and the share of the cores' fp32 GEMM peak that each reaches.

For each reference model, built from the project's own code with seeded random weights, in eval mode and fp32
(the digits CNN on 1x1x8x8, ResNet-9 on 1x3x32x32, ResNet-50 v1.5 with 1000 classes on 1x3x224x224), in the
same run:

* baseline: torch eager under `torch.inference_mode()`, channels_last (the fast CPU layout here); eager in the
  default contiguous layout is timed beside it;
* ours: onnxruntime's CPU execution provider on the model exported with the legacy TorchScript exporter
  (opset 17), all graph optimisations on (batch norm folded into the convolutions, fusions).

Both use `--threads` threads (default: every core). The outputs of every backend are checked to agree before
any timing. Each item is one call on one fixed input, timed alone with `perf_counter_ns`. After warm-up calls
(a tenth of the items, at least 2) the backends take turns in `--rounds` rounds, in an order that reverses every
round, so that a slow moment of a shared machine does not count against one side only. Each turn starts with
`--settle-seconds` of untimed calls: onnxruntime's pool threads keep spinning for tens of milliseconds after a
run (and torch's OpenMP threads briefly after theirs), and on few cores the first calls of the other library
after a switch ran 2 to 3 times slower, which says nothing about either library run alone.

It prints mean and p50 latency, the ratio of the means ORT / eager channels_last (below 1: ORT is faster)
beside the issue's earlier 0.32 to 0.59, and achieved GFLOP/s (2 x the multiply-adds of the model's
convolutions and linear layers, counted with forward hooks, over the mean latency) as a share of the peak of
`torch.matmul` on square fp32 matrices on the same threads, measured before each model and at the end of the
run (the best of those). On a shared machine other work comes in bursts: the share of the cores that other
processes used while each model was timed (from /proc/stat) is printed, with a warning when it or the spread of
the GEMM figures says the means are not to be trusted.

Usage: .venv/bin/python bench/backends.py [--threads N] [--digits-items 1000] [--resnet9-items 500]
           [--resnet50-items 60] [--rounds 10] [--settle-seconds 0.2] [--gemm-size 2048] [--gemm-repeats 5]
"""

from __future__ import annotations

import argparse
import copy
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import onnxruntime
import torch
from torch import nn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.networks.resnet50 import ResNet50  # noqa: E402
from benchmarks.runner.record import cpu_model  # noqa: E402
from benchmarks.workloads.base import OnnxSignature  # noqa: E402
from benchmarks.workloads.cifar10 import ResNet9Cifar10  # noqa: E402
from benchmarks.workloads.digits import DigitsCNNWorkload  # noqa: E402
from inference.export import write_onnx  # noqa: E402

EARLIER_RATIOS = "0.32 to 0.59"  # ORT / eager, as the issue quotes it
RELATIVE_TOLERANCE = 1e-4  # of the largest output magnitude: fp32 with batch norm folded differs by ~1e-6


@dataclass(frozen=True)
class Reference:
    name: str
    build: Callable[[], nn.Module]
    shape: tuple[int, ...]
    items: int


def references(args: argparse.Namespace) -> list[Reference]:
    return [
        Reference("digits CNN", lambda: DigitsCNNWorkload().build_model(), (1, 1, 8, 8), args.digits_items),
        Reference("ResNet-9", lambda: ResNet9Cifar10().build_model(), (1, 3, 32, 32), args.resnet9_items),
        # Every residual branch live (not Goyal's zero-initialised last scale), so the agreement check covers it.
        Reference(
            "ResNet-50",
            lambda: ResNet50(num_classes=1000, zero_init_residual=False),
            (1, 3, 224, 224),
            args.resnet50_items,
        ),
    ]


def multiply_adds(model: nn.Module, images: torch.Tensor) -> int:
    """Multiply-adds of the model's convolutions and linear layers for `images`; batch norm, pooling,
    activations and residual additions are left out (a small share, and ORT folds batch norm away)."""
    total = 0

    def count(module: nn.Module, inputs: tuple[torch.Tensor, ...], output: torch.Tensor) -> None:
        nonlocal total
        if isinstance(module, nn.Conv2d):
            kernel_height, kernel_width = module.kernel_size
            total += output.numel() * module.in_channels // module.groups * kernel_height * kernel_width
        else:
            total += output.numel() * module.in_features

    hooks = [m.register_forward_hook(count) for m in model.modules() if isinstance(m, (nn.Conv2d, nn.Linear))]
    with torch.inference_mode():
        model(images)
    for hook in hooks:
        hook.remove()
    return total


def onnx_session(model: nn.Module, images: torch.Tensor, folder: Path, threads: int) -> onnxruntime.InferenceSession:
    path = folder / "model.onnx"
    write_onnx(model, OnnxSignature.single_input(images), path)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    return onnxruntime.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])


def gemm_flops_per_second(size: int, repeats: int) -> float:
    """Best-of-`repeats` fp32 FLOP/s of `torch.matmul` on two random size x size matrices."""
    generator = torch.Generator().manual_seed(0)
    a, b = (torch.randn(size, size, generator=generator) for _ in range(2))
    product = torch.empty(size, size)
    torch.matmul(a, b, out=product)  # warm-up
    best_ns = None
    for _ in range(repeats):
        started = time.perf_counter_ns()
        torch.matmul(a, b, out=product)
        elapsed = time.perf_counter_ns() - started
        best_ns = elapsed if best_ns is None else min(best_ns, elapsed)
    return 2 * size**3 / (best_ns / 1e9)


def settle(call: Callable[[], object], seconds: float) -> None:
    """Untimed calls for `seconds`, at least two: until the previous backend's threads have stopped spinning."""
    deadline = time.perf_counter() + seconds
    calls = 0
    while calls < 2 or time.perf_counter() < deadline:
        call()
        calls += 1


def interleaved_latencies_ns(
    backends: dict[str, Callable[[], object]], items: int, rounds: int, settle_seconds: float
) -> dict[str, list[int]]:
    """Per-call latencies of each backend, `items` each, taking turns in `rounds` rounds."""
    for call in backends.values():
        for _ in range(max(2, items // 10)):
            call()
    rounds = max(1, min(rounds, items))
    shares = [items // rounds + (index < items % rounds) for index in range(rounds)]
    latencies: dict[str, list[int]] = {name: [] for name in backends}
    names = list(backends)
    for index, share in enumerate(shares):
        for name in names if index % 2 == 0 else reversed(names):
            call = backends[name]
            settle(call, settle_seconds)
            for _ in range(share):
                started = time.perf_counter_ns()
                call()
                latencies[name].append(time.perf_counter_ns() - started)
    return latencies


def max_abs_difference(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))


def measure(reference: Reference, threads: int, rounds: int, settle_seconds: float) -> tuple[int, dict[str, list[int]]]:
    """FLOPs of one item and the per-call latencies of each backend on `reference`, after checking that
    their outputs agree (exits if they do not)."""
    torch.manual_seed(0)
    model = reference.build().eval()
    images = torch.randn(reference.shape, generator=torch.Generator().manual_seed(1))
    flops = 2 * multiply_adds(model, images)
    channels_last = copy.deepcopy(model).to(memory_format=torch.channels_last)
    images_channels_last = images.contiguous(memory_format=torch.channels_last)
    with tempfile.TemporaryDirectory() as folder, torch.inference_mode():
        session = onnx_session(model, images, Path(folder), threads)
        feed = {"input": images.numpy()}
        contiguous_output = model(images).numpy()
        differences = {
            "ORT": max_abs_difference(session.run(None, feed)[0], contiguous_output),
            "eager channels_last": max_abs_difference(channels_last(images_channels_last).numpy(), contiguous_output),
        }
        scale = float(np.max(np.abs(contiguous_output)))
        print(
            f"\n{reference.name} {'x'.join(map(str, reference.shape))}: {flops / 1e9:.3f} GFLOP per item; "
            "max abs difference from eager contiguous: "
            + ", ".join(f"{name} {value:.2e}" for name, value in differences.items())
            + f" (outputs up to {scale:.3g})"
        )
        if max(differences.values()) > RELATIVE_TOLERANCE * max(scale, 1.0):
            raise SystemExit(f"{reference.name}: the backends disagree; not timing them.")
        backends = {
            "ORT": partial(session.run, None, feed),
            "eager channels_last": partial(channels_last, images_channels_last),
            "eager contiguous": partial(model, images),
        }
        return flops, interleaved_latencies_ns(backends, reference.items, rounds, settle_seconds)


def busy_cpu_seconds() -> tuple[float, float] | None:
    """(seconds the whole machine's cores have been busy, seconds of this process) since boot, or None where
    /proc/stat cannot be read: their difference over a span is the CPU time of other work."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()
    except OSError:
        return None
    user, nice, system = (int(value) for value in fields[1:4])
    return (user + nice + system) / os.sysconf("SC_CLK_TCK"), time.process_time()


def other_work_share(before: tuple[float, float] | None, after: tuple[float, float] | None, wall: float) -> float:
    """Share of the machine's cores that other processes used over `wall` seconds (NaN where unknown)."""
    if before is None or after is None:
        return float("nan")
    machine, ours = after[0] - before[0], after[1] - before[1]
    return max(0.0, machine - ours) / (wall * (os.cpu_count() or 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--digits-items", type=int, default=1000)
    parser.add_argument("--resnet9-items", type=int, default=500)
    parser.add_argument("--resnet50-items", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--settle-seconds", type=float, default=0.2)
    parser.add_argument("--gemm-size", type=int, default=2048)
    parser.add_argument("--gemm-repeats", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(
        f"{cpu_model()}, {os.cpu_count()} cores, {args.threads} threads; torch {torch.__version__}, "
        f"onnxruntime {onnxruntime.__version__}; fp32, batch 1; load average {os.getloadavg()[0]:.2f} at the start"
    )
    peaks, rows, others = [], [], []
    for reference in references(args):
        peaks.append(gemm_flops_per_second(args.gemm_size, args.gemm_repeats))
        busy_before, started = busy_cpu_seconds(), time.perf_counter()
        flops, latencies = measure(reference, args.threads, args.rounds, args.settle_seconds)
        others.append(other_work_share(busy_before, busy_cpu_seconds(), time.perf_counter() - started))
        means_ms = {name: statistics.fmean(values) / 1e6 for name, values in latencies.items()}
        for name, values in latencies.items():
            print(
                f"  {name:<20} mean {means_ms[name]:8.3f} ms  p50 {statistics.median(values) / 1e6:8.3f} ms  "
                f"({len(values)} items)  {flops / (means_ms[name] / 1e3) / 1e9:7.2f} GFLOP/s"
            )
        print(f"  other processes used {100 * others[-1]:.0f} % of the cores meanwhile")
        rows.append((reference, flops, means_ms, latencies))

    peaks.append(gemm_flops_per_second(args.gemm_size, args.gemm_repeats))
    peak = max(peaks)
    print(
        f"\nfp32 GEMM peak ({args.gemm_size}x{args.gemm_size} torch.matmul, best of {args.gemm_repeats}, "
        f"{args.threads} threads): {peak / 1e9:.1f} GFLOP/s; before each model and at the end: "
        f"{', '.join(f'{value / 1e9:.0f}' for value in peaks)}; "
        f"load average {os.getloadavg()[0]:.2f} at the end"
    )
    print(
        f"\n{'model':<11} {'ORT / eager channels_last':>26} {'ORT / eager contiguous':>23}   "
        f"{'ORT % of peak':>13} {'eager cl % of peak':>19} {'eager contig % of peak':>23}"
    )
    for reference, flops, means_ms, latencies in rows:
        ratio = means_ms["ORT"] / means_ms["eager channels_last"]
        p50_ratio = statistics.median(latencies["ORT"]) / statistics.median(latencies["eager channels_last"])
        shares = [100 * flops / (means_ms[name] / 1e3) / peak for name in means_ms]
        print(
            f"{reference.name:<11} {ratio:>14.2f} (p50s {p50_ratio:.2f}) "
            f"{means_ms['ORT'] / means_ms['eager contiguous']:>23.2f}   "
            f"{shares[0]:>12.1f}% {shares[1]:>18.1f}% {shares[2]:>22.1f}%"
        )
    print(f"ratios are of mean latencies, ORT / eager (below 1: ORT faster); measured before: {EARLIER_RATIOS}")
    if min(peaks) < 0.85 * peak or max(others) > 0.1:
        print(
            "other work took the cores during the run (GEMM figures 15 % apart or other processes above 10 %): "
            "the means count it; compare the p50s, or run again"
        )


if __name__ == "__main__":
    main()
