"""MLPerf Training results trees for `import_mlperf`'s tests and `make soak`: good ssd sets, and one hostile set
per bad input issue 23 names, each with the code that must refuse it.

Every set is `<root>/Org/results/<system>/ssd/result_<i>.txt` (five runs, v4.1's count for ssd). A hostile set
differs from a good one in one file (or in its folder), so the code it gets names that one cause.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dawnboard.errors import ErrorCode
from dawnboard.formats.mllog import write_mllog
from tests.dawnboard.mllog_runs import START_MS, raw_record, run_log, run_records, write_set

ROUND = "v4.1"
TOO_MANY_RESULT_FILES = 1000  # the number, ten times the reader's MAX_RESULT_FILES
REACHED, SHORT = ((1, 0.20), (2, 0.35)), ((1, 0.20), (2, 0.30))  # v4.1 ssd's target is 0.340


def ssd_logs(minutes: list[float], *, short: set[int] = frozenset(), offset: int = 0) -> list[bytes]:
    """One ssd log per duration, each a run of its own (its own start); runs in `short` miss the target."""
    return [
        run_log(
            duration_ms=duration * 60_000,
            evaluations=SHORT if index in short else REACHED,
            start_ms=START_MS + 10_000_000 * (index + 100 * offset),
        )
        for index, duration in enumerate(minutes)
    ]


def good_set(root: Path, *, system: str = "good", offset: int = 0) -> Path:
    return write_set(root, ssd_logs([10.0, 11.0, 12.0, 13.0, 14.0], offset=offset), system=system)


def bad_set(root: Path, logs: list[bytes], *, system: str = "bad") -> Path:
    """A set of five runs, the first replaced by `logs[0]` (and so on)."""
    runs = ssd_logs([20.0, 21.0, 22.0, 23.0, 24.0], offset=7)
    runs[: len(logs)] = logs
    return write_set(root, runs, system=system)


def _other_run() -> bytes:
    """A good run of 20 minutes, to follow a hostile first record."""
    return run_log(duration_ms=20 * 60_000, start_ms=START_MS + 77_000_000)


# --- The hostile sets: each writer makes set `system` under `root`, touching nothing outside root's parent ---


def _result_file_linking_outside(root: Path, system: str) -> None:
    outside = root.parent / f"outside-{system}.txt"
    outside.parent.mkdir(parents=True, exist_ok=True)
    outside.write_bytes(ssd_logs([30.0], offset=9)[0])
    target = bad_set(root, [], system=system) / "result_1.txt"
    target.unlink()
    os.symlink(outside, target)


def _set_folder_linking_outside(root: Path, system: str) -> None:
    outside = root.parent / f"outside-{system}"
    write_set(outside, ssd_logs([30.0, 31.0, 32.0, 33.0, 34.0], offset=9), system="sys")
    (root / "Org" / "results").mkdir(parents=True, exist_ok=True)
    os.symlink(outside / "Org" / "results" / "sys", root / "Org" / "results" / system)


def _log_of_100_megabytes(root: Path, system: str) -> None:
    with open(bad_set(root, [], system=system) / "result_1.txt", "r+b") as sparse:  # holes: no disk used
        sparse.truncate(100 * 1024 * 1024)


def _line_of_ten_megabytes(root: Path, system: str) -> None:
    records = run_records(duration_ms=20 * 60_000, start_ms=START_MS + 77_000_000)
    bad_set(root, [raw_record("padding", "x" * 10_000_000, START_MS) + write_mllog(records)], system=system)


def _two_million_lines(root: Path, system: str) -> None:
    bad_set(root, [_other_run() + b"\n" * 2_000_001], system=system)


def _too_many_result_files(root: Path, system: str) -> None:
    folder = root / "Org" / "results" / system / "ssd"
    folder.mkdir(parents=True)
    for index in range(TOO_MANY_RESULT_FILES):
        (folder / f"result_{index}.txt").write_bytes(b"")


def _time_written_as(time_text: str) -> Callable[[Path, str], None]:
    def write(root: Path, system: str) -> None:
        bad_set(root, [raw_record("weird", 1, time_text) + _other_run()], system=system)

    return write


def _nested_a_hundred_thousand_deep(root: Path, system: str) -> None:
    deep = (
        b':::MLLOG {"namespace": "", "time_ms": 1700000000000, "event_type": "POINT_IN_TIME", "key": "deep", '
        b'"metadata": {}, "value": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"
    )
    bad_set(root, [deep + _other_run()], system=system)


def _four_runs(root: Path, system: str) -> None:
    write_set(root, ssd_logs([20.0, 21.0, 22.0, 23.0], offset=3), system=system)


def _unknown_benchmark_folder(root: Path, system: str) -> None:
    folder = write_set(root, ssd_logs([20.0, 21.0, 22.0, 23.0, 24.0], offset=3), system=system)
    folder.rename(folder.parent / "not_a_benchmark")


@dataclass(frozen=True)
class HostileSet:
    """A set `import_mlperf` must refuse with `code`, storing nothing of it, quickly."""

    name: str
    code: str
    write: Callable[[Path, str], None]  # (tree root, system folder name)


HOSTILE_SETS = (
    HostileSet("result file linking outside the tree", ErrorCode.LINK_OUTSIDE_TREE, _result_file_linking_outside),
    HostileSet("set folder linking outside the tree", ErrorCode.LINK_OUTSIDE_TREE, _set_folder_linking_outside),
    HostileSet("log of 100 MiB (sparse)", ErrorCode.FILE_TOO_LARGE, _log_of_100_megabytes),
    HostileSet("record line of 10 MB", ErrorCode.LINE_TOO_LONG, _line_of_ten_megabytes),
    HostileSet("log of 2,000,001 lines", ErrorCode.TOO_MANY_LINES, _two_million_lines),
    HostileSet(f"{TOO_MANY_RESULT_FILES:,} result files", ErrorCode.TOO_MANY_RESULT_FILES, _too_many_result_files),
    HostileSet("time_ms as a string", ErrorCode.INVALID_TIME, _time_written_as('"1700000000000"')),
    HostileSet("time_ms NaN", ErrorCode.INVALID_TIME, _time_written_as("NaN")),
    HostileSet("time_ms 1e400", ErrorCode.INVALID_TIME, _time_written_as("1e400")),
    HostileSet("value nested 100,000 deep", ErrorCode.NESTED_TOO_DEEP, _nested_a_hundred_thousand_deep),
    HostileSet("four runs where ssd needs five", ErrorCode.WRONG_RUN_COUNT, _four_runs),
    HostileSet("unknown benchmark folder", ErrorCode.UNKNOWN_BENCHMARK, _unknown_benchmark_folder),
)
