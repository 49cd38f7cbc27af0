"""The HTTP edge: which address a request comes from, and request bodies bounded before anything reads them.

Each path has its own limit (`body_limit`): POST /api/v1/submissions/, the one endpoint that takes files, up to
SUBMISSION_MAX_REQUEST_BYTES; every other path no more than the form-field limit, DATA_UPLOAD_MAX_MEMORY_SIZE.
A body over its path's limit is refused from its Content-Length alone (413 `request_too_large`), before a byte
of it is read or spooled to disk, whoever sends it. A chunked body has no Content-Length (and Django would read
none of it), so `ChunkedBodyLimit`, around the WSGI application, reads it through the same cap first. Uploads that
spool to disk go to FILE_UPLOAD_TEMP_DIR and are closed, so deleted, however the request ends; files that a
worker killed mid-request left there are removed when the next worker starts.
"""

from __future__ import annotations

import ipaddress
import logging
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

REQUEST_TOO_LARGE = "request_too_large"
UPLOAD_PATH = "/api/v1/submissions/"
ALGORITHM_UPLOAD_PATH = "/api/v1/algorithms/results/"  # a results bundle: one archive of trial logs
# Django names a spooled upload tmpXXXXXXXX.upload.<ext>; nothing else in the directory is ever removed.
UPLOAD_FILE_PATTERN = "tmp*.upload*"
# No request lives an hour (gunicorn kills a worker after its timeout), so an upload this old is an orphan.
STALE_UPLOAD_SECONDS = 60 * 60
COPY_CHUNK_BYTES = 64 * 1024

logger = logging.getLogger(__name__)


def client_ip(request: HttpRequest) -> str:
    """The client's address: REMOTE_ADDR, or the one the TLS proxy appended to X-Forwarded-For.

    X-Forwarded-For is read only when BEHIND_TLS_PROXY is on: without a proxy in front it is whatever the
    client wrote, and trusting it would let one client spread its attempts over invented addresses and never
    meet a throttle or a lockout. The proxy appends the address it saw, so the last one is the trusted one.
    """
    if settings.BEHIND_TLS_PROXY:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")[-1].strip()
        try:
            return str(ipaddress.ip_address(forwarded))  # not "1.2.3.4:5678" or "unknown": axes stores an address
        except ValueError:
            pass
    return request.META.get("REMOTE_ADDR", "")


UPLOAD_LIMIT_SETTING = (
    "SUBMISSION_MAX_REQUEST_BYTES: room for two files of SUBMISSION_MAX_FILE_BYTES and the form fields"
)
FORM_LIMIT_SETTING = "DATA_UPLOAD_MAX_MEMORY_SIZE: only POST /api/v1/submissions/ takes files"


@dataclass(frozen=True)
class BodyLimit:
    """How large a request body a path takes, and the setting that says so (named in the refusal)."""

    limit_bytes: int
    setting: str


def body_limit(path_info: str) -> BodyLimit:
    """The limit of a request to `path_info`: the submissions endpoint takes two files, any other path a form."""
    if path_info in (UPLOAD_PATH, ALGORITHM_UPLOAD_PATH):
        return BodyLimit(settings.SUBMISSION_MAX_REQUEST_BYTES, UPLOAD_LIMIT_SETTING)
    return BodyLimit(settings.DATA_UPLOAD_MAX_MEMORY_SIZE, FORM_LIMIT_SETTING)


def request_too_large_response(*, size_bytes: int | None, limit: BodyLimit) -> JsonResponse:
    """413 with the API's error envelope; `size_bytes` is None when the body came without a length."""
    size = f"is {size_bytes:,} bytes" if size_bytes is not None else "has no length and ran past the limit"
    message = f"The request body {size}; the limit here is {limit.limit_bytes:,} bytes ({limit.setting})."
    return JsonResponse(
        {"status": "rejected", "errors": [{"code": REQUEST_TOO_LARGE, "message": message}]},
        status=413,
    )


def upload_dir_prepare(*, directory: Path, older_than_seconds: float = STALE_UPLOAD_SECONDS) -> int:
    """Create the upload temp directory and remove the uploads a killed worker left there; returns how many.

    A worker killed with SIGKILL runs no cleanup, so its spooled uploads stay until this runs at the next
    worker's start. Only Django's upload files older than `older_than_seconds` go: a younger one may belong
    to a request another worker is serving right now.
    """
    directory.mkdir(parents=True, exist_ok=True)
    cutoff = time.time() - older_than_seconds
    removed = 0
    for path in directory.glob(UPLOAD_FILE_PATTERN):
        try:
            if path.is_file() and path.stat().st_mtime < cutoff:
                path.unlink()
                removed += 1
        except FileNotFoundError:  # another worker starting at the same moment took it first
            continue
    if removed:
        logger.warning("Removed %d stale upload file(s) from %s", removed, directory)
    return removed


class RequestSizeLimitMiddleware:
    """Refuses a body over its path's limit by its Content-Length; closes uploads on every exit.

    First in MIDDLEWARE, so nothing has read the body yet. Django deletes a spooled upload when the response
    is closed; the `finally` also covers a request that never gets a response (gunicorn's timeout raises
    SystemExit inside the view), so those files are gone before the worker exits.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response
        # Runs once per process, when the WSGI handler loads: each gunicorn worker as it starts.
        upload_dir_prepare(directory=Path(settings.FILE_UPLOAD_TEMP_DIR))

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = body_limit(request.path_info)
        size_bytes = _content_length(request.META)
        if size_bytes is not None and size_bytes > limit.limit_bytes:
            return request_too_large_response(size_bytes=size_bytes, limit=limit)
        try:
            return self.get_response(request)
        finally:
            request.close()


class ChunkedBodyLimit:
    """WSGI middleware: reads a chunked body (no Content-Length) through a cap, refusing it past the limit.

    Under the limit the body is handed on with its length, spooled in memory up to FILE_UPLOAD_MAX_MEMORY_SIZE
    and then in an anonymous temporary file, so Django parses it like any other; it is closed with the response.
    """

    def __init__(self, application: Callable):
        self.application = application

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        if environ.get("CONTENT_LENGTH") or not chunked:
            return self.application(environ, start_response)
        # Read before any authentication: only the submissions endpoint may send more than a form.
        limit = body_limit(environ.get("PATH_INFO", ""))
        body = tempfile.SpooledTemporaryFile(
            max_size=settings.FILE_UPLOAD_MAX_MEMORY_SIZE, dir=settings.FILE_UPLOAD_TEMP_DIR
        )
        size_bytes = _copy_at_most(environ["wsgi.input"], body, limit_bytes=limit.limit_bytes + 1)
        if size_bytes > limit.limit_bytes:
            body.close()
            response = request_too_large_response(size_bytes=None, limit=limit)
            start_response(f"{response.status_code} {response.reason_phrase}", list(response.items()))
            return [response.content]
        body.seek(0)
        environ = {**environ, "CONTENT_LENGTH": str(size_bytes), "wsgi.input": body}
        return _ClosingIterable(self.application(environ, start_response), body.close)


class _ClosingIterable:
    """A WSGI response that also closes `on_close` when the server closes it."""

    def __init__(self, iterable: Iterable[bytes], on_close: Callable[[], None]):
        self.iterable = iterable
        self.on_close = on_close

    def __iter__(self):
        return iter(self.iterable)

    def close(self) -> None:
        try:
            if hasattr(self.iterable, "close"):
                self.iterable.close()
        finally:
            self.on_close()


def _content_length(meta: dict) -> int | None:
    try:
        return int(meta.get("CONTENT_LENGTH") or "")
    except ValueError:
        return None


def _copy_at_most(source, target, *, limit_bytes: int) -> int:
    """Copy from `source` until it ends or `limit_bytes` are copied; returns the bytes copied."""
    copied = 0
    while copied < limit_bytes:
        chunk = source.read(min(COPY_CHUNK_BYTES, limit_bytes - copied))
        if not chunk:
            break
        target.write(chunk)
        copied += len(chunk)
    return copied
