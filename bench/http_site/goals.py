"""What bench/http_bench.py measured and the issue's four goals over it: each check returns what was missed, in a few
words, so the table's verdicts and the final line say the same thing."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from dataclasses import dataclass, field

from bench.http_site.wrk import WrkResult, requests_per_second
from bench.soak.client import Reply

GOAL_RATIO = 3.0  # 1. a cached read's requests/s within this factor of the trivial view's
GOAL_COLD_MS = 300.0  # 2. a render after a board change (a download's first byte) faster than this
GOAL_BYTES = 1_000_000  # 2. and every response smaller than this, downloads aside
GOAL_P99_GROWTH = 2.0  # 4. p99 while a submission lands every second, against the quiet p99


@dataclass
class ReadResult:
    """One read at one size: its warm-up answer, the wrk runs of it and of the trivial view, the cold requests."""

    path: str
    streamed: bool  # a whole-board download: judged on its first byte; its size is information
    status: int
    bytes: int
    trivial_runs: list[WrkResult] = field(default_factory=list)
    page_runs: list[WrkResult] = field(default_factory=list)
    cold_ms: list[float] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        page = requests_per_second(self.page_runs)
        return requests_per_second(self.trivial_runs) / page if page else math.inf

    @property
    def p50_ms(self) -> float:
        """The higher of the runs' medians."""
        return max(run.p50_ms for run in self.page_runs)

    @property
    def p99_ms(self) -> float:
        return max(run.p99_ms for run in self.page_runs)

    @property
    def cold_median_ms(self) -> float:
        return statistics.median(self.cold_ms)


def read_misses(result: ReadResult) -> list[str]:
    """Goals 1 and 2 for one read. A read that did not answer 200 misses them all: it was not measured. A
    whole-board download is streamed, so never cached: its ratio is information, and its first byte is judged."""
    if result.status != 200:
        return [f"answered {result.status or 'nothing'}"]
    misses = []
    if result.ratio > GOAL_RATIO and not result.streamed:
        misses.append("ratio")
    if sum(run.errors for run in result.page_runs):
        misses.append("errors under load")
    if result.cold_median_ms >= GOAL_COLD_MS:
        misses.append("first byte" if result.streamed else "cold")
    if not result.streamed and result.bytes >= GOAL_BYTES:
        misses.append("size")
    return misses


@dataclass
class LoadedResult:
    """One read quiet and while a submission lands every second, in turn, LOADED_ROUNDS times (goal 4): a p99 of
    a run of seconds is the few slowest requests, so each side is the median of its runs."""

    path: str
    quiet: list[WrkResult]
    loaded: list[WrkResult]
    accepted: int  # submissions judged accepted, posted during the loaded runs

    @property
    def quiet_p99_ms(self) -> float:
        return statistics.median(run.p99_ms for run in self.quiet)

    @property
    def loaded_p99_ms(self) -> float:
        return statistics.median(run.p99_ms for run in self.loaded)

    @property
    def quiet_requests_per_second(self) -> float:
        return statistics.median(run.requests_per_second for run in self.quiet)

    @property
    def loaded_requests_per_second(self) -> float:
        return statistics.median(run.requests_per_second for run in self.loaded)

    @property
    def growth(self) -> float:
        return self.loaded_p99_ms / self.quiet_p99_ms if self.quiet_p99_ms else math.inf


def loaded_misses(result: LoadedResult) -> list[str]:
    misses = []
    if result.growth >= GOAL_P99_GROWTH:
        misses.append("p99")
    if any(run.errors for run in result.loaded):
        misses.append("errors under load")
    if not result.accepted:
        misses.append("no submission landed")
    return misses


@dataclass
class LockSamples:
    """Samples of the bench database's sessions (goal 3): how many saw one waiting on a lock, and what waited."""

    taken: int = 0
    waiting: int = 0
    waiters: Counter = field(default_factory=Counter)  # the waiting statements, by their first characters


def lock_misses(samples: LockSamples) -> list[str]:
    if not samples.taken:
        return ["the lock table was never sampled"]
    return [f"{samples.waiting} of {samples.taken} lock samples saw a lock waited on"] if samples.waiting else []


@dataclass
class BurstResult:
    """Submissions sent as fast as they are answered while wrk loads the pages."""

    sent: int
    replies: list[Reply]
    answered_seconds: float  # from the first sent to the last answered
    judged_seconds: float  # from the first sent to the last judged
    accepted: int
    readers: WrkResult


def burst_misses(burst: BurstResult) -> list[str]:
    """The burst is information, but every submission of it must be answered 202 and accepted."""
    answered = sum(reply.status == 202 for reply in burst.replies)
    if answered < burst.sent or burst.accepted < burst.sent:
        return [f"burst: {answered} of {burst.sent} answered 202, {burst.accepted} accepted"]
    return []


@dataclass
class SizeResult:
    entries_per_task: int
    fill_seconds: float
    analyze_seconds: float
    reads: list[ReadResult] = field(default_factory=list)


@dataclass
class Run:
    """Everything measured so far: an aborted run still reports what it had."""

    runs_per_entry: int = 1  # of each training entry on the board
    sizes: list[SizeResult] = field(default_factory=list)
    loaded: list[LoadedResult] = field(default_factory=list)
    locks: LockSamples | None = None
    burst: BurstResult | None = None
    aborted: str = ""

    def misses(self) -> list[str]:
        """Every goal missed: the reads at the largest size, the submission phase, an abort."""
        misses = [f"aborted: {self.aborted}"] if self.aborted else []
        if self.sizes:
            misses += [f"{result.path} ({miss})" for result in self.sizes[-1].reads for miss in read_misses(result)]
        for result in self.loaded:
            misses += [f"{result.path} while submitting ({miss})" for miss in loaded_misses(result)]
        if self.locks is not None:
            misses += lock_misses(self.locks)
        if self.burst is not None:
            misses += burst_misses(self.burst)
        return misses
