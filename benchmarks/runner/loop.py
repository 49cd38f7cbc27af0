"""The training job: train a recipe until the task's threshold or the last epoch, timed by the board's rules.

The clock starts before the data is first touched (loading is training time) and is paused while the
model is evaluated after each epoch. The run stops at the first evaluation that reaches the threshold of
the task's current version (`dawnboard.rules`); time to accuracy is then read off the curve by the rules
package's `first_crossing`, the same function that reads a submitted log.
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn

from benchmarks.runner.config import Device, RunConfig
from benchmarks.runner.data import FreshCount, Shard, epoch_batches, epoch_order, steps_per_epoch
from benchmarks.runner.distributed import (
    Processes,
    broadcast_float,
    process_group_start,
    processes_from_environment,
)
from benchmarks.runner.timer import TrainingClock
from benchmarks.workloads import workload_class
from benchmarks.workloads.base import Workload
from dawnboard.rules import current_rules
from dawnboard.scoring import first_crossing


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
    config: RunConfig, *, progress: ProgressCallback | None = None, workload: Workload | None = None
) -> RunResult:
    """Run one reference training job to the threshold (or the last epoch) and return its curve and model.

    `workload` replaces the recipe's own (the benches give one whose data path is slowed on purpose).

    Raises:
        DatasetMissing: the data directory lacks what the recipe reads.
        KeyError: no such recipe.
    """
    processes = processes_from_environment()
    device = device_of(config, processes)
    process_group_start(processes, device.type)
    if device.type == "cuda":
        torch.cuda.set_device(device)
        torch.backends.cudnn.benchmark = True
    elif processes.local_world_size > 1:  # processes sharing the CPU split its cores instead of fighting over them
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // processes.local_world_size))

    if workload is None:
        workload = workload_class(config.task, config.recipe)(config.data_dir, config.overrides)
    batch_size = process_batch_size(workload.batch_size, processes)
    threshold = float(current_rules(config.task).threshold)
    torch.manual_seed(config.seed)
    augmentation = torch.Generator(device=device).manual_seed(config.seed * 1_000 + processes.rank)
    echo_rng = random.Random(config.seed * 1_000 + processes.rank)
    shard = Shard(rank=processes.rank, count=processes.world_size)
    clock = TrainingClock(device)

    clock.start()
    workload.load()
    model = _model_on(workload, device)
    trained = _data_parallel(model, processes, device)
    shard_size = workload.train_size // shard.count
    per_epoch = steps_per_epoch(
        shard_size, batch_size=batch_size, echo_factor=config.echo_factor, echo_stage=config.echo_stage
    )
    # The schedule counts training steps, echoed or not: echoing F times runs the recipe's steps on 1/F of
    # the fresh data (Choi et al.), so its schedule ends after epochs / F passes over the data.
    plain_per_epoch = steps_per_epoch(shard_size, batch_size=batch_size, echo_factor=1, echo_stage=config.echo_stage)
    optimizer, schedule = workload.build_optimizer(trained, plain_per_epoch)
    autocast = _autocast(device)
    epochs = config.max_epochs or math.ceil(workload.epochs / config.echo_factor)
    fresh = FreshCount()
    evaluations: list[Evaluation] = []
    quality: float | None = None
    total_steps = 0
    for epoch in range(1, epochs + 1):
        trained.train()
        loss_sum = torch.zeros((), device=device)  # summed on the device: no sync per step
        step = 0
        order = epoch_order(workload.train_size, seed=config.seed, epoch=epoch, shard=shard)
        batches = epoch_batches(
            workload,
            order,
            batch_size=batch_size,
            echo_factor=config.echo_factor,
            echo_stage=config.echo_stage,
            buffer_size=config.shuffle_buffer,
            rng=echo_rng,
            fresh=fresh,
        )
        for batch in batches:
            prepared = workload.prepare(batch, device, augmentation)
            with autocast:
                loss = workload.loss(trained, prepared)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            if schedule is not None:
                schedule.step()
            loss_sum += loss.detach()
            step += 1
            if progress is not None:
                progress(Progress(epoch, epochs, step, per_epoch, clock.seconds, quality))
        total_steps += step
        training_seconds = clock.pause()
        evaluation = _evaluate(workload, model, device, processes)
        clock.resume()
        quality = evaluation.quality
        evaluations.append(
            Evaluation(
                epoch=epoch,
                step=total_steps,
                training_seconds=training_seconds,
                quality=quality,
                evaluation_seconds=evaluation.seconds,
                fresh_examples=fresh.examples * processes.world_size,
                train_loss=float(loss_sum) / max(step, 1),
            )
        )
        if progress is not None:
            progress(Progress(epoch, epochs, step, per_epoch, training_seconds, quality, evaluated=True))
        if quality >= threshold:
            break
    return RunResult(
        config=config,
        recipe_config=dict(workload.config),
        data_summary=workload.data_summary(),
        threshold=threshold,
        evaluations=evaluations,
        steps_per_epoch=per_epoch,
        fresh_examples=fresh.examples * processes.world_size,
        processes=processes,
        threads=torch.get_num_threads(),
        model=model,
    )


def process_batch_size(batch_size: int, processes: Processes) -> int:
    """Each process's share of the recipe's batch: under data parallelism the recipe's batch stays the global
    one, so its learning rate and schedule hold as written (gradients are averaged over the processes)."""
    if batch_size % processes.world_size:
        raise ValueError(
            f"The recipe's batch of {batch_size} does not split evenly over {processes.world_size} processes."
        )
    return batch_size // processes.world_size


def _model_on(workload: Workload, device: torch.device) -> nn.Module:
    model = workload.build_model()
    if workload.channels_last:
        return model.to(device, memory_format=torch.channels_last)
    return model.to(device)


def _data_parallel(model: nn.Module, processes: Processes, device: torch.device) -> nn.Module:
    if not processes.is_distributed:
        return model
    from torch.nn.parallel import DistributedDataParallel

    return DistributedDataParallel(model, device_ids=[device.index] if device.type == "cuda" else None)


def _autocast(device: torch.device):
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
