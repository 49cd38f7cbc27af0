"""How fast the training-log ingest is next to a bare pandas read of the same TSV.

Writes a valid cifar10 training log of N rows (epoch, hours, top1Accuracy, crossing 94 % near the end) to
a temporary folder, then times, in the same run:

* baseline: `pandas.read_csv(path, sep="\\t")`, the least any reader of the file can do;
* ours: reading the file's bytes and `validate_dawnbench_files(...)`, which checks every row and recomputes
  the DAWNBench results and the curve.

The two run in alternating pairs, at least `--rounds` of them, until the 95 % interval of the median of the
paired ratios lies within +-2 % (`bench.goals`, or a cap: `--max-seconds`, `--max-pairs`): a shared machine's
drifting load disturbs the median of pairs least. The goal is ours <= 2.0x baseline. It also reports the peak
memory that tracemalloc sees during one validation (Python and numpy allocations), as a multiple of the
file size.

Usage: .venv/bin/python bench/ingest.py [--rows N] [--rounds 7] [--max-seconds 120] [--check]
(exit status 0 unless --check is given and the goal is not judged met). No Django needed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # import `dawnboard` from the repo root

from bench.goals import PASS, Goal, add_rule_arguments, judge_ratio, report, rule_from
from dawnboard.formats.dawnbench import write_entry
from dawnboard.ingest import validate_dawnbench_files
from dawnboard.rules import Track, current_rules, rules_catalog

GOAL_RATIO = 2.0
REPEATS = 7
CIFAR10 = current_rules("cifar10")
CATALOG = rules_catalog()
ENTRY = {
    "version": "v1.0",
    "author": "Dawnboard bench",
    "authorEmail": "bench@example.org",
    "framework": "PyTorch 2",
    "model": "ResNet-9",
    "hardware": "1 x V100",
    "costPerHour": 3.06,
    "timestamp": "2024-01-01",
}


def write_log(path: Path, rows: int) -> int:
    """Write a log whose accuracy climbs to 94 % at 95 % of the rows; return the crossing row."""
    rng = np.random.default_rng(0)
    index = np.arange(rows)
    crossing = int(rows * 0.95)
    hours = np.round((index + 1) * (3.0 / rows), 10)
    accuracy = np.round(np.minimum(93.9, 10 + 83.9 * index / max(crossing, 1)) - rng.uniform(0, 0.5, rows), 2)
    accuracy[crossing:] = np.round(rng.uniform(94.0, 95.5, rows - crossing), 2)
    accuracy[crossing] = 94.0
    frame = pd.DataFrame({"epoch": index // 10, "hours": hours, CIFAR10.log_column: accuracy})
    frame.to_csv(path, sep="\t", index=False, lineterminator="\n")
    return crossing


def seconds(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def validate(log_bytes: bytes):
    return validate_dawnbench_files(
        task_slug=CIFAR10.task_slug,
        track=Track.TRAIN,
        entry_bytes=write_entry(ENTRY),
        logs=[log_bytes],
        catalog=CATALOG,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows in the generated log (default 1,000,000)")
    parser.add_argument("--rounds", type=int, default=REPEATS, help=f"the fewest pairs (default {REPEATS})")
    parser.add_argument("--check", action="store_true", help="exit 1 unless the goal is judged met")
    add_rule_arguments(parser)
    arguments = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="dawnboard-bench-") as folder:
        path = Path(folder) / "cifar10_train.tsv"
        crossing = write_log(path, arguments.rows)
        size = path.stat().st_size

        result = validate(path.read_bytes())  # warm-up, and proof the log is valid
        if not result.accepted:
            print(f"The generated log was rejected: {[issue.as_dict() for issue in result.errors]}")
            return 1
        if result.results.time_to_accuracy_line != crossing + 2:
            print(f"Wrong crossing: line {result.results.time_to_accuracy_line}, expected {crossing + 2}.")
            return 1

        pairs: list[tuple[float, float]] = []
        verdict = judge_ratio(
            Goal(bench="ingest", name=f"validate / read_csv, {arguments.rows:,} rows", target=GOAL_RATIO, at_most=True),
            lambda: seconds(lambda: pd.read_csv(path, sep="\t")),
            lambda: seconds(lambda: validate(path.read_bytes())),
            rule_from(arguments, min_pairs=arguments.rounds),
            pairs=pairs,
        )
        baseline = statistics.median(base for base, _ in pairs)
        ours = statistics.median(our for _, our in pairs)

        log_bytes = path.read_bytes()
        tracemalloc.start()
        validate(log_bytes)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()

    line = result.results.time_to_accuracy_line
    print(
        f"Dawnboard ingest bench: {arguments.rows:,} rows, {size / 2**20:.1f} MiB TSV, {len(pairs)} alternating pairs"
    )
    print(f"  baseline  pandas.read_csv(sep='\\t')          {baseline:8.3f} s (median)")
    print(f"  ours      read bytes + validate (dawnboard)  {ours:8.3f} s (median)")
    print(
        f"  ratio     ours / baseline, median of pairs   {verdict.median:8.2f}x  (goal <= {GOAL_RATIO:.1f}x)  "
        f"{verdict.verdict}"
    )
    print(f"  memory    validation peak                    {peak / 2**20:8.1f} MiB = {peak / size:.2f}x the file size")
    run = result.runs[0]  # the one log's run (several runs an entry since issue 23)
    print(f"  checked   {run.log_row_count:,} rows, crossing on line {line:,}, {len(run.curve):,} curve points")
    report([verdict])
    return 1 if arguments.check and verdict.verdict != PASS else 0


if __name__ == "__main__":
    sys.exit(main())
