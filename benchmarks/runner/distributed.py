"""Data parallelism under `torchrun`: one process per device (gloo on CPUs, NCCL on GPUs).

torchrun sets RANK, LOCAL_RANK, WORLD_SIZE and the rendezvous address; without them the job runs alone.
"""

from __future__ import annotations

import datetime
import gc
import os
import sys
from dataclasses import dataclass

import torch
import torch.distributed as dist


@dataclass(frozen=True)
class Processes:
    rank: int = 0
    local_rank: int = 0
    world_size: int = 1
    local_world_size: int = 1

    @property
    def is_distributed(self) -> bool:
        return self.world_size > 1

    @property
    def is_main(self) -> bool:
        return self.rank == 0


def processes_from_environment() -> Processes:
    world_size = int(os.environ.get("WORLD_SIZE", "1"))
    return Processes(
        rank=int(os.environ.get("RANK", "0")),
        local_rank=int(os.environ.get("LOCAL_RANK", "0")),
        world_size=world_size,
        local_world_size=int(os.environ.get("LOCAL_WORLD_SIZE", str(world_size))),
    )


# The first process evaluates while the others wait at the broadcast of its result: an ImageNet evaluation
# on one process can outlast the default ten-minute collective timeout.
COLLECTIVE_TIMEOUT = datetime.timedelta(hours=6)


def process_group_start(processes: Processes, device_type: str) -> None:
    if processes.is_distributed and not dist.is_initialized():
        dist.init_process_group(backend="nccl" if device_type == "cuda" else "gloo", timeout=COLLECTIVE_TIMEOUT)


def process_group_stop() -> None:
    """Leave the process group together: a process tearing its connections down while another still holds
    them (the first one writing the run's files) was seen to abort in gloo's shutdown. What still refers to the
    group's work in reference cycles is collected first, while the interpreter is whole."""
    if dist.is_initialized():
        gc.collect()
        dist.barrier()
        dist.destroy_process_group()


def exit_after_distributed_run(processes: Processes) -> None:
    """End a process of a torchrun job whose run is over, its group left and its output written, without the
    interpreter's finalization (nothing is left to do there). In one of five runs of the test suite on 2026-11-28,
    the second process of a two-process CPU run aborted ("terminate called without an active exception", SIGABRT)
    while the first was still running, and torchrun stopped that one and failed the job. That message is C++'s for
    a thread still running when the object owning it is destroyed, as gloo's are when a group is torn down with the
    interpreter (pytorch/pytorch#190489); where this one aborted was not recorded (tests/benchmarks/test_distributed.py
    now prints the processes' Python stacks). A process run alone returns as usual."""
    if processes.is_distributed:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def broadcast_float(value: float, processes: Processes, device: torch.device) -> float:
    """Rank 0's value on every rank (so every process takes the same decision)."""
    if not processes.is_distributed:
        return value
    tensor = torch.tensor([value], dtype=torch.float64, device=device)
    dist.broadcast(tensor, src=0)
    return float(tensor.item())
