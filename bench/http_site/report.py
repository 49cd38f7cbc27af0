"""bench/http_bench.py's printed report: a header, one table per size, the submission phase, the verdict."""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from bench.http_site import wrk
from bench.http_site.goals import (
    GOAL_BYTES,
    GOAL_COLD_MS,
    GOAL_P99_GROWTH,
    GOAL_RATIO,
    LoadedResult,
    ReadResult,
    Run,
    SizeResult,
    loaded_misses,
    lock_misses,
    read_misses,
)
from bench.http_site.submissions import BURST_CLIENTS, LOCK_SAMPLE_SECONDS
from bench.soak.client import percentile_ms
from dawnboard.rules import TASKS

ISSUE_SIZE = 100_000  # entries per task at which the issue judges the goals


def report(
    run: Run,
    *,
    stack_description: str,
    seconds: float,
    cached_rounds: int,
    cold_repeats: int,
    load_before: tuple[float, float, float],
    elapsed_seconds: float,
    root: Path,
) -> str:
    lines = header(run, stack_description, load_before, elapsed_seconds, root)
    for size in run.sizes:
        lines += ["", *size_table(size, judged=size is run.sizes[-1])]
    if run.sizes:
        lines += legend(seconds, cached_rounds, cold_repeats)
    lines += submission_lines(run)
    misses = run.misses()
    lines += ["", "FAILED: " + "; ".join(misses) if misses else "PASSED: every goal met"]
    return "\n".join(lines)


def header(run: Run, stack_description: str, load_before, elapsed_seconds: float, root: Path) -> list[str]:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10
    ).stdout.strip()
    lines = [
        f"Dawnboard over HTTP, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, commit {commit or 'unknown'}, "
        f"{elapsed_seconds:.0f} s: {stack_description}, production settings, PostgreSQL, a Redis cache; "
        f"wrk -t {wrk.THREADS} -c {wrk.CONNECTIONS} on the loopback",
        f"Machine: {os.cpu_count()} CPUs (nproc), load average over 1/5/15 min {_load(load_before)} before, "
        f"{_load(os.getloadavg())} after",
    ]
    lines += [
        f"  {size.entries_per_task:,} entries per task ({_dawnbench_tasks() * size.entries_per_task:,} in all, "
        f"training entries of {run.runs_per_entry} runs each): filled, matched and priced in "
        f"{size.fill_seconds:.1f} s, VACUUM ANALYZE {size.analyze_seconds:.1f} s"
        for size in run.sizes
    ]
    return lines


def size_table(size: SizeResult, *, judged: bool) -> list[str]:
    note = "information: the goals are judged at the largest size"
    if judged:
        note = "the goals are judged at this size"
        if size.entries_per_task < ISSUE_SIZE:
            note += f"; the issue's is {ISSUE_SIZE:,}"
    width = max(len(result.path) for result in size.reads) + 2
    lines = [
        f"{size.entries_per_task:,} entries per task ({note})",
        f"  {'read':<{width}}{'bytes':>10} {'trivial req/s':>13} {'cached req/s':>12} {'p50 ms':>8} {'p99 ms':>8}"
        f" {'ratio':>7} {'cold median ms':>14} {'cold max ms':>11}  verdict",
    ]
    return lines + [
        f"  {result.path:<{width}}{_read_cells(result)}  {_verdict(read_misses(result))}" for result in size.reads
    ]


def _read_cells(result: ReadResult) -> str:
    if result.status != 200:
        return f"{'-':>10}" + " " * 80  # the other cells, blank
    size = _size_text(result.bytes) + ("*" if result.streamed else " ")
    trivial, page = wrk.requests_per_second(result.trivial_runs), wrk.requests_per_second(result.page_runs)
    if page:
        latencies = f"{result.p50_ms:8.1f} {result.p99_ms:8.1f} {result.ratio:6.1f}x"
    else:  # not one answer came within the runs
        latencies = f"{'-':>8} {'-':>8} {'-':>7}"
    return (
        f"{size:>10} {trivial:13.0f} {page:12.0f} {latencies} {result.cold_median_ms:14.1f} {max(result.cold_ms):11.1f}"
    )


def legend(seconds: float, cached_rounds: int, cold_repeats: int) -> list[str]:
    return [
        f"cached: after one request warms it, {cached_rounds} wrk runs of {seconds:g} s of the read and as many of the "
        "trivial view, in turn; ratio: the trivial view's",
        f"requests/s over the read's (goal 1: <= {GOAL_RATIO:g}x); p50/p99: the higher of the read's runs. cold: the "
        "board changed and no previous copy, then",
        f"one request timed to its full response, {cold_repeats} times (goal 2: median < {GOAL_COLD_MS:.0f} ms, "
        f"bytes < {GOAL_BYTES / 1e6:g} MB). * a whole-board download, streamed: cold is its time to",
        f"first byte (goal < {GOAL_COLD_MS:.0f} ms), and bytes its full size and its ratio (never cached) are "
        "information only.",
    ]


def submission_lines(run: Run) -> list[str]:
    lines = []
    if run.loaded:
        lines += ["", *_loaded_table(run.loaded)]
    if run.locks is not None:
        lines += [
            "",
            f"Locks waited on during the submission phase (goal 3: none): {run.locks.waiting} of {run.locks.taken} "
            f"samples, one every {LOCK_SAMPLE_SECONDS * 1000:.0f} ms  {_verdict(lock_misses(run.locks))}",
            *(f"  {count:5} samples waiting in: {query}" for query, count in run.locks.waiters.most_common(5)),
        ]
    if run.burst is not None:
        burst = run.burst
        seconds = [reply.seconds for reply in burst.replies]
        statuses = ", ".join(
            f"{n} x {status}" for status, n in sorted(Counter(r.status for r in burst.replies).items())
        )
        readers = burst.readers
        lines += [
            "",
            "Submission throughput while readers load the site (wrk on every read above but the downloads, in turn):",
            f"  {burst.sent} submissions from {BURST_CLIENTS} clients answered in {burst.answered_seconds:.1f} s "
            f"({burst.sent / burst.answered_seconds:.1f}/s; {statuses}; p50 {percentile_ms(seconds, 0.5):.0f} ms, "
            f"p99 {percentile_ms(seconds, 0.99):.0f} ms)",
            f"  {burst.accepted} judged and accepted {burst.judged_seconds:.1f} s after the first was sent "
            f"({burst.accepted / burst.judged_seconds:.1f}/s)",
            f"  readers meanwhile: {readers.requests_per_second:.0f} req/s, p50 {readers.p50_ms:.1f} ms, "
            f"p99 {readers.p99_ms:.1f} ms, {readers.errors} errors",
        ]
    return lines


def _loaded_table(loaded: list[LoadedResult]) -> list[str]:
    width = max(len(result.path) for result in loaded) + 2
    rounds = max(len(result.loaded) for result in loaded)
    lines = [
        "Each read quiet, then while one valid submission a second is posted and judged, each acceptance retiring "
        f"the task's cached pages; in turn, {rounds} times (req/s and p99: the median of the runs; goal 4: p99 < "
        f"{GOAL_P99_GROWTH:g}x quiet; downloads left out)",
        f"  {'read':<{width}}{'quiet req/s':>11} {'p99 ms':>8} {'loaded req/s':>12} {'p99 ms':>8} {'growth':>7}"
        f" {'accepted':>8}  verdict",
    ]
    for result in loaded:
        lines.append(
            f"  {result.path:<{width}}{result.quiet_requests_per_second:11.0f} {result.quiet_p99_ms:8.1f}"
            f" {result.loaded_requests_per_second:12.0f} {result.loaded_p99_ms:8.1f} {result.growth:6.1f}x"
            f" {result.accepted:8}  {_verdict(loaded_misses(result))}"
        )
    return lines


def _verdict(misses: list[str]) -> str:
    return "PASS" if not misses else "FAIL: " + ", ".join(misses)


def _size_text(size_bytes: int) -> str:
    return f"{size_bytes / 1e6:.1f} MB" if size_bytes >= 1_000_000 else f"{size_bytes / 1e3:.1f} kB"


def _load(averages) -> str:
    return "/".join(f"{value:.2f}" for value in averages)


def _dawnbench_tasks() -> int:
    """How many tasks the board is filled for: those in DAWNBench's format (tests/leaderboard/bulk.py)."""
    return sum(1 for task in TASKS if task.dawnbench_folder)
