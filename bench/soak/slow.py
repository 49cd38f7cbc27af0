"""Slow uploads (issue 22): clients that trickle a submission's body, through nginx and straight at gunicorn.

Six clients, more than gunicorn's two sync workers, each announce a valid submission of about 300 KB and send
it a few bytes a second for 20 s; half then send the rest (judged like any other), half then fall silent
(nginx answers them 408 after client_body_timeout and closes; nothing is stored). Through nginx, readers of `/`
and of the API must meanwhile be answered 200 within 1 s: gunicorn sees no body before it is whole. Then the
same clients for a few seconds straight at gunicorn's port, around nginx: the readers stall there, which the
table reports as the contrast that nginx is for, not as a failure.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from bench.soak import client, phases, proxy, verify
from bench.soak.payloads import Logical, batch
from bench.soak.stack import Stack, wait_for

SLOW_CLIENTS = 6
TRICKLE_SECONDS = 20.0
TRICKLE_BYTES, TRICKLE_INTERVAL_SECONDS = 4, 0.5
DIRECT_SECONDS = 6.0
LOG_EXTRA_ROWS = 20_000  # a log of about 300 KB
NGINX_BODY_TIMEOUT_SECONDS = 20  # deploy/nginx.conf's client_body_timeout
READER_P99_UNDER_MS = 1000.0
READ_PATHS = ("/", "/api/v1/entries/")
JUDGING_TIMEOUT_SECONDS = 120


@dataclass
class Readers:
    """What readers met while slow clients ran: one status and duration per request."""

    seconds: list[float] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)

    @property
    def p99_ms(self) -> float | None:
        return client.percentile_ms(self.seconds, 0.99)

    @property
    def not_200(self) -> int:
        return sum(status != 200 for status in self.statuses)

    @property
    def within_goal(self) -> int:
        return sum(seconds * 1000 < READER_P99_UNDER_MS for seconds in self.seconds)


@dataclass
class SlowResult:
    through_nginx: Readers = field(default_factory=Readers)
    at_gunicorn: Readers = field(default_factory=Readers)
    finished: list[client.Reply] = field(default_factory=list)  # trickled, then sent the rest
    stalled: list[client.Reply] = field(default_factory=list)  # trickled, then fell silent
    nginx_statuses: Counter = field(default_factory=Counter)  # nginx's access.log, the slow POSTs
    tally: verify.Tally = field(default_factory=verify.Tally)
    body_bytes: int = 0  # each slow client's request body
    rows_left_by_stalled: int = 0
    rows_left_at_gunicorn: int = 0

    @property
    def failures(self) -> list[str]:
        """What did not hold; the contrast at gunicorn is information only."""
        reasons = []
        readers = self.through_nginx
        if readers.p99_ms is None or readers.p99_ms >= READER_P99_UNDER_MS or readers.not_200:
            reasons.append(f"readers through nginx: p99 {readers.p99_ms} ms, {readers.not_200} not 200")
        if any(reply.status != 202 for reply in self.finished):
            reasons.append(f"finished uploads answered {[reply.status for reply in self.finished]}")
        if any(reply.status != 0 for reply in self.stalled) or self.nginx_statuses[408] != len(self.stalled):
            reasons.append(f"stalled uploads: nginx logged {dict(self.nginx_statuses)}, not 408 for each")
        if any(status >= 500 for status in self.nginx_statuses.elements()):
            reasons.append(f"nginx logged server errors for the slow uploads: {dict(self.nginx_statuses)}")
        tally = self.tally
        if tally.lost or tally.doubled or tally.stuck or tally.wrong_verdict or tally.unexpected_rows:
            reasons.append(f"finished uploads in the database: {tally.examples}")
        if self.rows_left_by_stalled or self.rows_left_at_gunicorn:
            reasons.append(
                f"rows stored for uploads never finished: {self.rows_left_by_stalled + self.rows_left_at_gunicorn}"
            )
        return reasons


def run(stack: Stack, run_id: str) -> SlowResult:
    result = SlowResult()
    logicals = batch(run_id, "slow", SLOW_CLIENTS, clients=SLOW_CLIENTS, invalid_share=0.0, extra_rows=LOG_EXTRA_ROWS)
    result.body_bytes = len(phases.logical_request(stack, logicals[0])[0])
    log_start = proxy.access_log_size(stack.proxy_prefix)
    plans = ["finish" if n % 2 == 0 else "stall" for n in range(SLOW_CLIENTS)]
    replies = _trickle_while_reading(
        stack, stack.base_url, logicals, plans, trickle_seconds=TRICKLE_SECONDS, readers=result.through_nginx
    )
    result.finished = [reply for reply, plan in zip(replies, plans, strict=True) if plan == "finish"]
    result.stalled = [reply for reply, plan in zip(replies, plans, strict=True) if plan == "stall"]
    result.nginx_statuses = Counter(
        proxy.access_log_statuses(
            stack.proxy_prefix, since_byte=log_start, method_path=f"POST {client.SUBMISSIONS_PATH}"
        )
    )
    _judge_and_count(stack, result, logicals, replies)
    _contrast_at_gunicorn(stack, run_id, result)
    return result


def _contrast_at_gunicorn(stack: Stack, run_id: str, result: SlowResult) -> None:
    """The same slow clients for DIRECT_SECONDS straight at gunicorn, then hanging up; readers there too."""
    logicals = batch(
        run_id, "slow-direct", SLOW_CLIENTS, clients=SLOW_CLIENTS, invalid_share=0.0, extra_rows=LOG_EXTRA_ROWS
    )
    plans = ["close"] * SLOW_CLIENTS
    _trickle_while_reading(
        stack, stack.gunicorn_url, logicals, plans, trickle_seconds=DIRECT_SECONDS, readers=result.at_gunicorn
    )
    wait_for(
        lambda: client.get(stack.gunicorn_url, "/", timeout_seconds=5).status == 200,
        what="gunicorn to answer again after the slow clients hung up",
        timeout_seconds=60,
        check=stack.assert_running,
    )
    with stack.connect() as connection:
        stored = verify.rows_by_sha(connection, [logical.entry_sha256 for logical in logicals])
    result.rows_left_at_gunicorn = sum(len(rows) for rows in stored.values())


def _trickle_while_reading(
    stack: Stack, base_url: str, logicals: list[Logical], plans: list[str], *, trickle_seconds: float, readers: Readers
) -> list[client.Reply]:
    """Every slow client at once, each with its own submitter's token, and a reader from a second after they
    connected until the last of them is done; the slow clients' replies, in order.

    Daemon threads, joined in the main thread: Ctrl-C or the run's time limit reaches it at once, and the
    teardown that follows (nginx and gunicorn stopped) ends the clients' connections.
    """
    replies: list[client.Reply] = [client.Reply(0, 0.0, error="not sent")] * len(logicals)

    def send(index: int) -> None:
        replies[index] = _trickle_one(stack, base_url, logicals[index], plans[index], trickle_seconds)

    threads = [threading.Thread(target=send, args=(index,), daemon=True) for index in range(len(logicals))]
    for thread in threads:
        thread.start()
    time.sleep(1)
    with _reading(base_url, readers):
        for thread in threads:
            thread.join()
    return replies


def _trickle_one(stack: Stack, base_url: str, logical: Logical, plan: str, trickle_seconds: float) -> client.Reply:
    body, headers = phases.logical_request(stack, logical)
    return client.trickle_post(
        base_url,
        client.SUBMISSIONS_PATH,
        body=body,
        headers=headers,
        trickle_seconds=trickle_seconds,
        then=plan,
        answer_timeout_seconds=NGINX_BODY_TIMEOUT_SECONDS + 20,
        bytes_per_send=TRICKLE_BYTES,
        interval_seconds=TRICKLE_INTERVAL_SECONDS,
    )


def _judge_and_count(stack: Stack, result: SlowResult, logicals: list[Logical], replies: list[client.Reply]) -> None:
    """The finished uploads judged once each; the stalled ones left nothing in the database."""
    sent = [(logical, reply.status) for logical, reply in zip(logicals, replies, strict=True)]
    finished = [(logical, status) for logical, status in sent if status != 0]
    stalled = [logical.entry_sha256 for logical, status in sent if status == 0]
    with stack.connect() as connection:
        verify.wait_until_judged(
            connection,
            [logical.entry_sha256 for logical, _ in finished],
            timeout_seconds=JUDGING_TIMEOUT_SECONDS,
            check=stack.assert_running,
        )
        result.tally = verify.tally(connection, finished)
        result.rows_left_by_stalled = sum(len(rows) for rows in verify.rows_by_sha(connection, stalled).values())


@contextmanager
def _reading(base_url: str, readers: Readers) -> Iterator[None]:
    """A reader thread, GET `/` and an API list in turn, for as long as the `with` block runs."""
    stop = threading.Event()
    thread = threading.Thread(target=_read_until, args=(base_url, readers, stop), daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
    thread.join(timeout=60)  # its last request; not waited for when the block raised


def _read_until(base_url: str, readers: Readers, stop: threading.Event) -> None:
    turn = 0
    while not stop.is_set() and not phases.STOP.is_set():
        reply = client.get(base_url, READ_PATHS[turn % len(READ_PATHS)], timeout_seconds=30)
        readers.seconds.append(reply.seconds)
        readers.statuses.append(reply.status)
        turn += 1
        time.sleep(0.05)
