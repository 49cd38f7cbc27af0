"""`manage.py import_mlperf` on an MLPerf Training results tree, next to MLCommons' own checker and summarizer.

Builds trees of about --sizes runs (default 200 and 2,000) by sampling whole sets from a published results tree
(--source, default /tmp/mlperf41: a clone of mlcommons/training_results_v4.1); a tree larger than the source holds
its sets again under other submitter names, each copy's time_ms shifted by a whole number of hours so that its
runs are runs of their own (the board refuses a log it already holds; the minutes are unchanged). Without the
source it generates compliant ssd sets with tests/dawnboard/mllog_runs.py, and says so.

Then, in this one process, per tree:
* baseline: MLCommons' result summarizer (mlperf-logging), `_compute_strong_score_standalone` per set, which runs
  the compliance checker on every result file and computes the olympic mean;
* ours: `call_command("import_mlperf", tree, "--round", "v4.1", "--json")` into a freshly migrated SQLite
  database (config.settings.test; the migrated file is copied in before each timing).
The two alternate (bench.pairs), --rounds times; the ratio is the median of the paired ratios (goal <= 1.0x).
It prints each side's peak RSS, measured in a child process of its own (ru_maxrss), beside a child's that sets
both up and reads nothing, the largest result file, the load average before and after, and how many sets' scores
agree with the summarizer's (relative 1e-9; both None counts as agreeing; ours rejects sets the summarizer scores
anyway, e.g. a wrong number of runs: listed).

Usage: .venv/bin/python bench/mlperf_import.py [--sizes 200 2000] [--rounds 3] [--source /tmp/mlperf41]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import math
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.pairs import alternating_pairs  # noqa: E402

GOAL_RATIO = 1.0
ROUND, RULESET = "v4.1", "4.1.0"
HOUR_MS = 3_600_000
TIME_MS = re.compile(rb'("time_ms":\s*)(-?\d+)(\.\d+)?')


def sets_of(tree: Path) -> list[Path]:
    """Every <submitter>/results/<system>/<benchmark> folder holding result files, sorted."""
    return sorted({path.parent for path in tree.glob("*/results/*/*/result_*.txt")})


def copy_set(folder: Path, source: Path, target: Path, *, submitter: str, shift_hours: int) -> int:
    relative = folder.relative_to(source)
    original_submitter, _, system, _ = relative.parts
    destination = target / submitter / Path(*relative.parts[1:])
    destination.mkdir(parents=True, exist_ok=True)
    runs = 0
    for path in folder.iterdir():
        if path.name.startswith("result_") and path.suffix == ".txt":
            data = path.read_bytes()
            if shift_hours:
                offset = shift_hours * HOUR_MS
                data = TIME_MS.sub(
                    lambda m, offset=offset: m[1] + str(int(m[2]) + offset).encode() + (m[3] or b""), data
                )
            (destination / path.name).write_bytes(data)
            runs += 1
        elif path.name == "scaling.json":
            shutil.copyfile(path, destination / path.name)
    system_json = source / original_submitter / "systems" / f"{system}.json"
    if system_json.is_file():
        (target / submitter / "systems").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(system_json, target / submitter / "systems" / system_json.name)
    return runs


def sampled_tree(source: Path, target: Path, runs_wanted: int) -> int:
    """Sets of `source` in a seeded random order (again and again, shifted) until `runs_wanted` runs are copied."""
    folders = sets_of(source)
    runs, copy = 0, 0
    while runs < runs_wanted:
        order = folders[:]
        random.Random(copy).shuffle(order)
        for folder in order:
            submitter = folder.relative_to(source).parts[0] + (f"_copy{copy}" if copy else "")
            runs += copy_set(folder, source, target, submitter=submitter, shift_hours=1000 * copy)
            if runs >= runs_wanted:
                break
        copy += 1
    return runs


def generated_tree(target: Path, runs_wanted: int) -> int:
    from tests.dawnboard.mllog_runs import START_MS, run_log, write_set

    sets = math.ceil(runs_wanted / 5)
    for number in range(sets):
        logs = [
            run_log(
                duration_ms=1_234_567 + 7_919 * index + 104_729 * number,
                start_ms=START_MS + 10_000_000 * (5 * number + index),
                evaluations=((1, 0.2), (2, 0.345)),
                compliant_with=RULESET,
            )
            for index in range(5)
        ]
        write_set(target, logs, submitter=f"Org{number // 20}", system=f"sys{number}", benchmark="ssd")
    return sets * 5


# --- The two sides ---


def summarize(tree: Path) -> dict[str, float | None]:
    """MLCommons' score of each set (None when it gives none)."""
    from mlperf_logging.result_summarizer import result_summarizer

    scores = {}
    logging.disable(logging.CRITICAL)
    try:
        for folder in sets_of(tree):
            submitter, _, system, benchmark = folder.relative_to(tree).parts
            with contextlib.redirect_stdout(io.StringIO()):
                try:
                    score, _, _ = result_summarizer._compute_strong_score_standalone(
                        benchmark, system, False, str(folder), "training", RULESET, desc={"submitter": submitter}
                    )
                except Exception:
                    score = None
            scores[f"{submitter}/{system}/{benchmark}"] = score
    finally:
        logging.disable(logging.NOTSET)
    return scores


class Importer:
    """import_mlperf into a fresh copy of a migrated SQLite database each time."""

    def __init__(self, folder: Path) -> None:
        self.database, self.pristine = folder / "db.sqlite3", folder / "migrated.sqlite3"
        os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
        os.environ["DATABASE_URL"] = f"sqlite:///{self.database}"
        import django

        django.setup()
        from django.core.management import call_command

        self.call_command = call_command
        call_command("migrate", "--noinput", verbosity=0)
        self._close()
        shutil.copyfile(self.database, self.pristine)

    def _close(self) -> None:
        from django.db import connections

        connections.close_all()

    def __call__(self, tree: Path) -> dict:
        self._close()
        shutil.copyfile(self.pristine, self.database)
        out = io.StringIO()
        self.call_command("import_mlperf", str(tree), "--round", ROUND, "--json", stdout=out)
        return json.loads(out.getvalue())


def timed(function, *args) -> float:
    started = time.perf_counter()
    function(*args)
    return time.perf_counter() - started


def child(side: str, tree: Path, folder: Path) -> None:
    """Run one side once and print its peak RSS in MiB (in a process of its own)."""
    if side == "import":
        Importer(folder)(tree)
    elif side == "summarize":
        summarize(tree)
    else:  # "idle": both sides set up (Django, the migrated database, the summarizer's imports), nothing read
        Importer(folder)
        from mlperf_logging.result_summarizer import result_summarizer  # noqa: F401
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def peak_mib(side: str, tree: Path, folder: Path) -> float:
    result = subprocess.run(
        [sys.executable, __file__, "--child", side, str(tree), str(folder)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"},
    )
    if result.returncode != 0:
        raise SystemExit(f"the {side} child failed:\n{result.stderr[-3000:]}")
    return float(result.stdout.strip().splitlines()[-1])


def agreement(ours: dict, theirs: dict[str, float | None]) -> tuple[int, list[str]]:
    agree, differ = 0, []
    for imported in ours["sets"]:
        key = f"{imported['submitter']}/{imported['system']}/{imported['benchmark']}"
        mine, official = imported["score_minutes"], theirs.get(key)
        if (mine is None and official is None) or (
            mine is not None and official is not None and math.isclose(mine, official, rel_tol=1e-9)
        ):
            agree += 1
        else:
            codes = ",".join(sorted({error["code"] for error in imported["errors"]})) or "-"
            differ.append(f"{key}: ours {mine} ({codes}), summarizer {official}")
    return agree, differ


def bench_size(runs_wanted: int, source: Path | None, importer: Importer, rounds: int, work: Path) -> bool:
    tree = work / f"tree_{runs_wanted}"
    if source is not None:
        runs = sampled_tree(source, tree, runs_wanted)
        origin = f"sampled from {source}"
    else:
        runs = generated_tree(tree, runs_wanted)
        origin = "generated with tests/dawnboard/mllog_runs.py (no source tree)"
    files = list(tree.glob("*/results/*/*/result_*.txt"))
    largest = max(files, key=lambda path: path.stat().st_size)
    print(f"\n== {runs} runs in {len(sets_of(tree))} sets, {origin}")
    print(f"   largest result file {largest.stat().st_size / 1e6:.2f} MB ({largest.relative_to(tree)})")

    ours, theirs = importer(tree), summarize(tree)  # untimed: warms caches, gives the scores
    agree, differ = agreement(ours, theirs)
    load_before = os.getloadavg()
    pairs = alternating_pairs(lambda: timed(importer, tree), lambda: timed(summarize, tree), rounds=rounds)
    load_after = os.getloadavg()
    ratio = statistics.median(mine / official for mine, official in pairs)
    print(
        f"   load average before {' '.join(f'{v:.2f}' for v in load_before)}, "
        f"after {' '.join(f'{v:.2f}' for v in load_after)} ({os.cpu_count()} CPUs)"
    )
    print(f"   baseline  summarizer+checker   {statistics.median(p[1] for p in pairs):8.2f} s (median of {rounds})")
    print(f"   ours      import_mlperf        {statistics.median(p[0] for p in pairs):8.2f} s (median of {rounds})")
    print(
        f"   ratio     ours / baseline      {ratio:8.3f}x (goal <= {GOAL_RATIO}x): "
        f"{'met' if ratio <= GOAL_RATIO else 'MISSED'}"
    )
    print(
        f"   peak RSS  import {peak_mib('import', tree, work / 'child'):.0f} MiB, "
        f"summarizer {peak_mib('summarize', tree, work / 'child'):.0f} MiB (each in a child process; one that sets "
        f"both up and reads nothing: {peak_mib('idle', tree, work / 'child'):.0f} MiB)"
    )
    accepted = sum(s["status"] == "accepted" for s in ours["sets"])
    print(
        f"   scores    {agree} of {len(ours['sets'])} sets agree with the summarizer (rel 1e-9); "
        f"{accepted} accepted by ours"
    )
    for line in differ[:10]:
        print(f"     differs: {line}")
    if len(differ) > 10:
        print(f"     ... and {len(differ) - 10} more")
    return ratio <= GOAL_RATIO


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        folder = Path(sys.argv[4])
        folder.mkdir(parents=True, exist_ok=True)
        child(sys.argv[2], Path(sys.argv[3]), folder)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 2000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--source", type=Path, default=Path("/tmp/mlperf41"))
    arguments = parser.parse_args()
    source = arguments.source if sets_of(arguments.source) else None
    if source is None:
        print(f"{arguments.source} holds no results tree: generating sets instead")
    with tempfile.TemporaryDirectory(prefix="mlperf-import-bench-") as temporary:
        work = Path(temporary)
        importer = Importer(work)
        for size in arguments.sizes:
            bench_size(size, source, importer, arguments.rounds, work)


if __name__ == "__main__":
    main()
