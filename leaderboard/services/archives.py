"""Downloading a public results archive from GitHub into a cache, checked, and unpacking it for an import.

Only on request: `import_dawnbench --from-github` and `import_mlperf --from-github ROUND` call this; nothing at start-up
does. The archive is streamed to a temporary file beside the cache and renamed into place once its size (the
Content-Length, when the server sends one, and the cap) and its sha256 (when one is expected) are right; a small
JSON beside it records size, sha256, URL and time, so a second import reads the cache without the network.

Settings: DAWNBOARD_GITHUB_ARCHIVE_URL, DAWNBOARD_ARCHIVE_CACHE, DAWNBOARD_ARCHIVE_MAX_BYTES,
DAWNBOARD_ARCHIVE_MAX_UNPACKED_BYTES, DAWNBOARD_ARCHIVE_CONNECT_TIMEOUT_SECONDS.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import re
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings

from dawnboard.archives import GITHUB_ARCHIVE_URL, GithubArchive, Unpacked, UnsafeArchive, unpack_tarball

READ_TIMEOUT_SECONDS = 60.0  # once connected: GitHub may take a while to start streaming a large repository
CHUNK_BYTES = 1024 * 1024
SHA256 = re.compile(r"[0-9a-f]{64}")


class ArchiveError(Exception):
    """An archive that cannot be imported; the message says why and what to do."""


class ArchiveUnavailable(ArchiveError):
    """No archive: offline, the server unreachable or slow to connect, or an HTTP error."""


class ArchiveRefused(ArchiveError):
    """An archive was downloaded (or cached) and refused: size, digest, or an unsafe or oversized tarball."""


@dataclass(frozen=True)
class CachedArchive:
    """A downloaded tarball in the cache, as its JSON record describes it."""

    path: Path
    url: str
    size_bytes: int
    sha256: str
    downloaded_at: str
    from_cache: bool

    def as_dict(self) -> dict:
        return {**asdict(self), "path": str(self.path)}


@dataclass(frozen=True)
class UnpackedArchive:
    archive: CachedArchive
    tree: Unpacked


def archive_fetch(*, archive: GithubArchive, expected_sha256: str | None = None) -> CachedArchive:
    """The archive's tarball, from the cache when it holds a sound copy of the same URL, else downloaded into it.

    Raises:
        ArchiveUnavailable: it could not be downloaded (the message names the URL and what to do by hand).
        ArchiveRefused: the download (or the cached copy) is too large, short of its Content-Length, or not the
            `expected_sha256`; nothing of it is kept.
    """
    if expected_sha256 is not None and not SHA256.fullmatch(expected_sha256):
        raise ArchiveRefused(f"--sha256 takes 64 hexadecimal digits (lower case), not {expected_sha256!r}.")
    url = archive.url(settings.DAWNBOARD_GITHUB_ARCHIVE_URL or GITHUB_ARCHIVE_URL)
    cache = Path(settings.DAWNBOARD_ARCHIVE_CACHE)
    path = cache / archive.cache_name
    cached = _cached(path, url)
    if cached is None:
        cache.mkdir(parents=True, exist_ok=True)
        cached = _download(url, path, archive)
    if expected_sha256 is not None and cached.sha256 != expected_sha256:
        _remove(path)
        raise ArchiveRefused(
            f"{url} has sha256 {cached.sha256}, not the expected {expected_sha256}: refused and removed, nothing "
            "imported."
        )
    return cached


@contextmanager
def archive_unpacked(*, archive: GithubArchive, expected_sha256: str | None = None) -> Iterator[UnpackedArchive]:
    """The archive fetched (`archive_fetch`) and unpacked into a temporary folder beside the cache, removed after.

    Raises (on entering):
        ArchiveUnavailable, ArchiveRefused: as `archive_fetch`; ArchiveRefused too for a tarball that would unpack
            outside its folder or past DAWNBOARD_ARCHIVE_MAX_UNPACKED_BYTES (and removed from the cache).
    """
    cached = archive_fetch(archive=archive, expected_sha256=expected_sha256)
    with tempfile.TemporaryDirectory(dir=cached.path.parent, prefix=".unpacked-") as scratch:
        try:
            tree = unpack_tarball(
                cached.path,
                Path(scratch),
                max_unpacked_bytes=settings.DAWNBOARD_ARCHIVE_MAX_UNPACKED_BYTES,
                keep=archive.keeps,
            )
        except UnsafeArchive as refused:
            _remove(cached.path)
            raise ArchiveRefused(
                f"{cached.url} was refused and removed from the cache, nothing imported: {refused}."
            ) from None
        yield UnpackedArchive(archive=cached, tree=tree)


def _cached(path: Path, url: str) -> CachedArchive | None:
    """The cached copy when its record names this URL and the file still has the recorded size and digest; a copy
    that does not is removed (and downloaded again)."""
    record_path = _record_path(path)
    try:
        record = json.loads(record_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("url") != url or not path.is_file():
        return None
    size, digest = _measure(path)
    if size != record.get("size_bytes") or digest != record.get("sha256"):
        _remove(path)
        return None
    return CachedArchive(
        path=path,
        url=url,
        size_bytes=size,
        sha256=digest,
        downloaded_at=str(record.get("downloaded_at")),
        from_cache=True,
    )


def _download(url: str, path: Path, archive: GithubArchive) -> CachedArchive:
    max_bytes = settings.DAWNBOARD_ARCHIVE_MAX_BYTES
    try:
        response = _opener().open(
            urllib.request.Request(url, headers={"User-Agent": "dawnboard"}),
            timeout=settings.DAWNBOARD_ARCHIVE_CONNECT_TIMEOUT_SECONDS,
        )
    except urllib.error.HTTPError as error:
        raise ArchiveUnavailable(_unavailable(url, f"HTTP {error.code} {error.reason}", archive)) from None
    except (urllib.error.URLError, http.client.HTTPException, OSError) as error:
        reason = getattr(error, "reason", None) or error
        raise ArchiveUnavailable(_unavailable(url, str(reason), archive)) from None
    with response:
        expected_size = _content_length(response)
        if expected_size is not None and expected_size > max_bytes:
            raise ArchiveRefused(_too_large(url, max_bytes))
        descriptor, part_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
        part = Path(part_name)
        try:
            size, digest = _stream(response, descriptor, url=url, max_bytes=max_bytes, archive=archive)
            if expected_size is not None and size != expected_size:
                raise ArchiveRefused(
                    f"{url} sent {size:,} bytes where its Content-Length said {expected_size:,}: refused, nothing "
                    "imported. Run the command again."
                )
            os.replace(part, path)
        finally:
            _remove(part)
    downloaded_at = datetime.now(UTC).isoformat(timespec="seconds")
    record = {"url": url, "size_bytes": size, "sha256": digest, "downloaded_at": downloaded_at}
    _write_atomically(_record_path(path), json.dumps(record, indent=2) + "\n")
    return CachedArchive(
        path=path, url=url, size_bytes=size, sha256=digest, downloaded_at=downloaded_at, from_cache=False
    )


def _stream(response, descriptor: int, *, url: str, max_bytes: int, archive: GithubArchive) -> tuple[int, str]:
    """Copy the response into the open file, hashing as it goes; (bytes, sha256)."""
    digest, size = hashlib.sha256(), 0
    with os.fdopen(descriptor, "wb") as out:
        while True:
            try:
                chunk = response.read(CHUNK_BYTES)
            except (http.client.HTTPException, OSError) as error:
                raise ArchiveUnavailable(_unavailable(url, f"the download broke off ({error})", archive)) from None
            if not chunk:
                break
            size += len(chunk)
            if size > max_bytes:
                raise ArchiveRefused(_too_large(url, max_bytes))
            digest.update(chunk)
            out.write(chunk)
        out.flush()
        os.fsync(out.fileno())
    return size, digest.hexdigest()


def _measure(path: Path) -> tuple[int, str]:
    digest, size = hashlib.sha256(), 0
    with path.open("rb") as file:
        while chunk := file.read(CHUNK_BYTES):
            size += len(chunk)
            digest.update(chunk)
    return size, digest.hexdigest()


def _content_length(response) -> int | None:
    value = response.headers.get("Content-Length")
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _unavailable(url: str, reason: str, archive: GithubArchive) -> str:
    return f"Could not download {url} ({reason}). {archive.by_hand(url)}"


def _too_large(url: str, max_bytes: int) -> str:
    return (
        f"{url} is larger than DAWNBOARD_ARCHIVE_MAX_BYTES ({max_bytes:,} bytes): refused, nothing imported. Raise "
        "the setting to download it."
    )


def _record_path(path: Path) -> Path:
    return path.with_name(f"{path.name}.json")


def _write_atomically(path: Path, text: str) -> None:
    descriptor, part_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(part_name, path)
    finally:
        _remove(Path(part_name))


def _remove(path: Path) -> None:
    path.unlink(missing_ok=True)
    if path.suffix != ".part":
        _record_path(path).unlink(missing_ok=True)


class _ReadTimeout:
    """A connection that connects within the request's (short) timeout, then reads with READ_TIMEOUT_SECONDS."""

    def connect(self) -> None:
        super().connect()
        self.sock.settimeout(READ_TIMEOUT_SECONDS)


class _HTTPConnection(_ReadTimeout, http.client.HTTPConnection):
    pass


class _HTTPSConnection(_ReadTimeout, http.client.HTTPSConnection):
    pass


class _HTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, request):
        return self.do_open(_HTTPConnection, request)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def https_open(self, request):
        return self.do_open(_HTTPSConnection, request, context=self._context)


def _opener() -> urllib.request.OpenerDirector:
    return urllib.request.build_opener(_HTTPHandler, _HTTPSHandler)
