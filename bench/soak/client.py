"""HTTP as the soak's clients speak it: the standard library only, every call timed and bounded."""

from __future__ import annotations

import http.client
import json
import socket
import statistics
import time
import uuid
from dataclasses import dataclass, field


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


def post_submission(
    base_url: str,
    *,
    token: str,
    task: str,
    track: str,
    entry: bytes | None,
    log: bytes | None,
    idempotency_key: str | None = None,
    timeout_seconds: float = 60,
) -> Reply:
    """POST /api/v1/submissions/ as curl -F does: task, track, and the files as parts with file names."""
    boundary = uuid.uuid4().hex
    parts = [_form_field(boundary, "task", task.encode()), _form_field(boundary, "track", track.encode())]
    if entry is not None:
        parts.append(_form_field(boundary, "entry", entry, filename="entry.json"))
    if log is not None:
        parts.append(_form_field(boundary, "log", log, filename="log.tsv"))
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    headers = {"Authorization": f"Token {token}", "Content-Type": f"multipart/form-data; boundary={boundary}"}
    if idempotency_key:
        headers["Idempotency-Key"] = idempotency_key
    path = "/api/v1/submissions/"
    return request(base_url, "POST", path, body=body, headers=headers, timeout_seconds=timeout_seconds)


def headers_only(base_url: str, *, path: str, headers: dict[str, str], timeout_seconds: float) -> Reply:
    """Send a request's headers and no body, and read what the server answers before any body arrives."""
    host, port = base_url.removeprefix("http://").split(":")
    lines = [f"POST {path} HTTP/1.1", f"Host: {host}:{port}", *(f"{name}: {value}" for name, value in headers.items())]
    started = time.perf_counter()
    try:
        with socket.create_connection((host, int(port)), timeout=timeout_seconds) as sock:
            sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
            response = http.client.HTTPResponse(sock)
            response.begin()
            raw = response.read(64 * 1024)
            reply_headers = {name.lower(): value for name, value in response.getheaders()}
            seconds = time.perf_counter() - started
            return Reply(response.status, seconds, _json_or_empty(raw, reply_headers), reply_headers)
    except (OSError, http.client.HTTPException) as error:
        return Reply(0, time.perf_counter() - started, error=f"{type(error).__name__}: {error}")


def percentile_ms(seconds: list[float], fraction: float) -> float | None:
    """The `fraction` quantile (0.5, 0.99) in milliseconds; None for no samples."""
    if not seconds:
        return None
    if len(seconds) == 1:
        return seconds[0] * 1000
    return statistics.quantiles(seconds, n=1000, method="inclusive")[round(fraction * 1000) - 1] * 1000


def _form_field(boundary: str, name: str, value: bytes, filename: str | None = None) -> bytes:
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
