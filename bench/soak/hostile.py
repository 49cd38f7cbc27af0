"""The hostile inputs, each timed, while a reader measures `GET /`; then a flood of bad tokens meets 429."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from bench.soak import client
from bench.soak.payloads import TRACK, Hostile, hostile_inputs
from bench.soak.stack import Stack

ANSWER_WITHIN_SECONDS = 2.0
HOME_P99_UNDER_MS = 1000.0
BAD_TOKEN_FLOOD = 60  # against THROTTLE_AUTH_FAILURE_RATE (20/min in the soak)


@dataclass
class HostileRow:
    name: str
    status: int
    code: str
    seconds: float  # until the code was known: the answer, or a 202's verdict
    ok: bool
    detail: str = ""
    answer_seconds: float | None = None  # the HTTP answer itself


@dataclass
class HostileResult:
    rows: list[HostileRow] = field(default_factory=list)
    home_seconds: list[float] = field(default_factory=list)
    home_statuses: list[int] = field(default_factory=list)

    @property
    def home_p99_ms(self) -> float | None:
        return client.percentile_ms(self.home_seconds, 0.99)

    @property
    def failures(self) -> int:
        home_slow = self.home_p99_ms is None or self.home_p99_ms >= HOME_P99_UNDER_MS
        home_errors = sum(status != 200 for status in self.home_statuses)
        return sum(not row.ok for row in self.rows) + home_slow + (home_errors > 0)

    @property
    def server_errors(self) -> int:
        return sum(row.status >= 500 or row.status == 0 for row in self.rows) + sum(
            status >= 500 or status == 0 for status in self.home_statuses
        )


def run(stack: Stack) -> HostileResult:
    result = HostileResult()
    inputs = hostile_inputs()  # built before the clock starts: the 47 MB entry takes a moment
    stop = threading.Event()

    def read_home() -> None:
        while not stop.is_set():
            reply = client.get(stack.base_url, "/", timeout_seconds=10)
            result.home_seconds.append(reply.seconds)
            result.home_statuses.append(reply.status)

    reader = threading.Thread(target=read_home)
    reader.start()
    try:
        time.sleep(0.5)
        for hostile in inputs:
            result.rows.append(_send(stack, hostile))
        time.sleep(0.5)
    finally:
        stop.set()
        reader.join(timeout=30)
    return result


def _send(stack: Stack, hostile: Hostile) -> HostileRow:
    token = stack.tokens[0]
    base_url = stack.gunicorn_url if hostile.at_gunicorn else stack.base_url
    if hostile.path:
        reply = client.get(base_url, hostile.path, token=token, timeout_seconds=10)
    elif hostile.content_length:
        reply = client.headers_only(
            base_url,
            path=hostile.post_path,
            headers={
                **({} if hostile.anonymous else {"Authorization": f"Token {token}"}),
                "Content-Type": "multipart/form-data; boundary=soak",
                "Content-Length": str(hostile.content_length),
            },
            timeout_seconds=10,
        )
    else:
        reply = client.post_submission(
            base_url,
            token=token,
            task=hostile.task,
            track=TRACK,
            entry=hostile.entry,
            log=hostile.log,
            extra_parts=hostile.extra_parts,
        )
    seconds, status, code, detail = reply.seconds, reply.status, reply.code, reply.error
    if status == 202 and reply.body.get("url"):  # judged on the worker: the code is in the verdict
        verdict, waited = client.wait_for_verdict(stack.base_url, reply.body["url"], token=token)
        seconds += waited
        code = ",".join(str(error.get("code")) for error in verdict.get("errors") or [])
        detail = f"202, then {verdict.get('status')} on the worker"
    code_ok = hostile.codes == ("",) or any(expected in code.split(",") for expected in hostile.codes)
    status_ok = status in hostile.statuses or (status == 202 and detail.endswith("rejected on the worker"))
    ok = code_ok and status_ok and seconds <= ANSWER_WITHIN_SECONDS
    if not ok and not detail:
        detail = f"expected {'/'.join(map(str, hostile.statuses))} {'/'.join(hostile.codes)}"
    return HostileRow(hostile.name, status, code, seconds, ok, detail, answer_seconds=reply.seconds)


def bad_token_flood(stack: Stack) -> HostileResult:
    """Bad tokens from one address until one is answered 429 (the failed-authentication throttle).

    Run last: the throttle then refuses this address for a while, valid tokens included.
    """
    return HostileResult(rows=[_bad_token_flood(stack)], home_seconds=[0.0], home_statuses=[200])


def _bad_token_flood(stack: Stack) -> HostileRow:
    started = time.perf_counter()
    seen: list[int] = []
    for n in range(BAD_TOKEN_FLOOD):
        reply = client.get(stack.base_url, "/api/v1/entries/", token=f"not-a-token-{n:04d}", timeout_seconds=5)
        seen.append(reply.status)
        if reply.status == 429:
            return HostileRow(
                f"bad-token flood ({len(seen)} requests)",
                429,
                reply.code,
                time.perf_counter() - started,
                bool(reply.headers.get("retry-after")),
                "" if reply.headers.get("retry-after") else "429 without Retry-After",
                answer_seconds=reply.seconds,
            )
    statuses = {status: seen.count(status) for status in sorted(set(seen))}
    return HostileRow(
        f"bad-token flood ({len(seen)} requests)",
        seen[-1],
        "",
        time.perf_counter() - started,
        False,
        f"no 429: {statuses}",
    )
