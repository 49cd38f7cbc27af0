"""What `import_dawnbench --from-github` and `import_mlperf --from-github` share: the archive unpacked for the import,
its refusals as CommandError, and the line that says which archive was read."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from django.core.management.base import CommandError

from dawnboard.archives import GithubArchive
from leaderboard.services.archives import ArchiveError, UnpackedArchive, archive_unpacked

SHA256_HELP = "The archive's expected sha256 (64 hex digits): a download or cached copy that differs is refused."


@contextmanager
def unpacked_for_import(*, archive: GithubArchive, expected_sha256: str | None) -> Iterator[UnpackedArchive]:
    """The archive unpacked while the import runs; a download or tarball refused is a CommandError, before any
    import starts."""
    with ExitStack() as stack:
        try:
            unpacked = stack.enter_context(archive_unpacked(archive=archive, expected_sha256=expected_sha256))
        except ArchiveError as error:
            raise CommandError(str(error)) from None
        yield unpacked


def described(unpacked: UnpackedArchive) -> str:
    """e.g. "Archive https://...: 1,234 bytes, sha256 ab12..., downloaded 2025-01-02T03:04:05+00:00 (cached)"."""
    archive = unpacked.archive
    how = "read from the cache" if archive.from_cache else "downloaded"
    left_out = unpacked.tree.left_out
    skipped = f"; {len(left_out)} link(s) or special file(s) not unpacked" if left_out else ""
    return (
        f"Archive {archive.url}: {archive.size_bytes:,} bytes, sha256 {archive.sha256}, {how} "
        f"({archive.path}, downloaded {archive.downloaded_at}){skipped}."
    )


def from_github_options(*, path: object, from_github: object, sha256: str | None, local: str) -> None:
    """Refuse a local folder given with --from-github, neither given, or --sha256 without a download."""
    if path is not None and from_github is not None:
        raise CommandError(f"Give {local} or --from-github, not both.")
    if path is None and from_github is None:
        raise CommandError(f"Give {local} (a folder to import) or --from-github (to download the public archive).")
    if sha256 is not None and from_github is None:
        raise CommandError("--sha256 checks a download: give it with --from-github.")
