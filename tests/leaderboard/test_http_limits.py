"""Request bodies are bounded before they are read, spooled uploads never outlive their request, and the
files a killed worker left are removed when the next one starts."""

from __future__ import annotations

import io
import os
import time
from pathlib import Path
from wsgiref.util import setup_testing_defaults

import pytest
from django.conf import settings
from django.core import signals
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.http import HttpResponse
from django.test import override_settings
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from leaderboard.http_limits import ChunkedBodyLimit, upload_dir_prepare
from tests.leaderboard.api.helpers import SUBMISSIONS_URL, submit

GIB = 1024**3
spooled_paths: list[Path] = []


def _spool_then_die(request):
    """A view that spools an upload and then never answers, as when gunicorn's timeout kills the worker."""
    spooled_paths.append(Path(request.FILES["file"].temporary_file_path()))
    raise SystemExit(1)


@csrf_exempt
def _echo_task(request):
    return HttpResponse(request.POST.get("task", "(none)"))


def _spool_and_answer(request):
    spooled_paths.append(Path(request.FILES["file"].temporary_file_path()))
    return HttpResponse("ok")


urlpatterns = [
    path("spool-then-die/", _spool_then_die),
    path("spool/", _spool_and_answer),
    path("echo/", _echo_task),
]


class EndlessBody:
    """A request body that never ends, counting what was read from it."""

    def __init__(self):
        self.read_bytes = 0

    def read(self, size: int = -1) -> bytes:
        size = 65536 if size is None or size < 0 else size
        self.read_bytes += size
        return b"x" * size


def test_a_body_over_the_limit_is_refused_from_its_content_length_unread(api_client):
    # The body claims 1 GiB but holds 10 bytes: reading it at all would fail the test client's payload.
    response = api_client.generic(
        "POST", SUBMISSIONS_URL, b"0123456789", content_type="multipart/form-data; boundary=x", CONTENT_LENGTH=str(GIB)
    )

    assert response.status_code == 413
    [error] = response.json()["errors"]
    assert error["code"] == "request_too_large"
    assert f"{GIB:,}" in error["message"]
    assert f"{settings.SUBMISSION_MAX_REQUEST_BYTES:,}" in error["message"]
    assert "SUBMISSION_MAX_REQUEST_BYTES" in error["message"]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/admin/login/"),  # a CSRF-protected form: Django would spool the body to find the token
        ("POST", "/api/v1/reference-runs/"),  # a JSON body of a few fields
        ("POST", "/api/v1/submissions/5/"),  # only the submissions endpoint itself takes files
        ("POST", "/api/v1/submissions//"),  # nor a path that merely looks like it
        ("POST", "/api/v1/submissions"),
        ("POST", "/API/v1/submissions/"),
        ("PUT", "/"),
        ("GET", "/api/v1/entries/"),
    ],
)
def test_every_other_path_is_refused_past_the_form_limit_from_its_content_length_unread(client, method, path):
    size = 30 * 1024 * 1024  # the probe's anonymous 30 MB multipart body; the 10 bytes sent are never read

    response = client.generic(
        method, path, b"0123456789", content_type="multipart/form-data; boundary=x", CONTENT_LENGTH=str(size)
    )

    assert response.status_code == 413
    [error] = response.json()["errors"]
    assert error["code"] == "request_too_large"
    assert f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes (DATA_UPLOAD_MAX_MEMORY_SIZE" in error["message"]


@pytest.mark.parametrize("address", [SUBMISSIONS_URL, f"{SUBMISSIONS_URL}?dry_run=1"])
def test_the_submissions_endpoint_takes_a_body_past_the_form_limit_to_its_view(client, address):
    """Anonymous, it is refused by the view, which reads no body before it knows the sender."""
    response = client.generic(
        "POST", address, b"0123456789", content_type="multipart/form-data; boundary=x",
        CONTENT_LENGTH=str(30 * 1024 * 1024),
    )  # fmt: skip

    assert response.status_code == 401


def test_the_request_limit_leaves_room_for_two_files_of_the_file_limit():
    assert settings.SUBMISSION_MAX_REQUEST_BYTES >= 2 * settings.SUBMISSION_MAX_FILE_BYTES


@override_settings(SUBMISSION_MAX_FILE_BYTES=1000, SUBMISSION_MAX_REQUEST_BYTES=100_000)
def test_one_file_over_the_file_limit_is_still_file_too_large(api_client):
    response = submit(api_client, entry=b" " * 2000)

    assert response.status_code == 400
    assert [error["code"] for error in response.json()["errors"]] == ["file_too_large"]


def test_a_chunked_body_past_the_limit_is_refused_after_reading_only_the_limit():
    body = EndlessBody()
    called = []
    application = ChunkedBodyLimit(lambda environ, start_response: called.append(environ))
    environ = _chunked_environ(body, path="/api/v1/submissions/")
    started = []

    with override_settings(SUBMISSION_MAX_REQUEST_BYTES=1_000_000):
        content = b"".join(application(environ, lambda status, headers: started.append(status)))

    assert started == ["413 Request Entity Too Large"]
    assert b'"request_too_large"' in content
    assert called == []
    assert body.read_bytes == 1_000_001


def test_a_chunked_body_anywhere_but_the_uploads_is_read_no_further_than_the_form_limit():
    """Read before any authentication, so only the endpoint that takes files may send that much."""
    body = EndlessBody()
    application = ChunkedBodyLimit(lambda environ, start_response: [b"never"])
    started = []

    with override_settings(SUBMISSION_MAX_REQUEST_BYTES=1_000_000, DATA_UPLOAD_MAX_MEMORY_SIZE=10_000):
        content = b"".join(
            application(_chunked_environ(body, path="/"), lambda status, headers: started.append(status))
        )

    assert started == ["413 Request Entity Too Large"] and b'"request_too_large"' in content
    assert body.read_bytes == 10_001


@pytest.fixture
def wsgi_application():
    """Django's WSGI application as gunicorn runs it, without its per-request database connection upkeep
    (this test's view uses no database; the test client leaves the same signal out)."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield get_wsgi_application()
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@override_settings(ROOT_URLCONF=__name__)
def test_a_chunked_body_under_the_limit_reaches_django_whole(wsgi_application):
    form = b'--x\r\nContent-Disposition: form-data; name="task"\r\n\r\ncifar10\r\n--x--\r\n'
    environ = _chunked_environ(io.BytesIO(form), path="/echo/")
    started = []

    response = ChunkedBodyLimit(wsgi_application)(environ, lambda status, headers: started.append(status))
    content = b"".join(response)
    response.close()

    # Django alone reads no body without a Content-Length: it would have seen no `task` at all.
    assert (started, content) == (["200 OK"], b"cifar10")


@pytest.mark.urls(__name__)
@override_settings(FILE_UPLOAD_MAX_MEMORY_SIZE=1000)  # spooled at 1 kB, under any path's body limit
def test_a_spooled_upload_goes_to_the_upload_directory_and_is_deleted_with_the_response(client):
    spooled_paths.clear()
    upload = SimpleUploadedFile("big.tsv", b"x" * 1001)

    response = client.post("/spool/", {"file": upload})

    assert response.status_code == 200
    [spooled] = spooled_paths
    assert spooled.parent == Path(settings.FILE_UPLOAD_TEMP_DIR)
    assert not spooled.exists()


@pytest.mark.urls(__name__)
@override_settings(FILE_UPLOAD_MAX_MEMORY_SIZE=1000)  # spooled at 1 kB, under any path's body limit
def test_a_spooled_upload_is_deleted_even_when_the_worker_is_stopped_mid_request(client):
    spooled_paths.clear()
    upload = SimpleUploadedFile("big.tsv", b"x" * 1001)

    with pytest.raises(SystemExit):
        client.post("/spool-then-die/", {"file": upload})

    [spooled] = spooled_paths
    assert not spooled.exists()


def test_worker_start_removes_stale_uploads_and_keeps_the_rest(tmp_path):
    directory = tmp_path / "uploads"
    directory.mkdir()
    stale, fresh, other = directory / "tmpab12cd.upload.tsv", directory / "tmpef34gh.upload.json", directory / "notes"
    for file in (stale, fresh, other):
        file.write_bytes(b"x")
    two_hours_ago = time.time() - 2 * 3600
    for file in (stale, other):
        os.utime(file, (two_hours_ago, two_hours_ago))

    removed = upload_dir_prepare(directory=directory)

    assert removed == 1
    assert sorted(file.name for file in directory.iterdir()) == ["notes", "tmpef34gh.upload.json"]


def test_worker_start_creates_the_upload_directory(tmp_path):
    directory = tmp_path / "missing" / "uploads"

    upload_dir_prepare(directory=directory)

    assert directory.is_dir()


def _chunked_environ(body, *, path: str = "/", boundary: str = "x") -> dict:
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "HTTP_TRANSFER_ENCODING": "chunked",
        "CONTENT_TYPE": f"multipart/form-data; boundary={boundary}",
        "wsgi.input": body,
    }
    setup_testing_defaults(environ)
    environ.pop("CONTENT_LENGTH", None)
    return environ
