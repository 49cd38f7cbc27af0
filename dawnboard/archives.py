"""The public results archives on GitHub, as data: which repository holds each, the ref a command downloads, the
folder GitHub's archive unpacks to, and the command that imports that folder by hand. And a tarball unpacked safely.

Neither archive ships with Dawnboard: DAWNBench's entries carry no licence, MLPerf's results are Apache-2.0 but
hundreds of megabytes a round. `import_dawnbench --from-github` and `import_mlperf --from-github ROUND` download them
on request (`leaderboard.services.archives`); this module never touches the network.

GitHub serves a repository at a ref as a gzipped tarball at `https://codeload.github.com/OWNER/REPO/tar.gz/REF`,
everything under one top folder, `REPO-REF` for a branch (a tag's leading "v" is dropped, a slash becomes "-": the
top folder is read from the tarball, never assumed).
"""

from __future__ import annotations

import re
import tarfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import quote

GITHUB_ARCHIVE_URL = "https://codeload.github.com"
MANAGE = ".venv/bin/python manage.py"

DAWNBENCH_OWNER, DAWNBENCH_REPOSITORY, DAWNBENCH_DEFAULT_REF = "stanford-futuredata", "dawn-bench-entries", "master"
MLPERF_OWNER = "mlcommons"
MLPERF_MASTER_ROUNDS = frozenset({"v0.7", "v1.0"})  # the later training_results_vX.Y repositories' branch is main
MLPERF_KEPT_FOLDERS = frozenset({"results", "systems"})  # of <submitter>/: the importer reads nothing else

DAWNBENCH_FILL_COMMAND = f"{MANAGE} import_dawnbench --from-github"

REF = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,199}")


class UnsafeArchive(ValueError):
    """A tarball that does not unpack inside its folder, or holds more than it may: refused whole."""


def mlperf_fill_command(round_name: str) -> str:
    """The command that downloads and imports MLPerf Training round `round_name` ("v4.0")."""
    return f"{MANAGE} import_mlperf --from-github {round_name}"


@dataclass(frozen=True)
class GithubArchive:
    """One repository at one ref, as GitHub serves it.

    Attributes:
        owner, repository, ref: where it is; `ref` a branch, a tag or a commit.
        local_command: the command that imports the unpacked tree, `{folder}` standing for its folder.
        kept_folders: the folders of each `<top>/<name>/` that are unpacked (empty: everything is).
    """

    owner: str
    repository: str
    ref: str
    local_command: str
    kept_folders: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        if not REF.fullmatch(self.ref) or ".." in self.ref or self.ref.endswith("/"):
            raise ValueError(f"{self.ref!r} is not a branch, tag or commit name (letters, digits, '.', '_', '-', '/').")

    def url(self, base_url: str = GITHUB_ARCHIVE_URL) -> str:
        """The tarball's address under `base_url` (codeload.github.com's layout)."""
        return f"{base_url.rstrip('/')}/{self.owner}/{self.repository}/tar.gz/{quote(self.ref, safe='/')}"

    @property
    def web_url(self) -> str:
        return f"https://github.com/{self.owner}/{self.repository}"

    @property
    def cache_name(self) -> str:
        """The cached tarball's file name: one per repository and ref."""
        return f"{self.owner}+{self.repository}+{self.ref.replace('/', '+')}.tar.gz"

    @property
    def folder(self) -> str:
        """The folder GitHub's tarball of a branch unpacks to."""
        return f"{self.repository}-{self.ref.replace('/', '-')}"

    def by_hand(self, url: str) -> str:
        """What to do without the network: the download, the unpacking and the command, in a sentence."""
        file_name = f"{self.folder}.tar.gz"
        return (
            f"Download {url} by hand (on a machine online: curl -L -o {file_name} {url}), bring it here, unpack it "
            f"(tar xzf {file_name}) and run: {self.local_command.format(folder=self.folder)}"
        )

    def keeps(self, parts: tuple[str, ...]) -> bool:
        """Whether the member at `parts` (below the top folder) is unpacked."""
        return not self.kept_folders or len(parts) < 2 or parts[1] in self.kept_folders


def dawnbench_archive(ref: str = DAWNBENCH_DEFAULT_REF) -> GithubArchive:
    """stanford-futuredata/dawn-bench-entries at `ref`: `<top>/{CIFAR10,ImageNet,SQuAD}/{train,inference}/`."""
    return GithubArchive(
        owner=DAWNBENCH_OWNER,
        repository=DAWNBENCH_REPOSITORY,
        ref=ref,
        local_command=f"{MANAGE} import_dawnbench {{folder}}",
    )


def mlperf_archive(round_name: str, ref: str | None = None) -> GithubArchive:
    """mlcommons/training_results_<round> at `ref` (its default branch when None):
    `<top>/<submitter>/results/<system>/<benchmark>/result_N.txt` and `<top>/<submitter>/systems/<system>.json`;
    only those two folders of each submitter are unpacked (the rest is code, most of the archive)."""
    return GithubArchive(
        owner=MLPERF_OWNER,
        repository=f"training_results_{round_name}",
        ref=ref or ("master" if round_name in MLPERF_MASTER_ROUNDS else "main"),
        local_command=f"{MANAGE} import_mlperf {{folder}} --round {round_name}",
        kept_folders=MLPERF_KEPT_FOLDERS,
    )


@dataclass(frozen=True)
class Unpacked:
    """A tarball unpacked: its top folder, the bytes written, and the members not unpacked (links leaving the tree,
    devices and other special files)."""

    root: Path
    unpacked_bytes: int
    left_out: tuple[str, ...]


def unpack_tarball(
    path: Path, destination: Path, *, max_unpacked_bytes: int, keep: Callable[[tuple[str, ...]], bool] | None = None
) -> Unpacked:
    """Unpack the gzipped tarball at `path` into the empty folder `destination`, one pass, checking every member.

    Refused whole (UnsafeArchive): a member named with an absolute path or a `..`, more than one top folder, or more
    than `max_unpacked_bytes` to write. Left out, and listed: a link that leaves the tree, a device or FIFO (what
    tarfile's "data" filter refuses of them). `keep(parts)` chooses the members, `parts` the names below the top
    folder. On refusal, what was written stays in `destination` for the caller to remove.
    """
    top: str | None = None
    written = 0
    left_out: list[str] = []

    def data_only(member: tarfile.TarInfo, where: str) -> tarfile.TarInfo | None:
        try:
            return tarfile.data_filter(member, where)
        except (tarfile.AbsolutePathError, tarfile.OutsideDestinationError) as error:
            raise UnsafeArchive(f"member {member.name!r} would unpack outside the archive's folder") from error
        except (tarfile.LinkOutsideDestinationError, tarfile.AbsoluteLinkError, tarfile.SpecialFileError):
            left_out.append(member.name)
            return None

    try:
        with tarfile.open(path, mode="r|gz") as archive:
            for member in archive:
                parts = _parts(member.name)
                if top is None:
                    top = parts[0]
                elif parts[0] != top:
                    raise UnsafeArchive(f"member {member.name!r} is outside the top folder {top!r}")
                if keep is not None and not keep(parts[1:]):
                    continue
                if member.isfile():
                    written += member.size
                    if written > max_unpacked_bytes:
                        raise UnsafeArchive(f"it unpacks to more than {max_unpacked_bytes:,} bytes")
                archive.extract(member, path=destination, filter=data_only)
    except (tarfile.TarError, EOFError, OSError) as error:
        raise UnsafeArchive(f"it is not a readable gzipped tarball ({error})") from error
    if top is None or not (destination / top).is_dir():
        raise UnsafeArchive("it holds no folder")
    return Unpacked(root=destination / top, unpacked_bytes=written, left_out=tuple(left_out))


def _parts(name: str) -> tuple[str, ...]:
    """The member's path as names; UnsafeArchive for an absolute path, a `..`, or nothing at all."""
    if name.startswith("/"):
        raise UnsafeArchive(f"member {name!r} has an absolute path")
    parts = tuple(part for part in PurePosixPath(name).parts if part not in ("", "."))
    if ".." in parts:
        raise UnsafeArchive(f"member {name!r} climbs out of its folder")
    if not parts:
        raise UnsafeArchive(f"member {name!r} has no name")
    return parts
