"""The algorithm runner's timed steps per second against a bare torch loop running the same algorithm (AdamW with
its warm-up and cosine schedule, the baseline's own functions) on the same workload and batches.

* bare: `next(queue)`, `zero_grad`, forward, loss, `backward`, `step`, the scheduler's `step`, timed as a whole
  over a fixed number of steps;
* ours: `benchmarks.algorithms.runner.run_trial` with an unreachable target and a budget of about the same work:
  its steps over its accumulated submission time (every data_selection and update_params timed, one by one, the
  progress callback and the evaluations off the clock). Goal: at least 0.95 of the bare loop's rate.

Two workloads: madelon_mlp (an MLP step of about 0.5 ms: where the runner's own cost shows) and pydoc_transformer
(about 20 ms a step). Sides alternate `--rounds` times (bench.pairs); the median of the paired ratios is printed.

Usage: .venv/bin/python bench/algorithm_runner.py [--rounds 5] [--seconds 2.0]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from functools import partial
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.pairs import alternating_pairs  # noqa: E402
from benchmarks.algorithms import spec  # noqa: E402
from benchmarks.algorithms.baselines import baseline  # noqa: E402
from benchmarks.algorithms.runner import run_trial  # noqa: E402
from benchmarks.algorithms.workloads import WORKLOADS  # noqa: E402

GOAL_RATIO = 0.95
POINT = baseline("adamw").SELF_TUNING  # the same point for both sides


def bare_steps_per_second(workload, steps: int) -> float:
    adamw = baseline("adamw")
    model, _ = workload.init_model_fn(0)
    state = adamw.init_optimizer_state(workload, model, None, spec.hyperparameters_of(POINT), 0)
    optimizer, scheduler = state["optimizer"], state["scheduler"]
    queue = workload._build_input_queue(0, "train", None, adamw.get_batch_size(workload.name))
    model.train()
    started = time.perf_counter()
    for _ in range(steps):
        batch = next(queue)
        optimizer.zero_grad()
        losses = workload.loss_fn(batch["targets"], model(batch["inputs"]))
        (losses["summed"] / losses["n_valid_examples"]).backward()
        optimizer.step()
        scheduler.step()
    return steps / (time.perf_counter() - started)


def runner_steps_per_second(workload, seconds: float) -> float:
    workload.validation_target_value = 2.0 if workload.higher_is_better else -1.0  # never reached
    workload.max_allowed_runtime_sec, workload.eval_period_time_sec = seconds, seconds
    trial = run_trial(workload, baseline("adamw"), POINT, seed=0, progress=lambda done, budget: None)
    return trial.steps / trial.evaluations[-1]["accumulated_submission_time"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=2.0, help="timed work of each side a round")
    args = parser.parse_args()
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; load average {load} on {os.cpu_count()} CPUs")
    for name in ("madelon_mlp", "pydoc_transformer"):
        workload = WORKLOADS[name]()
        first = bare_steps_per_second(workload, 20)  # also the warm-up
        steps = max(10, int(first * args.seconds))
        pairs = alternating_pairs(
            partial(runner_steps_per_second, workload, args.seconds),
            partial(bare_steps_per_second, workload, steps),
            rounds=args.rounds,
        )
        ratios = [ours / bare for ours, bare in pairs]
        ratio = statistics.median(ratios)
        print(
            f"{name}: runner {statistics.median(o for o, _ in pairs):,.1f} steps/s, bare loop "
            f"{statistics.median(b for _, b in pairs):,.1f}; ratio {ratio:.3f} (paired {min(ratios):.3f} to "
            f"{max(ratios):.3f}; goal >= {GOAL_RATIO}): {'PASS' if ratio >= GOAL_RATIO else 'FAIL'}"
        )
    print(f"load average after: {' '.join(f'{value:.2f}' for value in os.getloadavg())}")


if __name__ == "__main__":
    main()
