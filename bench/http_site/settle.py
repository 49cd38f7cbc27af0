"""wrk runs that end with the server idle. When a run stops, the requests wrk left queued are still served (a sync
worker finds its client gone only when it writes the answer): after a slow read, seconds of rendering would land
in the next run, the trivial view's or another read's. So after each run the bench waits until gunicorn's workers
use no CPU and no query of the bench's database is running."""

from __future__ import annotations

import os
import time
from pathlib import Path

from bench.http_site import wrk
from bench.soak.stack import Stack

IDLE_CPU_SHARE = 0.05  # of one core, all of gunicorn's workers together
IDLE_ROUNDS = 2  # in a row, INTERVAL_SECONDS apart
INTERVAL_SECONDS = 0.1
TIMEOUT_SECONDS = 60  # past gunicorn's own 30 s timeout, which ends any request
ACTIVE_QUERIES_SQL = """
SELECT count(*) FROM pg_stat_activity
WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()
"""
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def wrk_run(stack: Stack, path: str, *, seconds: float) -> wrk.WrkResult:
    """wrk on one path; returns once the server has served what wrk left behind."""
    result = wrk.run(stack.base_url, path, seconds=seconds, workdir=stack.workdir)
    wait_until_idle(stack)
    return result


def wait_until_idle(stack: Stack) -> None:
    """Wait (bounded: TIMEOUT_SECONDS) until gunicorn's workers are idle and no query of the stack runs."""
    master = stack.processes["gunicorn"].pid
    deadline = time.monotonic() + TIMEOUT_SECONDS
    idle_rounds = 0
    with stack.connect() as connection:
        before = _cpu_seconds(_children(master))
        while idle_rounds < IDLE_ROUNDS and time.monotonic() < deadline:
            time.sleep(INTERVAL_SECONDS)
            now = _cpu_seconds(_children(master))
            busy_share = max(0.0, now - before) / INTERVAL_SECONDS
            before = now
            active = connection.execute(ACTIVE_QUERIES_SQL).fetchone()[0]
            idle_rounds = idle_rounds + 1 if busy_share < IDLE_CPU_SHARE and not active else 0


def _children(parent: int) -> list[int]:
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and _stat_fields(entry.name)[1:2] == [str(parent)]:
            children.append(int(entry.name))
    return children


def _cpu_seconds(pids: list[int]) -> float:
    """User and system CPU time of these processes; one that has exited counts nothing."""
    ticks = 0
    for pid in pids:
        fields = _stat_fields(str(pid))
        if len(fields) > 13:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / CLOCK_TICKS


def _stat_fields(pid: str) -> list[str]:
    """/proc/PID/stat's fields after the command name (which may hold spaces): state, ppid, ..."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return []
    return text[text.rindex(")") + 2 :].split()
