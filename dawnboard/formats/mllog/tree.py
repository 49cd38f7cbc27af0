"""Read an MLPerf Training results tree laid out as MLCommons publishes it (github.com/mlcommons/training_results_vX.Y):

    <root>/<submitter>/results/<system>/<benchmark>/result_<n>.txt    one run's log each (any result_*.txt)
    <root>/<submitter>/results/<system>/<benchmark>/scaling.json      optional: {"scaling_factor": 1.02}
    <root>/<submitter>/systems/<system>.json                          the system's description, where present

Each `<submitter>/<system>/<benchmark>` folder is one result set. Folders of a submitter without `results/` are
not read (benchmarks/ holds code); neither is anything else beside the result files.

The tree comes from outside, so nothing in it is trusted: each problem becomes a code on its set or its file, and
the reader never follows a symbolic link out of the tree, never opens what is not a regular file (a pipe would
block), never reads a file past its size limit (checked on the open file, before reading), and reads none of a
folder holding more than MAX_RESULT_FILES result files. Only a root with no result set at all raises.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from dawnboard.errors import ErrorCode, Issue, RejectedInput, WarningCode, shown
from dawnboard.formats.mllog.log import MAX_LOG_BYTES

RESULT_FILE_PATTERN = "result_*.txt"  # as MLCommons' result summarizer globs them
SCALING_FILE = "scaling.json"
MAX_RESULT_FILES = 100  # the most any benchmark needs is 40 (unet3d)
MAX_SCALING_JSON_BYTES = 64 * 1024
MAX_SYSTEM_JSON_BYTES = 1024 * 1024  # published descriptions are a few kB


@dataclass(frozen=True)
class ResultFile:
    """One result file: its bytes, or why they were not read."""

    name: str
    data: bytes | None
    error: Issue | None = None


@dataclass(frozen=True)
class ResultSet:
    """One `<submitter>/results/<system>/<benchmark>` folder, read.

    Attributes:
        submitter, system, benchmark: the folder names, as written.
        folder: the set's path relative to the root, for messages.
        files: the result files in natural order (result_2 before result_10).
        system_json: the system's description (a JSON object's bytes), or None: absent or ignored (see warnings).
        scaling_factor: scaling.json's factor, or None: no scaling.json (or an invalid one: see errors).
        errors: what makes the set unusable as read (a file's own problem is on the file).
        warnings: what was left out without harm to the results (an unreadable system description).
    """

    submitter: str
    system: str
    benchmark: str
    folder: str
    files: tuple[ResultFile, ...]
    system_json: bytes | None
    scaling_factor: float | None
    errors: tuple[Issue, ...] = ()
    warnings: tuple[Issue, ...] = ()


def read_results_tree(root: Path) -> Iterator[ResultSet]:
    """Every result set under `root`, sorted by submitter, system and benchmark.

    Raises:
        RejectedInput: `no_result_sets`, when `root` is not a folder or holds no
            <submitter>/results/<system>/<benchmark> folder (raised when iteration starts).
    """
    root = Path(root)
    if not root.is_dir():
        raise RejectedInput(Issue(ErrorCode.NO_RESULT_SETS, f"{shown(root)} is not a folder."))
    tree = _Tree(root)
    locations = tree.set_locations()
    if not locations:
        raise RejectedInput(
            Issue(
                ErrorCode.NO_RESULT_SETS,
                f"No <submitter>/results/<system>/<benchmark> folder under {shown(root)}: point at the folder that "
                "holds the submitters' folders (a clone of mlcommons/training_results_vX.Y).",
            )
        )
    for submitter, system, benchmark, error in locations:
        yield tree.result_set(submitter, system, benchmark, error)


class _Tree:
    """The files of one tree, each reached only inside it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.real_root = root.resolve()

    def set_locations(self) -> list[tuple[str, str, str, Issue | None]]:
        """(submitter, system, benchmark, error) of every set folder; a folder that cannot be entered is a set
        with its error and the names below it empty."""
        locations = []
        for submitter in self._folders(self.root):
            results = self.root / submitter / "results"
            if not results.is_dir():
                continue
            for name, error in self._entered(results, f"{submitter}/results"):
                if error is not None:
                    locations.append((submitter, name, "", error))
                    continue
                for benchmark, benchmark_error in self._entered(results / name, f"{submitter}/results/{name}"):
                    locations.append((submitter, name, benchmark, benchmark_error))
        return sorted(locations, key=lambda location: location[:3])

    def result_set(self, submitter: str, system: str, benchmark: str, error: Issue | None) -> ResultSet:
        folder_name = "/".join(part for part in (submitter, "results", system, benchmark) if part)
        warnings: list[Issue] = []
        system_json = self._system_json(submitter, system, warnings) if system else None
        if error is not None:
            return ResultSet(
                submitter, system, benchmark, folder_name, (), system_json, None, (error,), tuple(warnings)
            )
        folder = self.root / folder_name
        errors: list[Issue] = []
        names = self._result_names(folder, folder_name, errors)
        files = tuple(self._result_file(folder / name, f"{folder_name}/{name}") for name in names)
        scaling_factor = self._scaling_factor(folder, folder_name, errors)
        return ResultSet(
            submitter,
            system,
            benchmark,
            folder_name,
            files,
            system_json,
            scaling_factor,
            tuple(errors),
            tuple(warnings),
        )

    def _folders(self, parent: Path) -> list[str]:
        try:
            return sorted(entry.name for entry in os.scandir(parent) if entry.is_dir())
        except OSError:
            return []

    def _entered(self, parent: Path, shown_parent: str) -> list[tuple[str, Issue | None]]:
        """The folders in `parent`, each with the error that keeps it from being read (a link out of the tree)."""
        entered = []
        for name in self._folders(parent):
            escaped = self._outside(parent / name, f"{shown_parent}/{name}")
            entered.append((name, escaped))
        return entered

    def _outside(self, path: Path, shown_path: str) -> Issue | None:
        """The error of a path that resolves outside the tree (or not at all: a loop of links), or None."""
        try:
            resolved = path.resolve()
        except (OSError, RuntimeError):  # RuntimeError: a loop of symbolic links, before Python 3.13
            return Issue(ErrorCode.UNREADABLE_FILE, f"{shown_path} cannot be resolved (a loop of links?).")
        if resolved.is_relative_to(self.real_root):
            return None
        return Issue(
            ErrorCode.LINK_OUTSIDE_TREE,
            f"{shown_path} is a symbolic link out of the results tree; it was not followed.",
            field=shown_path,
        )

    def _result_names(self, folder: Path, folder_name: str, errors: list[Issue]) -> list[str]:
        try:
            names = [entry.name for entry in os.scandir(folder) if fnmatchcase(entry.name, RESULT_FILE_PATTERN)]
        except OSError as error:
            errors.append(Issue(ErrorCode.UNREADABLE_FILE, f"{folder_name} cannot be listed ({error.strerror})."))
            return []
        if len(names) > MAX_RESULT_FILES:
            message = (
                f"{folder_name} holds {len(names):,} result files; no benchmark needs more than {MAX_RESULT_FILES}, "
                "so none was read."
            )
            errors.append(Issue(ErrorCode.TOO_MANY_RESULT_FILES, message, field=folder_name))
            return []
        return sorted(names, key=_natural_key)

    def _result_file(self, path: Path, shown_path: str) -> ResultFile:
        data, error = self._read(path, shown_path, limit=MAX_LOG_BYTES)
        return ResultFile(path.name, data, error)

    def _scaling_factor(self, folder: Path, folder_name: str, errors: list[Issue]) -> float | None:
        path = folder / SCALING_FILE
        if not os.path.lexists(path):
            return None
        shown_path = f"{folder_name}/{SCALING_FILE}"
        data, error = self._read(path, shown_path, limit=MAX_SCALING_JSON_BYTES)
        if error is not None:
            errors.append(error)
            return None
        factor = _scaling_factor_of(data)
        if factor is None:
            message = f"{shown_path} is not a JSON object whose scaling_factor is a finite positive number."
            errors.append(Issue(ErrorCode.INVALID_SCALING_FACTOR, message, field=shown_path))
        return factor

    def _system_json(self, submitter: str, system: str, warnings: list[Issue]) -> bytes | None:
        shown_path = f"{submitter}/systems/{system}.json"
        path = self.root / shown_path
        if not os.path.lexists(path):
            return None
        data, error = self._read(path, shown_path, limit=MAX_SYSTEM_JSON_BYTES)
        if error is None and _json_object(data) is None:
            error = Issue(ErrorCode.INVALID_JSON, f"{shown_path} is not a JSON object.")
        if error is not None:
            message = f"{shown_path} was not read: {error.message}"
            warnings.append(Issue(WarningCode.SYSTEM_DESCRIPTION_IGNORED, message, field=shown_path))
            return None
        return data

    def _read(self, path: Path, shown_path: str, *, limit: int) -> tuple[bytes | None, Issue | None]:
        """A file's bytes, read only when it is a regular file inside the tree of at most `limit` bytes."""
        escaped = self._outside(path, shown_path)
        if escaped is not None:
            return None, escaped
        try:
            # O_NONBLOCK: opening a named pipe must not wait for a writer; its type is refused just below.
            descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        except OSError as error:
            return None, Issue(ErrorCode.UNREADABLE_FILE, f"{shown_path} cannot be opened ({error.strerror}).")
        with os.fdopen(descriptor, "rb") as file:
            status = os.fstat(file.fileno())
            if not stat.S_ISREG(status.st_mode):
                return None, Issue(ErrorCode.NOT_REGULAR_FILE, f"{shown_path} is not a regular file.", field=shown_path)
            if status.st_size > limit:
                return None, _too_large(shown_path, status.st_size, limit)
            try:
                data = file.read(limit + 1)  # a file growing as it is read is still cut at the limit
            except OSError as error:
                return None, Issue(ErrorCode.UNREADABLE_FILE, f"{shown_path} cannot be read ({error.strerror}).")
        if len(data) > limit:
            return None, _too_large(shown_path, len(data), limit)
        return data, None


def _too_large(shown_path: str, size: int, limit: int) -> Issue:
    return Issue(
        ErrorCode.FILE_TOO_LARGE, f"{shown_path} has {size:,} bytes; at most {limit:,} are read.", field=shown_path
    )


def _natural_key(name: str) -> list:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _json_object(data: bytes) -> dict | None:
    try:
        document = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return document if isinstance(document, dict) else None


def _scaling_factor_of(data: bytes) -> float | None:
    document = _json_object(data)
    factor = None if document is None else document.get("scaling_factor")
    if isinstance(factor, bool) or not isinstance(factor, (int, float)):
        return None
    try:
        factor = float(factor)
    except OverflowError:
        return None
    return factor if math.isfinite(factor) and factor > 0 else None
