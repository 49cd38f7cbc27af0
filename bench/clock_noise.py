"""Two spreads of the digits reference run's time to accuracy: the clock's own noise, and the recipe's over seeds.

* The clock's noise: one seed trained --repeats times in one process, the first run included (it pays torch's
  start-up, about 2 s, but in its initialisation, off the clock, with the warm-up). The run is deterministic for a
  seed, so every repeat takes the same epochs and steps: what varies is the clock and the machine. The goal
  is a coefficient of variation (sample standard deviation over mean) of at most 5 % on an idle machine.
* The recipe's spread: --seeds seeds, one run each: median time to accuracy, its coefficient of variation,
  and the fewest and most epochs, which is what a board comparing two entries has to live with.

Each run is `benchmarks.runner.loop.train_reference`, the job itself (no files written). The time is the job's
clock: from the first touch of the data to the evaluation that reaches the threshold, evaluation excluded.
It prints the machine's load average and CPUs before and after, and marks every run measured while other
work held the cores (`benchmarks.runner.load`: other processes took more than a quarter of one CPU over it),
since such a time is not comparable; the coefficient of variation over the idle runs alone is printed too.

A shared virtual machine can also slow down with no process of its own to show for it (a neighbour on the
host, a busy sibling hyperthread): the busy mark cannot see that. So after each repeat the bench also times the
machine's floor: the run's own training steps, as many as it took, on one made-up batch and nothing else (no
data, no clock, no evaluation). Their coefficient of variation is the machine's own noise for this work; the
clock's can hardly be lower, so where the floor is above the goal the machine cannot judge it: use a quieter one.

`--device cuda` times the same job on a GPU (bf16 autocast, as the job runs there); `make gpu-check` does.

Usage: .venv/bin/python bench/clock_noise.py [--repeats 10] [--seeds 10] [--seed 0] [--threads N] [--device cpu|cuda]
[--check]
(exit status 0 unless --check is given and the clock's goal is missed).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from benchmarks.runner.algorithm import Algorithm  # noqa: E402
from benchmarks.runner.config import Device, RunConfig  # noqa: E402
from benchmarks.runner.loop import (  # noqa: E402
    RunResult,
    mixed_precision,
    model_on,
    synchronize,
    train_reference,
    training_step,
)
from benchmarks.workloads import workload_class  # noqa: E402

GOAL_COEFFICIENT_OF_VARIATION = 0.05


def coefficient_of_variation(values: list[float]) -> float | None:
    return statistics.stdev(values) / statistics.fmean(values) if len(values) > 1 else None


def percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f} %"


def machine_line(when: str) -> str:
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    return f"  machine   {when}: load average (1, 5, 15 min) {load} on {len(os.sched_getaffinity(0))} CPUs (nproc)"


def runs_line(label: str, results: list[RunResult]) -> str:
    """Times (s) of the runs, a * marking a busy one, and the epochs each took."""
    cells = [f"{result.time_to_accuracy_seconds:.3f}{'*' if result.busy else ''}" for result in results]
    epochs = [str(result.epochs_to_accuracy) for result in results]
    return f"  {label:9} {' '.join(cells)} s; epochs {' '.join(epochs)}"


def spread_line(label: str, results: list[RunResult]) -> str:
    times = [result.time_to_accuracy_seconds for result in results]
    idle = [result.time_to_accuracy_seconds for result in results if not result.busy]
    return (
        f"  {label:9} median {statistics.median(times):.3f} s, min {min(times):.3f} s, max {max(times):.3f} s, "
        f"CV {percent(coefficient_of_variation(times))} (over the {len(idle)} idle runs: "
        f"{percent(coefficient_of_variation(idle))})"
    )


class MachineFloor:
    """The job's training steps on one made-up batch, timed alone: what the machine's own speed does to the
    run's time, with the data, the clock and the evaluations left out. Built once (model, optimizer, batch)."""

    def __init__(self, config: RunConfig):
        self.workload = workload_class(config.task, config.recipe)(config.data_dir, config.overrides)
        self.device = torch.device("cuda" if config.device is Device.CUDA else "cpu")
        torch.manual_seed(config.seed)
        self.model = model_on(self.workload, self.device)
        self.steps = Algorithm.of(self.workload).start(
            self.workload, self.model, steps_per_epoch=1, autocast=mixed_precision(self.device)
        )
        self.steps.state["scheduler"] = None  # the learning rate does not change the cost of a step
        self.batch = self.workload.synthetic_batch(self.workload.batch_size, torch.Generator().manual_seed(0))
        self.augmentation = torch.Generator(device=self.device).manual_seed(0)
        self.seconds(4)  # kernels built and pools filled before the first timing

    def seconds(self, steps: int) -> float:
        started = time.perf_counter()
        for _ in range(steps):
            training_step(self.workload, self.model, self.steps, self.batch, self.device, self.augmentation)
        synchronize(self.device)
        return time.perf_counter() - started


def reached(config: RunConfig) -> RunResult:
    result = train_reference(config)
    if not result.reached:
        raise SystemExit(f"seed {config.seed} did not reach the threshold in {len(result.evaluations)} epochs")
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=10, help="runs of the one seed (default 10)")
    parser.add_argument("--seeds", type=int, default=10, help="seeds, one run each (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="the repeated seed, and the first of --seeds")
    parser.add_argument("--threads", type=int, help="torch's threads (default: torch's own choice, as the job)")
    parser.add_argument("--device", choices=[device.value for device in Device], default=Device.CPU.value)
    parser.add_argument("--check", action="store_true", help="exit 1 when the clock's goal is missed")
    arguments = parser.parse_args()
    if arguments.repeats < 2 or arguments.seeds < 0:
        parser.error("--repeats must be at least 2 (a spread needs two runs) and --seeds at least 0")
    if arguments.threads:
        torch.set_num_threads(arguments.threads)

    device = Device(arguments.device)
    where = torch.cuda.get_device_name(0) if device is Device.CUDA and torch.cuda.is_available() else "CPU"
    threads = torch.get_num_threads()
    print(f"Dawnboard clock-noise bench: digits/cnn, torch {torch.__version__}, {threads} threads, {where}")
    print(machine_line("before"))
    config = RunConfig(task="digits", recipe="cnn", seed=arguments.seed, device=device)
    floor = MachineFloor(config)
    repeated, floors = [], []
    for _ in range(arguments.repeats):  # each repeat followed by its floor, so drifting speed hits both alike
        repeated.append(reached(config))
        floors.append(floor.seconds(repeated[-1].evaluations[repeated[-1].reached_index].step))
    seeds = [reached(config.with_seed(seed)) for seed in range(arguments.seed, arguments.seed + arguments.seeds)]
    print(machine_line("after"))

    clock_cv = coefficient_of_variation([result.time_to_accuracy_seconds for result in repeated])
    passed = clock_cv is not None and clock_cv <= GOAL_COEFFICIENT_OF_VARIATION
    same_epochs = len({result.epochs_to_accuracy for result in repeated}) == 1
    print(f"(a) the clock's noise: seed {arguments.seed} {arguments.repeats} times in one process, first run included")
    print(runs_line("runs", repeated))
    print(spread_line("spread", repeated))
    floor_cv = coefficient_of_variation(floors)
    print(
        f"  floor     the same steps on one made-up batch after each run: {' '.join(f'{s:.3f}' for s in floors)} s; "
        f"median {statistics.median(floors):.3f} s, CV {percent(floor_cv)} (the machine's own noise)"
    )
    machine_can_judge = floor_cv is not None and floor_cv <= GOAL_COEFFICIENT_OF_VARIATION
    print(
        f"  verdict   CV {percent(clock_cv)} against the goal <= {percent(GOAL_COEFFICIENT_OF_VARIATION)}: "
        f"{'PASS' if passed else 'FAIL'}; {'the same' if same_epochs else 'DIFFERENT'} epochs every run"
        + (
            ""
            if passed or machine_can_judge
            else f"; the machine's own floor is {percent(floor_cv)}: it cannot judge it"
        )
    )
    if seeds:
        print_seeds(arguments.seed, seeds)
    busy = sum(result.busy for result in repeated + seeds)
    print(
        f"  busy      {busy} of {len(repeated) + len(seeds)} runs measured while other work held the cores (*)"
        + (": their times are not comparable" if busy else "")
    )
    return 1 if arguments.check and not passed else 0


def print_seeds(first: int, seeds: list[RunResult]) -> None:
    epochs = [result.epochs_to_accuracy for result in seeds]
    print(f"(b) the recipe's spread: seeds {first}..{first + len(seeds) - 1}, one run each")
    print(runs_line("runs", seeds))
    print(spread_line("spread", seeds) + f"; epochs {min(epochs)} to {max(epochs)}")


if __name__ == "__main__":
    sys.exit(main())
