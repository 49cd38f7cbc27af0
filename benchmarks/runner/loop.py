"""The training job: train a recipe until the task's threshold or the last epoch, timed by the board's rules.

The job follows MLPerf's clock. Between `init_start` and `init_stop`, off the clock, it seeds torch, builds
the model (unless the recipe's model is shaped by its data) and warms up: a few training steps on made-up
data pay for what a process pays once (torch's imports, kernels built for the batch's shapes), then the
model is put back as it was. `run_start` is the clock's start, just before the data is first touched
(loading is training time); the clock is paused while the model is evaluated after each epoch. The run
stops at the first evaluation that reaches the threshold of the task's current version (`dawnboard.rules`);
time to accuracy is then read off the curve by the rules package's `first_crossing`, the same function
that reads a submitted log. On the CPU, kernels are deterministic: a seed fixes the run's every step.

A recipe is a workload paired with an algorithm (`benchmarks.algorithms.recipes`): the job builds the optimizer
state with the algorithm's `init_optimizer_state` and takes each training step with its `update_params`, on the
batches it reads, in its order, under its precision.

The machine's load over the run (`benchmarks.runner.load`) is measured with it: a time measured while
other work held the cores is not comparable.
"""

from __future__ import annotations

import contextlib
import gc
import math
import os
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn

from benchmarks.runner.algorithm import Algorithm, AlgorithmSteps
from benchmarks.runner.config import Device, RunConfig
from benchmarks.runner.data import FreshCount, Shard, epoch_batches, epoch_order, steps_per_epoch
from benchmarks.runner.distributed import (
    Processes,
    broadcast_float,
    process_group_start,
    processes_from_environment,
)
from benchmarks.runner.load import MachineLoad, load_snapshot, machine_load
from benchmarks.runner.timer import Phases, TrainingClock, unix_ms
from benchmarks.workloads import workload_class
from benchmarks.workloads.base import Workload
from dawnboard.rules import current_rules
from dawnboard.scoring import first_crossing

# Enough for the kernels and the allocator to settle (the first step costs about twice a later one); a
# few dozen milliseconds for digits, and nothing a run keeps.
WARM_UP_STEPS = 5


@dataclass(frozen=True)
class Evaluation:
    """One point of the curve: quality after `epoch` epochs and `training_seconds` of training."""

    epoch: int
    step: int
    training_seconds: float
    quality: float
    evaluation_seconds: float
    fresh_examples: int
    train_loss: float
    started_seconds: float = 0.0  # the clock's reading when the epoch began

    @property
    def hours(self) -> float:
        return self.training_seconds / 3600.0


@dataclass(frozen=True)
class Progress:
    """Where a run is, for a progress bar or a task state."""

    epoch: int
    epochs: int
    step: int  # within the epoch
    steps_per_epoch: int
    training_seconds: float
    quality: float | None  # the latest evaluation's
    evaluated: bool = False  # reported right after an evaluation


ProgressCallback = Callable[[Progress], None]


@dataclass
class RunResult:
    config: RunConfig
    recipe_config: dict[str, Any]
    data_summary: dict[str, Any]
    threshold: float
    evaluations: list[Evaluation]
    steps_per_epoch: int
    fresh_examples: int
    processes: Processes
    threads: int
    model: nn.Module = field(repr=False)
    phases: Phases
    machine_load: MachineLoad
    global_batch_size: int
    train_samples: int  # examples in the training set
    eval_samples: int | None  # examples evaluated, where the recipe says

    @property
    def busy(self) -> bool:
        """Other work held the cores while the run was timed: its time is not comparable."""
        return self.machine_load.busy

    @property
    def reached_index(self) -> int | None:
        qualities = np.array([point.quality for point in self.evaluations], dtype=float)
        return first_crossing(qualities, self.threshold) if len(qualities) else None

    @property
    def reached(self) -> bool:
        return self.reached_index is not None

    @property
    def time_to_accuracy_seconds(self) -> float | None:
        index = self.reached_index
        return None if index is None else self.evaluations[index].training_seconds

    @property
    def epochs_to_accuracy(self) -> int | None:
        index = self.reached_index
        return None if index is None else self.evaluations[index].epoch

    @property
    def training_seconds(self) -> float:
        return self.evaluations[-1].training_seconds if self.evaluations else 0.0


def device_of(config: RunConfig, processes: Processes) -> torch.device:
    if config.device is Device.CUDA:
        if not torch.cuda.is_available():
            raise RuntimeError("--device cuda was asked for, but torch sees no CUDA device here.")
        return torch.device("cuda", processes.local_rank)
    return torch.device("cpu")


def train_reference(
    config: RunConfig,
    *,
    progress: ProgressCallback | None = None,
    workload: Workload | None = None,
    warm_up_steps: int = WARM_UP_STEPS,
) -> RunResult:
    """Run one reference training job to the threshold (or the last epoch) and return its curve and model.

    `workload` replaces the recipe's own (the benches give one whose data path is slowed on purpose);
    `warm_up_steps` training steps on made-up data precede the clock (0: none).

    Raises:
        DatasetMissing: the data directory lacks what the recipe reads.
        KeyError: no such recipe.
    """
    init_start_unix_ms = unix_ms()
    processes = processes_from_environment()
    device = device_of(config, processes)
    _device_setup(device, processes)
    if workload is None:
        workload = workload_class(config.task, config.recipe)(config.data_dir, config.overrides)
    workload.check_data()  # a missing dataset is told before the warm-up, not minutes after
    batch_size = process_batch_size(workload.batch_size, processes)
    threshold = float(current_rules(config.task).threshold)
    algorithm = Algorithm.of(workload, config.seed)  # imported off the clock
    with _deterministic(device):
        torch.manual_seed(config.seed)
        model = None if workload.model_needs_data else model_on(workload, device)
        warmed = _warm_up(workload, algorithm, model, device, batch_size=batch_size, steps=warm_up_steps)
        gc.collect()  # what earlier runs in this process left for the collector goes now, off the clock
        clock = TrainingClock(device)
        init_stop_unix_ms = unix_ms()
        load_at_start = load_snapshot()
        clock.start()  # run_start: the data is touched from here on
        workload.load()
        model = model if model is not None else model_on(workload, device)
        trained = _data_parallel(model, processes, device)
        run = _Run(
            config, workload, algorithm, model, trained, device, processes, clock, progress, batch_size, threshold
        )
        evaluations = _train(run)
        machine = machine_load(load_at_start, load_snapshot())
    phases = Phases(init_start_unix_ms, init_stop_unix_ms, clock.started_unix_ms, warm_up_steps=warmed)
    return RunResult(
        config=config,
        recipe_config=dict(workload.config),
        data_summary=workload.data_summary(),
        threshold=threshold,
        evaluations=evaluations,
        steps_per_epoch=run.steps_per_epoch,
        fresh_examples=run.fresh.examples * processes.world_size,
        processes=processes,
        threads=torch.get_num_threads(),
        model=model,
        phases=phases,
        machine_load=machine,
        global_batch_size=workload.batch_size,
        train_samples=workload.train_size,
        eval_samples=workload.eval_size,
    )


@dataclass
class _Run:
    """What the epochs of one run share (the parts of `train_reference` after the clock starts)."""

    config: RunConfig
    workload: Workload
    algorithm: Algorithm
    model: nn.Module
    trained: nn.Module  # the model, or its data-parallel wrapper
    device: torch.device
    processes: Processes
    clock: TrainingClock
    progress: ProgressCallback | None
    batch_size: int  # this process's share of the recipe's batch
    threshold: float
    fresh: FreshCount = field(default_factory=FreshCount)

    def __post_init__(self):
        config, processes = self.config, self.processes
        self.augmentation = torch.Generator(device=self.device).manual_seed(config.seed * 1_000 + processes.rank)
        self.echo_rng = random.Random(config.seed * 1_000 + processes.rank)
        self.shard = Shard(rank=processes.rank, count=processes.world_size)
        shard_size = self.workload.train_size // self.shard.count
        self.steps_per_epoch = steps_per_epoch(
            shard_size, batch_size=self.batch_size, echo_factor=config.echo_factor, echo_stage=config.echo_stage
        )
        # The schedule counts training steps, echoed or not: echoing F times runs the recipe's steps on 1/F of
        # the fresh data (Choi et al.), so its schedule ends after epochs / F passes over the data.
        plain_per_epoch = steps_per_epoch(
            shard_size, batch_size=self.batch_size, echo_factor=1, echo_stage=config.echo_stage
        )
        self.steps = self.algorithm.start(
            self.workload, self.trained, steps_per_epoch=plain_per_epoch, autocast=mixed_precision(self.device)
        )
        self.epochs = config.max_epochs or math.ceil(self.workload.epochs / config.echo_factor)


def _train(run: _Run) -> list[Evaluation]:
    """Epochs until the threshold or the last epoch, each followed by an evaluation off the clock."""
    evaluations: list[Evaluation] = []
    quality: float | None = None
    total_steps = 0
    for epoch in range(1, run.epochs + 1):
        started_seconds = run.clock.seconds
        steps, loss_sum = _train_epoch(run, epoch, quality)
        total_steps += steps
        training_seconds = run.clock.pause()
        evaluation = _evaluate(run.workload, run.model, run.device, run.processes)
        run.clock.resume()
        quality = evaluation.quality
        evaluations.append(
            Evaluation(
                epoch=epoch,
                step=total_steps,
                training_seconds=training_seconds,
                quality=quality,
                evaluation_seconds=evaluation.seconds,
                fresh_examples=run.fresh.examples * run.processes.world_size,
                train_loss=float(loss_sum) / max(steps, 1),
                started_seconds=started_seconds,
            )
        )
        if run.progress is not None:
            run.progress(
                Progress(epoch, run.epochs, steps, run.steps_per_epoch, training_seconds, quality, evaluated=True)
            )
        if quality >= run.threshold:
            break
    return evaluations


def _train_epoch(run: _Run, epoch: int, quality: float | None) -> tuple[int, torch.Tensor]:
    """One epoch's training steps; returns how many, and their summed loss (on the device: no sync per step)."""
    run.trained.train()
    loss_sum = torch.zeros((), device=run.device)
    step = 0
    order = epoch_order(run.workload.train_size, seed=run.config.seed, epoch=epoch, shard=run.shard)
    batches = epoch_batches(
        run.workload,
        order,
        batch_size=run.batch_size,
        echo_factor=run.config.echo_factor,
        echo_stage=run.config.echo_stage,
        buffer_size=run.config.shuffle_buffer,
        rng=run.echo_rng,
        fresh=run.fresh,
    )
    for batch in batches:
        loss = training_step(run.workload, run.trained, run.steps, batch, run.device, run.augmentation)
        loss_sum += loss
        step += 1
        if run.progress is not None:
            run.progress(Progress(epoch, run.epochs, step, run.steps_per_epoch, run.clock.seconds, quality))
    return step, loss_sum


def training_step(
    workload: Workload,
    trained: nn.Module,
    steps: AlgorithmSteps,
    batch: Any,
    device: torch.device,
    generator: torch.Generator,
) -> torch.Tensor:
    """One training step on a collated batch, prepared here and taken by the recipe's algorithm; returns its loss,
    detached."""
    return steps.update(trained, workload.prepare(batch, device, generator))


def _device_setup(device: torch.device, processes: Processes) -> None:
    process_group_start(processes, device.type)
    if device.type == "cuda":
        torch.cuda.set_device(device)
        torch.backends.cudnn.benchmark = True
    elif processes.local_world_size > 1:  # processes sharing the CPU split its cores instead of fighting over them
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // processes.local_world_size))


@contextlib.contextmanager
def _deterministic(device: torch.device) -> Iterator[None]:
    """Deterministic kernels where they cost nothing: on the CPU, where almost every kernel already is, a
    seed then fixes the whole run (with the seeded data order and augmentation). On CUDA they would turn off
    cuDNN's autotuner and need a cuBLAS workspace setting, so a CUDA run is left to its seeds. A kernel with
    no deterministic version warns rather than stopping a run. Torch would also fill every new tensor
    before use (a guard against kernels that read memory they never wrote, which ours do not): 10 % of a
    digits step, so it is left off. The previous settings are restored after."""
    if device.type != "cpu":
        yield
        return
    enabled = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    fill = torch.utils.deterministic.fill_uninitialized_memory
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.utils.deterministic.fill_uninitialized_memory = False
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(enabled, warn_only=warn_only)
        torch.utils.deterministic.fill_uninitialized_memory = fill


def _warm_up(
    workload: Workload,
    algorithm: Algorithm,
    model: nn.Module | None,
    device: torch.device,
    *,
    batch_size: int,
    steps: int,
) -> int:
    """Training steps on made-up data before the clock starts, their effect then discarded.

    What a process pays once, not per run, is paid here, off the clock: torch imports its compiler stack
    the first time an optimizer is built (about 2 s), oneDNN (or cuDNN) builds its kernels for the
    batch's shapes on first use, the allocator fills its pools. The model's parameters and buffers are
    put back, the algorithm's optimizer state is a throwaway and torch's random state is restored, so the
    run that follows is the one it would have been without it. Returns the steps taken: none for a recipe whose model
    needs its data, or that makes up no batch (only the optimizer's imports are paid for then).
    """
    if model is None:
        torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.0)  # the imports, for any recipe
        return 0
    generator = torch.Generator().manual_seed(0)
    batch = workload.synthetic_batch(batch_size, generator)
    state = {name: tensor.detach().clone() for name, tensor in model.state_dict().items()}
    # The bare model, even under data parallelism: a second DDP wrapper would hook into its parameters twice,
    # and each process warms up on its own, with no collective to wait for.
    with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []):
        algorithm_steps = algorithm.start(
            workload, model, steps_per_epoch=max(1, steps), autocast=mixed_precision(device)
        )
        taken = 0
        if batch is not None:
            model.train()
            augmentation = torch.Generator(device=device).manual_seed(0)
            for _ in range(steps):
                training_step(workload, model, algorithm_steps, batch, device, augmentation)
                taken += 1
    model.load_state_dict(state)
    model.zero_grad(set_to_none=True)
    synchronize(device)
    return taken


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def process_batch_size(batch_size: int, processes: Processes) -> int:
    """Each process's share of the recipe's batch: under data parallelism the recipe's batch stays the global
    one, so its learning rate and schedule hold as written (gradients are averaged over the processes)."""
    if batch_size % processes.world_size:
        raise ValueError(
            f"The recipe's batch of {batch_size} does not split evenly over {processes.world_size} processes."
        )
    return batch_size // processes.world_size


def model_on(workload: Workload, device: torch.device) -> nn.Module:
    """A freshly initialised model on `device` (from torch's global generator, seeded by the job)."""
    model = workload.build_model()
    if workload.channels_last:
        return model.to(device, memory_format=torch.channels_last)
    return model.to(device)


def _data_parallel(model: nn.Module, processes: Processes, device: torch.device) -> nn.Module:
    if not processes.is_distributed:
        return model
    from torch.nn.parallel import DistributedDataParallel

    return DistributedDataParallel(model, device_ids=[device.index] if device.type == "cuda" else None)


def mixed_precision(device: torch.device):
    """Mixed precision on CUDA (bf16: no loss scaling needed); fp32 on the CPU, where bf16 is far slower here."""
    if device.type == "cuda":
        return torch.autocast(device_type="cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()


@dataclass(frozen=True)
class _Evaluated:
    quality: float
    seconds: float


def _evaluate(workload: Workload, model: nn.Module, device, processes: Processes) -> _Evaluated:
    """Quality after an epoch, measured by rank 0 and shared, so every process stops at the same epoch."""
    started = time.perf_counter()
    quality = 0.0
    if processes.is_main:
        model.eval()
        with torch.no_grad():  # in fp32 even on CUDA: the figure judged against the threshold is not rounded
            quality = float(workload.evaluate(model, device))
        model.train()
    quality = broadcast_float(quality, processes, device)
    return _Evaluated(quality=quality, seconds=time.perf_counter() - started)
