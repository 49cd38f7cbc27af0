"""How busy the machine was while a run was timed: other work on its cores makes a time incomparable.

A snapshot is taken when the clock starts and one when the run ends. Between the two, the CPU time every
process spent on the cores this process may run on (the busy jiffies of `/proc/stat`, summed over the CPUs
of `os.sched_getaffinity`) less this process's own (`os.times`: its threads, and its children once they
have exited, such as a data loader's workers) is the CPU time other work took from the run.

The rule (`BUSY_SHARE_OF_ONE_CPU`): a run was measured while busy when other work took more than a quarter
of one CPU over the run's wall time. The job's threads fill every core it may use, so on a 2-core machine
a quarter of a core taken by others is about an eighth of the run's compute, already several times the
5 % spread the clock is meant to hold; below it, the jiffies' own rounding (10 ms per CPU at each end) and
the kernel's work for the run itself (interrupts, which no process is charged) stay under the line.
Without `/proc/stat` (macOS) only the load average is known, and a run is called busy when the 1-minute
load average at its start already exceeded the CPUs it may use.

Caveats: under torchrun the other ranks sharing the machine count as other work; the load averages are
the whole machine's (a container's included), recorded for people, not used by the rule where
`/proc/stat` exists.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROC_STAT = Path("/proc/stat")
BUSY_SHARE_OF_ONE_CPU = 0.25
# Fields of a `cpuN` line of /proc/stat, in order; idle and iowait are the idle ones. `guest` time is
# already counted in `user` (and `guest_nice` in `nice`), so those two are left out of the sum.
BUSY_FIELDS = ("user", "nice", "system", "irq", "softirq", "steal")
STAT_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest", "guest_nice")


@dataclass(frozen=True)
class LoadSnapshot:
    """The machine at one moment, as `load_snapshot` reads it."""

    wall_seconds: float  # a monotonic clock
    load_average: tuple[float, float, float]  # 1, 5 and 15 minutes
    cpus_busy_seconds: float | None  # every process's CPU time on our CPUs since boot; None without /proc/stat
    own_cpu_seconds: float  # this process's CPU time (and its exited children's) since it started


@dataclass(frozen=True)
class MachineLoad:
    """The machine's load over one run, for the run record (`as_dict`) and the command's output."""

    cpu_count: int
    load_average_start: tuple[float, float, float]
    load_average_end: tuple[float, float, float]
    wall_seconds: float
    own_cpu_seconds: float
    other_cpu_seconds: float | None  # None where /proc/stat does not exist

    @property
    def busy(self) -> bool:
        """Other work held the cores: see the module's docstring for the rule."""
        if self.other_cpu_seconds is None:
            return self.load_average_start[0] > self.cpu_count
        return self.other_cpu_seconds > BUSY_SHARE_OF_ONE_CPU * self.wall_seconds

    @property
    def load_average_peak(self) -> float:
        """The higher of the 1-minute load averages at the start and the end: what the command prints."""
        return max(self.load_average_start[0], self.load_average_end[0])

    def as_dict(self) -> dict[str, Any]:
        return {
            "cpu_count": self.cpu_count,
            "load_average_start": list(self.load_average_start),
            "load_average_end": list(self.load_average_end),
            "wall_seconds": self.wall_seconds,
            "own_cpu_seconds": self.own_cpu_seconds,
            "other_cpu_seconds": self.other_cpu_seconds,
            "measured_from": "load_average" if self.other_cpu_seconds is None else "proc_stat",
            "busy_rule": f"other processes' CPU time > {BUSY_SHARE_OF_ONE_CPU} x wall time",
            "busy": self.busy,
        }


def usable_cpus() -> set[int]:
    """The CPUs this process may run on (all of them where the platform cannot say)."""
    if hasattr(os, "sched_getaffinity"):
        return set(os.sched_getaffinity(0))
    return set(range(os.cpu_count() or 1))


def cpus_busy_seconds(proc_stat: str, cpus: set[int], ticks_per_second: float) -> float:
    """Seconds the listed CPUs spent busy since boot, read off the text of /proc/stat.

    Raises:
        ValueError: the text has none of the listed CPUs.
    """
    jiffies = 0
    found = 0
    for line in proc_stat.splitlines():
        name, _, rest = line.partition(" ")
        if not (name.startswith("cpu") and name[3:].isdigit() and int(name[3:]) in cpus):
            continue
        values = dict(zip(STAT_FIELDS, (int(value) for value in rest.split()), strict=False))
        jiffies += sum(values.get(field, 0) for field in BUSY_FIELDS)
        found += 1
    if not found:
        raise ValueError("/proc/stat lists none of this process's CPUs.")
    return jiffies / ticks_per_second


def own_cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def load_snapshot(proc_stat: Path = PROC_STAT) -> LoadSnapshot:
    try:
        busy = cpus_busy_seconds(proc_stat.read_text(), usable_cpus(), os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, AttributeError):
        busy = None
    return LoadSnapshot(
        wall_seconds=time.perf_counter(),
        load_average=_load_average(),
        cpus_busy_seconds=busy,
        own_cpu_seconds=own_cpu_seconds(),
    )


def machine_load(start: LoadSnapshot, end: LoadSnapshot, *, cpu_count: int | None = None) -> MachineLoad:
    """The load between two snapshots; `cpu_count` defaults to the CPUs this process may use."""
    own = end.own_cpu_seconds - start.own_cpu_seconds
    other = None
    if start.cpus_busy_seconds is not None and end.cpus_busy_seconds is not None:
        # Never below zero: the two counters tick separately, so ours may run a jiffy ahead.
        other = max(0.0, end.cpus_busy_seconds - start.cpus_busy_seconds - own)
    return MachineLoad(
        cpu_count=cpu_count if cpu_count is not None else len(usable_cpus()),
        load_average_start=start.load_average,
        load_average_end=end.load_average,
        wall_seconds=end.wall_seconds - start.wall_seconds,
        own_cpu_seconds=own,
        other_cpu_seconds=other,
    )


def _load_average() -> tuple[float, float, float]:
    try:
        return os.getloadavg()
    except (OSError, AttributeError):  # not every platform has one
        return (0.0, 0.0, 0.0)
