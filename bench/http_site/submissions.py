"""Submissions while readers load the site: posted through the real API, judged by the real Celery worker, with
PostgreSQL's lock table sampled meanwhile for a session that waits."""

from __future__ import annotations

import math
import signal
import subprocess
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

from bench.http_site import settle, wrk
from bench.http_site.goals import BurstResult, LoadedResult, LockSamples
from bench.soak import client, verify
from bench.soak.payloads import Logical, batch
from bench.soak.phases import post_logical
from bench.soak.stack import Stack

BURST_SUBMISSIONS, BURST_CLIENTS = 60, 4
LOADED_ROUNDS = 3  # quiet and loaded runs of each read, in turn
LOCK_SAMPLE_SECONDS = 0.01
JUDGING_TIMEOUT_SECONDS = 180
# A session of the bench's database waiting on a lock, as either view tells it.
LOCK_WAITS_SQL = """
SELECT left(activity.query, 100)
FROM pg_stat_activity AS activity
WHERE activity.datname = current_database()
  AND (activity.wait_event_type = 'Lock' OR activity.pid IN (SELECT pid FROM pg_locks WHERE NOT granted))
"""


def accepted_count(stack: Stack, logicals: list[Logical]) -> int:
    """Wait (bounded) until the worker has judged these submissions; how many it accepted."""
    shas = [logical.entry_sha256 for logical in logicals]
    with stack.connect() as connection:
        verify.wait_until_judged(connection, shas, timeout_seconds=JUDGING_TIMEOUT_SECONDS, check=stack.assert_running)
        rows = verify.rows_by_sha(connection, shas)
    return sum(row.status == "accepted" for sha_rows in rows.values() for row in sha_rows)


class SteadySubmitter(threading.Thread):
    """Posts one valid submission each second, from the moment it starts until it is stopped."""

    def __init__(self, stack: Stack, logicals: list[Logical]):
        super().__init__(daemon=True)
        self.stack, self.logicals, self.sent = stack, logicals, []
        self.stopping = threading.Event()

    def run(self) -> None:
        due = time.monotonic()
        for logical in self.logicals:
            if self.stopping.wait(max(0.0, due - time.monotonic())):
                return
            post_logical(self.stack, logical)
            self.sent.append(logical)
            due += 1

    def stop(self) -> list[Logical]:
        self.stopping.set()
        self.join(timeout=90)
        return self.sent


class LockSampler(threading.Thread):
    """Every LOCK_SAMPLE_SECONDS: does a session of the bench's database wait on a lock, and running what."""

    def __init__(self, stack: Stack):
        super().__init__(daemon=True)
        self.stack, self.samples = stack, LockSamples()
        self.stopping = threading.Event()

    def run(self) -> None:
        with self.stack.connect() as connection:
            while not self.stopping.wait(LOCK_SAMPLE_SECONDS):
                waiting = [query for (query,) in connection.execute(LOCK_WAITS_SQL)]
                self.samples.taken += 1
                self.samples.waiting += bool(waiting)
                self.samples.waiters.update(waiting)

    def stop(self) -> LockSamples:
        self.stopping.set()
        self.join(timeout=10)
        return self.samples


def while_submitting(stack: Stack, path: str, run_id: str, *, seconds: float) -> LoadedResult:
    """The read quiet, then while a submission is posted (and soon judged) each second, in turn LOADED_ROUNDS
    times. After each loaded run the queue drains and the server settles, so that the next quiet run is quiet,
    and the page is rendered again: the submissions retired the cached copy, and its render is no part of a
    quiet board."""
    quiet, loaded, accepted = [], [], 0
    for _ in range(LOADED_ROUNDS):
        for _ in range(2):  # the first may be served the previous copy, the page rendered after it
            client.get(stack.base_url, path)
        settle.wait_until_idle(stack)
        quiet.append(settle.wrk_run(stack, path, seconds=seconds))
        phase = f"steady-{uuid.uuid4().hex[:6]}"
        logicals = batch(run_id, phase, math.ceil(seconds) + 2, clients=len(stack.tokens), invalid_share=0)
        submitter = SteadySubmitter(stack, logicals)
        submitter.start()
        try:
            loaded.append(wrk.run(stack.base_url, path, seconds=seconds, workdir=stack.workdir))
        finally:
            sent = submitter.stop()
        accepted += accepted_count(stack, sent)
        settle.wait_until_idle(stack)
    return LoadedResult(path, quiet, loaded, accepted)


def burst(stack: Stack, paths: list[str], run_id: str) -> BurstResult:
    """BURST_SUBMISSIONS from BURST_CLIENTS clients, each sending its next once the last is answered, while wrk
    sends `paths` in turn; wrk is stopped (SIGINT: it prints its result) once the last submission is judged."""
    logicals = batch(run_id, "burst", BURST_SUBMISSIONS, clients=BURST_CLIENTS, invalid_share=0)
    own = [[logical for logical in logicals if logical.client == n] for n in range(BURST_CLIENTS)]
    arguments = wrk.command(stack.base_url, paths, seconds=600, script_path=stack.workdir / "wrk-burst.lua")
    readers = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        time.sleep(1)  # the readers are at full speed before the first submission
        started = time.monotonic()
        with ThreadPoolExecutor(BURST_CLIENTS) as pool:
            replies = [
                reply
                for sent in pool.map(lambda mine: [post_logical(stack, one) for one in mine], own)
                for reply in sent
            ]
        answered_seconds = time.monotonic() - started
        accepted = accepted_count(stack, logicals)
        judged_seconds = time.monotonic() - started
        readers.send_signal(signal.SIGINT)
        output, _ = readers.communicate(timeout=30)
    finally:
        if readers.poll() is None:
            readers.kill()
            readers.wait(timeout=10)
    return BurstResult(len(logicals), replies, answered_seconds, judged_seconds, accepted, wrk.parse(output))
