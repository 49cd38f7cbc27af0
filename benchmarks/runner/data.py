"""One epoch's data path: the order examples are read in, data echoing, and batching.

Data echoing (Choi et al. 2019, "Faster Neural Network Training with Data Echoing") reuses the output of
the upstream stage (reading and decoding) when it is slower than the training step: each example is
repeated `factor` times before augmentation and batching, or each batch `factor` times, and a shuffle
buffer spreads the repeats apart. Augmentation runs after echoing (in `Workload.prepare`), so each
repeat is augmented afresh. With factor 1 nothing is buffered: the data path is exactly the plain one.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TypeVar

import torch

from benchmarks.runner.config import EchoStage
from benchmarks.workloads.base import Batch, Workload

Item = TypeVar("Item")


@dataclass(frozen=True)
class Shard:
    """This process's share of each epoch under data parallelism: every `count`-th example from `rank`."""

    rank: int = 0
    count: int = 1


@dataclass
class FreshCount:
    """How many examples the upstream stage read: what data echoing saves."""

    examples: int = 0


def epoch_order(train_size: int, *, seed: int, epoch: int, shard: Shard) -> list[int]:
    """The example indices this process reads in `epoch`: one permutation for all processes, dealt out in turn.

    Every process gets the same number (the few left over are left out this epoch), so all take the same
    number of steps: data parallelism averages gradients at every step and would wait forever otherwise.
    """
    generator = torch.Generator().manual_seed(seed * 100_003 + epoch)
    share = train_size // shard.count
    return torch.randperm(train_size, generator=generator)[shard.rank :: shard.count][:share].tolist()


def echoed(items: Iterable[Item], *, factor: int, buffer_size: int, rng: random.Random) -> Iterator[Item]:
    """Each item `factor` times, drawn at random from a buffer of up to `buffer_size` items."""
    if factor == 1:
        yield from items
        return
    buffer: list[Item] = []
    for item in items:
        for _ in range(factor):
            buffer.append(item)
            if len(buffer) >= buffer_size:
                yield _take_random(buffer, rng)
    while buffer:
        yield _take_random(buffer, rng)


def _take_random(buffer: list[Item], rng: random.Random) -> Item:
    index = rng.randrange(len(buffer))
    buffer[index], buffer[-1] = buffer[-1], buffer[index]
    return buffer.pop()


def counted(items: Iterable[Item], count: FreshCount) -> Iterator[Item]:
    for item in items:
        count.examples += 1
        yield item


def batched(items: Iterable[Item], size: int) -> Iterator[list[Item]]:
    """Lists of `size` items. A shorter last list is dropped (its few examples would make a noisy step, and
    batch norm statistics from them worse), unless it is the only one: a tiny dataset still trains."""
    group: list[Item] = []
    full = 0
    for item in items:
        group.append(item)
        if len(group) == size:
            yield group
            full += 1
            group = []
    if group and not full:
        yield group


def epoch_batches(
    workload: Workload,
    order: list[int],
    *,
    batch_size: int,
    echo_factor: int,
    echo_stage: EchoStage,
    buffer_size: int,
    rng: random.Random,
    fresh: FreshCount,
) -> Iterator[Batch]:
    """The collated batches of one epoch (of `batch_size`: this process's share), on the CPU, echoed as asked."""
    examples = counted(workload.examples(order), fresh)
    if echo_stage is EchoStage.EXAMPLE:
        examples = echoed(examples, factor=echo_factor, buffer_size=buffer_size, rng=rng)
    batches = (workload.collate(group) for group in batched(examples, batch_size))
    if echo_stage is EchoStage.BATCH:
        batches = echoed(batches, factor=echo_factor, buffer_size=max(1, buffer_size // batch_size), rng=rng)
    return batches


def steps_per_epoch(examples: int, *, batch_size: int, echo_factor: int, echo_stage: EchoStage) -> int:
    """Training steps one epoch takes, echoing included (the schedule's length is counted in these)."""
    if echo_stage is EchoStage.EXAMPLE:
        return max(1, examples * echo_factor // batch_size)
    return max(1, examples // batch_size) * echo_factor
