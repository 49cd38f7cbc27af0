"""Images per second of the reference job's training loop, as a ratio to a bare torch loop over the same
model and batches.

For each recipe measured (digits' small CNN on its real data, where per-step overhead shows most, and
ResNet-9 on synthetic CIFAR-10 python batches written to a temporary folder), in the same run:

* baseline: a bare loop: the same workload's batches, collated once beforehand, then for each step
  `prepare` (to the device, augmented), the recipe's loss, backward, optimizer and scheduler steps;
* ours: `benchmarks.runner.loop.train_reference`, the job itself: the epoch order, the data path (reading
  and collating examples), the clock, the progress callback, the loss bookkeeping.

Evaluation is stubbed out (the job's clock excludes it anyway) so every epoch trains. The first epoch of
each is a warm-up and not counted. The two sides alternate (which goes first alternates too), at least `--repeats`
pairs for digits and `--cifar-repeats` for ResNet-9 (each of its steps takes seconds on a CPU), until the 95 %
interval of the median of the paired ratios lies within +-2 % (`bench.goals`; or a cap, `--max-seconds` for each
recipe, `--max-pairs`); the ratio printed is that median, so a slow moment of a shared machine cannot favour either
side. The goal is at least 0.95 for each recipe. A ResNet-9 pair takes minutes on 2 CPU cores: within the default
cap it is NOT JUDGED (too few pairs for an interval) unless `--max-seconds` allows an hour or more.

Usage: .venv/bin/python bench/train_overhead.py [--epochs 4] [--repeats 7] [--cifar-repeats 3] [--cifar-images 1024]
           [--max-seconds 120] [--max-pairs 2000]
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.goals import Goal, add_rule_arguments, judge_ratio, report, rule_from  # noqa: E402
from benchmarks.algorithms.recipes import recipe_optimizer  # noqa: E402
from benchmarks.runner.config import RunConfig  # noqa: E402
from benchmarks.runner.data import Shard, batched, epoch_order  # noqa: E402
from benchmarks.runner.loop import train_reference  # noqa: E402
from benchmarks.workloads import workload_class  # noqa: E402

GOAL = 0.95


def write_synthetic_cifar10(directory: Path, images: int) -> Path:
    """CIFAR-10 python batches (the real format) of random images: five training batches and a test batch."""
    rng = np.random.default_rng(0)
    per_batch = images // 5
    for name, count in [*((f"data_batch_{i}", per_batch) for i in range(1, 6)), ("test_batch", 100)]:
        batch = {
            b"batch_label": name.encode(),
            b"labels": rng.integers(0, 10, count).tolist(),
            b"data": rng.integers(0, 256, (count, 3072), dtype=np.uint8),
            b"filenames": [f"{name}_{i}.png".encode() for i in range(count)],
        }
        (directory / name).write_bytes(pickle.dumps(batch))
    return directory


def no_evaluation(workload_type):
    """The recipe with evaluation stubbed out: the bench times training only."""
    return type(f"Timed{workload_type.__name__}", (workload_type,), {"evaluate": lambda self, model, device: 0.0})


def job_images_per_second(task: str, recipe: str, data_dir: Path | None, epochs: int) -> float:
    config = RunConfig(task=task, recipe=recipe, data_dir=data_dir, max_epochs=epochs)
    workload = no_evaluation(workload_class(task, recipe))(data_dir)
    result = train_reference(config, workload=workload)
    seconds = result.evaluations[-1].training_seconds - result.evaluations[0].training_seconds
    return (epochs - 1) * result.steps_per_epoch * workload.batch_size / seconds


def bare_images_per_second(task: str, recipe: str, data_dir: Path | None, epochs: int) -> float:
    workload = workload_class(task, recipe)(data_dir)
    workload.load()
    torch.manual_seed(0)
    device = torch.device("cpu")
    model = workload.build_model()
    model = model.to(memory_format=torch.channels_last) if workload.channels_last else model
    order = epoch_order(workload.train_size, seed=0, epoch=1, shard=Shard())
    groups = list(batched(workload.examples(order), workload.batch_size))
    batches = [workload.collate(group) for group in groups]
    optimizer, schedule = recipe_optimizer(workload, model, len(batches))
    generator = torch.Generator().manual_seed(0)
    model.train()
    started = None
    for epoch in range(epochs):
        if epoch == 1:
            started = time.perf_counter()
        for batch in batches:
            prepared = workload.prepare(batch, device, generator)
            loss = workload.loss(model, prepared)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            schedule.step()
    seconds = time.perf_counter() - started
    return (epochs - 1) * len(batches) * workload.batch_size / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--cifar-repeats", type=int, default=3)
    parser.add_argument("--cifar-images", type=int, default=1024)
    add_rule_arguments(parser)
    args = parser.parse_args()
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, fp32 on the CPU")
    with tempfile.TemporaryDirectory() as folder:
        cifar_dir = write_synthetic_cifar10(Path(folder), args.cifar_images)
        for task, recipe, data_dir, repeats in (
            ("digits", "cnn", None, args.repeats),
            ("cifar10", "resnet9", cifar_dir, args.cifar_repeats),
        ):
            pairs: list[tuple[float, float]] = []  # (bare, job)
            verdict = judge_ratio(
                Goal(bench="train_overhead", name=f"{task}/{recipe} job / bare loop", target=GOAL, at_most=False),
                lambda: bare_images_per_second(task, recipe, data_dir, args.epochs),  # noqa: B023 (called here)
                lambda: job_images_per_second(task, recipe, data_dir, args.epochs),  # noqa: B023
                rule_from(args, min_pairs=repeats),
                pairs=pairs,
            )
            ratios = [job / bare for bare, job in pairs]
            print(
                f"{task}/{recipe}: job {statistics.median(job for _, job in pairs):,.0f} images/s, "
                f"bare loop {statistics.median(bare for bare, _ in pairs):,.0f} images/s (medians of {len(pairs)}); "
                f"ratio {verdict.median:.3f} (paired ratios {min(ratios):.3f} to {max(ratios):.3f}; "
                f"goal >= {GOAL})"
            )
            report([verdict])


if __name__ == "__main__":
    main()
