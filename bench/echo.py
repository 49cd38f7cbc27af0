"""Data echoing on the digits task with the upstream stage made the bottleneck.

"Faster Neural Network Training with Data Echoing" (Choi et al., 2019) repeats the output of a slow upstream
stage (reading, decoding) so the accelerator is not left waiting. Here the upstream is slowed on purpose:
reading each example costs a fixed `--read-ms` (a sleep, as waiting on a disk or a network does), so one
batch of fresh examples costs t_upstream = batch size x read time, against t_downstream, one training step,
measured first in the same run with a free upstream.

For echo factors 1, 2 and 4 (example stage), each over `--seeds` seeds, it trains to the digits threshold
and prints the median wall time to it (the job's clock: training time, evaluation excluded), the speedup
against factor 1, and two predictions side by side:

* the paper's: min(F, R) with R = t_upstream / t_downstream, for an upstream that overlaps the step;
* this job's: (R + 1) / (R / F + 1), since its data path runs in the training loop's thread (no overlap).

Both predict the speedup of a training step, assuming an echoed example trains as well as a fresh one; the
recipe's schedule counts steps, so an echoed run does the same steps on 1/F of the fresh data, and the
columns "epochs" (passes over fresh data) and "fresh examples" show how much fresh data it needed.

Usage: .venv/bin/python bench/echo.py [--read-ms 1.0] [--seeds 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.runner.config import EchoStage, RunConfig  # noqa: E402
from benchmarks.runner.loop import train_reference  # noqa: E402
from benchmarks.workloads.digits import DigitsCNNWorkload  # noqa: E402

FACTORS = (1, 2, 4)


class SlowReadDigits(DigitsCNNWorkload):
    """Digits whose every example takes `read_seconds` to read: an upstream stage slower than the step."""

    read_seconds = 0.0

    def examples(self, order):
        for index in order:
            time.sleep(self.read_seconds)
            yield index


def run(seed: int, factor: int, read_seconds: float, max_epochs: int | None = None):
    workload = type("Slow", (SlowReadDigits,), {"read_seconds": read_seconds})()
    config = RunConfig(
        task="digits", recipe="cnn", seed=seed, echo_factor=factor, echo_stage=EchoStage.EXAMPLE, max_epochs=max_epochs
    )
    return train_reference(config, workload=workload)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--read-ms", type=float, default=1.0, help="time to read one example")
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    read_seconds = args.read_ms / 1000

    free = run(seed=0, factor=1, read_seconds=0.0, max_epochs=3)
    steps = free.evaluations[-1].step - free.evaluations[0].step
    t_downstream = (free.evaluations[-1].training_seconds - free.evaluations[0].training_seconds) / steps
    batch_size = DigitsCNNWorkload().batch_size
    slow = run(seed=0, factor=1, read_seconds=read_seconds, max_epochs=2)
    slow_steps = slow.evaluations[-1].step - slow.evaluations[0].step
    t_step_slow = (slow.evaluations[-1].training_seconds - slow.evaluations[0].training_seconds) / slow_steps
    t_upstream = t_step_slow - t_downstream
    ratio = t_upstream / t_downstream
    print(
        f"one step {1000 * t_downstream:.2f} ms; reading a batch of {batch_size} "
        f"{1000 * t_upstream:.1f} ms (asked {args.read_ms} ms per example); R = {ratio:.1f}"
    )
    print("factor  time to 98 % (median s)  speedup  paper min(F,R)  sequential (R+1)/(R/F+1)  epochs  fresh examples")
    baseline = None
    for factor in FACTORS:
        results = [run(seed, factor, read_seconds) for seed in range(args.seeds)]
        reached = [result for result in results if result.reached]
        if not reached:
            print(f"{factor:>6}  did not reach the threshold")
            continue
        seconds = statistics.median(result.time_to_accuracy_seconds for result in reached)
        epochs = statistics.median(result.epochs_to_accuracy for result in reached)
        fresh = statistics.median(result.fresh_examples for result in reached)
        baseline = baseline or seconds
        print(
            f"{factor:>6}  {seconds:>23.2f}  {baseline / seconds:>7.2f}  {min(factor, ratio):>14.2f}  "
            f"{(ratio + 1) / (ratio / factor + 1):>24.2f}  {epochs:>6g}  {fresh:>14,.0f}"
            + (f"  ({len(reached)} of {len(results)} reached)" if len(reached) < len(results) else "")
        )


if __name__ == "__main__":
    main()
