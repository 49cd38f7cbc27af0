"""HTTP as the soak's clients speak it: the standard library only, every call timed and bounded."""

from __future__ import annotations

import http.client
import json
import socket
import statistics
import time
import uuid
from dataclasses import dataclass, field
from urllib.parse import urlsplit


@dataclass
class Reply:
    """One answer: `status` 0 when none came (refused, reset, timed out); `error` then says why."""

    status: int
    seconds: float
    body: dict = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    error: str = ""

    @property
    def codes(self) -> list[str]:
        return [str(error.get("code")) for error in self.body.get("errors") or [] if isinstance(error, dict)]

    @property
    def code(self) -> str:
        return ",".join(self.codes)


def request(
    base_url: str,
    method: str,
    path: str,
    *,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout_seconds: float = 30,
) -> Reply:
    host, port = base_url.removeprefix("http://").split(":")
    started = time.perf_counter()
    connection = http.client.HTTPConnection(host, int(port), timeout=timeout_seconds)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        raw = response.read()
        seconds = time.perf_counter() - started
        reply_headers = {name.lower(): value for name, value in response.getheaders()}
        return Reply(response.status, seconds, _json_or_empty(raw, reply_headers), reply_headers)
    except (OSError, http.client.HTTPException) as error:
        return Reply(0, time.perf_counter() - started, error=f"{type(error).__name__}: {error}")
    finally:
        connection.close()


def get(base_url: str, path: str, *, token: str | None = None, timeout_seconds: float = 30) -> Reply:
    headers = {"Authorization": f"Token {token}"} if token else {}
    return request(base_url, "GET", path, headers=headers, timeout_seconds=timeout_seconds)


SUBMISSIONS_PATH = "/api/v1/submissions/"
# A form part: (field name, value, file name or None for a plain field).
Part = tuple[str, bytes, str | None]


def post_submission(base_url: str, *, timeout_seconds: float = 60, **fields) -> Reply:
    """POST /api/v1/submissions/ as curl -F does: task, track, and the files as parts with file names; `fields`
    as `submission_request` takes them."""
    body, headers = submission_request(**fields)
    return request(base_url, "POST", SUBMISSIONS_PATH, body=body, headers=headers, timeout_seconds=timeout_seconds)


def submission_request(
    *,
    token: str,
    task: str,
    track: str,
    entry: bytes | None,
    log: bytes | None,
    idempotency_key: str | None = None,
    extra_parts: tuple[Part, ...] = (),
) -> tuple[bytes, dict[str, str]]:
    """The multipart body of a submission and its headers (Content-Length aside)."""
    parts: list[Part] = [("task", task.encode(), None), ("track", track.encode(), None)]
    if entry is not None:
        parts.append(("entry", entry, "entry.json"))
    if log is not None:
        parts.append(("log", log, "log.tsv"))
    boundary = uuid.uuid4().hex
    body = b"".join(_form_field(boundary, *part) for part in [*parts, *extra_parts]) + f"--{boundary}--\r\n".encode()
    headers = {"Authorization": f"Token {token}", "Content-Type": f"multipart/form-data; boundary={boundary}"}
    if idempotency_key:
        headers["Idempotency-Key"] = idempotency_key
    return body, headers


def trickle_post(
    base_url: str,
    path: str,
    *,
    body: bytes,
    headers: dict[str, str],
    trickle_seconds: float,
    then: str,
    answer_timeout_seconds: float,
    bytes_per_send: int = 4,
    interval_seconds: float = 0.5,
) -> Reply:
    """POST with the full Content-Length, sending `bytes_per_send` bytes each `interval_seconds` for a while.

    `then` says what the client does when `trickle_seconds` are up: "finish" (send the rest and read the
    answer), "stall" (send nothing more and wait for the server to answer or close) or "close" (hang up).
    """
    host, port = base_url.removeprefix("http://").split(":")
    lines = [f"POST {path} HTTP/1.1", f"Host: {host}:{port}", f"Content-Length: {len(body)}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    started = time.perf_counter()
    try:
        with socket.create_connection((host, int(port)), timeout=answer_timeout_seconds) as sock:
            sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
            sent = 0
            while time.perf_counter() - started < trickle_seconds and sent + bytes_per_send < len(body):
                sock.sendall(body[sent : sent + bytes_per_send])
                sent += bytes_per_send
                time.sleep(interval_seconds)
            if then == "close":
                return Reply(0, time.perf_counter() - started, error=f"hung up after {sent} bytes")
            if then == "finish":
                sock.sendall(body[sent:])
            return _read_answer(sock, started)
    except (OSError, http.client.HTTPException) as error:
        return Reply(0, time.perf_counter() - started, error=f"{type(error).__name__}: {error}")


def headers_only(base_url: str, *, path: str, headers: dict[str, str], timeout_seconds: float) -> Reply:
    """Send a request's headers and no body, and read what the server answers before any body arrives."""
    host, port = base_url.removeprefix("http://").split(":")
    lines = [f"POST {path} HTTP/1.1", f"Host: {host}:{port}", *(f"{name}: {value}" for name, value in headers.items())]
    started = time.perf_counter()
    try:
        with socket.create_connection((host, int(port)), timeout=timeout_seconds) as sock:
            sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
            return _read_answer(sock, started)
    except (OSError, http.client.HTTPException) as error:
        return Reply(0, time.perf_counter() - started, error=f"{type(error).__name__}: {error}")


def _read_answer(sock: socket.socket, started: float) -> Reply:
    """Read an HTTP answer (its first 64 KB) from a socket the request was written to by hand."""
    response = http.client.HTTPResponse(sock)
    response.begin()
    raw = response.read(64 * 1024)
    reply_headers = {name.lower(): value for name, value in response.getheaders()}
    return Reply(response.status, time.perf_counter() - started, _json_or_empty(raw, reply_headers), reply_headers)


def wait_for_verdict(base_url: str, url: str, *, token: str, timeout_seconds: float = 30) -> tuple[dict, float]:
    """Poll a submission's verdict (`url` as the API gave it) until it is no longer pending, within the timeout;
    returns the last verdict read (empty if none was) and the seconds waited."""
    path = urlsplit(url).path
    started = time.perf_counter()
    verdict: dict = {}
    while time.perf_counter() - started < timeout_seconds:
        verdict = get(base_url, path, token=token).body
        if verdict.get("status") not in (None, "pending"):
            break
        time.sleep(0.1)
    return verdict, time.perf_counter() - started


def percentile_ms(seconds: list[float], fraction: float) -> float | None:
    """The `fraction` quantile (0.5, 0.99) in milliseconds; None for no samples."""
    if not seconds:
        return None
    if len(seconds) == 1:
        return seconds[0] * 1000
    return statistics.quantiles(seconds, n=1000, method="inclusive")[round(fraction * 1000) - 1] * 1000


def _form_field(boundary: str, name: str, value: bytes, filename: str | None) -> bytes:
    disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
    return f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n".encode() + value + b"\r\n"


def _json_or_empty(raw: bytes, headers: dict[str, str]) -> dict:
    if "json" not in headers.get("content-type", ""):
        return {}
    try:
        document = json.loads(raw)
    except ValueError:
        return {}
    return document if isinstance(document, dict) else {}
