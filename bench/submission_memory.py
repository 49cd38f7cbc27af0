"""Peak memory of one training submission through the API, next to pandas reading the same log.

Writes a valid 1,000,000-row cifar10 log (as `bench/ingest.py` does), then measures with tracemalloc,
in the same run:

* baseline: `pandas.read_csv(path, sep="\\t")` of the log;
* ours: `POST /api/v1/submissions/` with the entry and the log, through Django's test client, against
  an in-memory SQLite database: the upload, the stored copy, the validation, the entry and its curve.

The two alternate in pairs (the entry is deleted after each submission, so that every one is stored afresh, not
refused as a duplicate), at least `--rounds`, under the rule of `bench.goals` (until the 95 % interval of the median
ratio lies within +-2 %, or `--max-seconds`; tracemalloc's peaks barely vary, so the fewest pairs usually do).
It prints both peaks and their ratio; the goal is that a submission costs at most 8x the memory
pandas needs to read the same file (bounded by the file size, not by Python objects per row).
tracemalloc sees Python and numpy allocations, not SQLite's own.

Usage: .venv/bin/python bench/submission_memory.py [--rows N] [--rounds 6] [--max-seconds 120] [--check]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

import django  # noqa: E402

django.setup()

import pandas as pd  # noqa: E402
from django.core.files.uploadedfile import SimpleUploadedFile  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402
from ingest import CIFAR10, ENTRY, write_log  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from bench.goals import FEWEST_FOR_AN_INTERVAL, PASS, Goal, add_rule_arguments, judge_ratio, report, rule_from  # noqa: E402
from dawnboard.formats.dawnbench import write_entry  # noqa: E402
from dawnboard.rules import Track  # noqa: E402
from leaderboard.models import Entry, Submission  # noqa: E402
from leaderboard.services import submitter_create  # noqa: E402

GOAL_RATIO = 8.0


def peak_bytes(function) -> int:
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=FEWEST_FOR_AN_INTERVAL, help="the fewest pairs (default 6)")
    parser.add_argument("--check", action="store_true", help="exit 1 unless the goal is judged met")
    add_rule_arguments(parser)
    arguments = parser.parse_args()

    setup_test_environment()
    connection.creation.create_test_db(verbosity=0)
    _, token = submitter_create(name="bench", email="bench@example.org")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")

    with tempfile.TemporaryDirectory(prefix="dawnboard-bench-") as folder:
        path = Path(folder) / "cifar10_train.tsv"
        write_log(path, arguments.rows)
        size = path.stat().st_size
        log_bytes = path.read_bytes()
        responses = []

        def submit() -> int:
            # Untimed: the last pair's submission and entry, so that this one is stored afresh, not refused.
            Entry.objects.all().delete()
            Submission.objects.all().delete()
            upload = {
                "task": CIFAR10.task_slug,
                "track": Track.TRAIN.value,
                "entry": SimpleUploadedFile("entry.json", write_entry(ENTRY)),
                "log": SimpleUploadedFile("log.tsv", log_bytes),
            }
            peak = peak_bytes(lambda: responses.append(client.post("/api/v1/submissions/", upload, format="multipart")))
            if responses[-1].status_code != 201:
                raise SystemExit(f"The submission was not accepted: {responses[-1].status_code} {responses[-1].json()}")
            return peak

        pairs: list[tuple[float, float]] = []
        verdict = judge_ratio(
            Goal(bench="submission_memory", name="POST peak / read_csv peak", target=GOAL_RATIO, at_most=True),
            lambda: peak_bytes(lambda: pd.read_csv(path, sep="\t")),
            submit,
            rule_from(arguments, min_pairs=arguments.rounds),
            pairs=pairs,
        )

    baseline, ours = statistics.median(base for base, _ in pairs), statistics.median(our for _, our in pairs)
    response = responses[-1]
    entry = Entry.objects.get(id=response.json()["entry_url"].rstrip("/").rsplit("/", 1)[1])
    ratio = verdict.median
    print(f"Dawnboard submission memory: {arguments.rows:,} rows, {size / 2**20:.1f} MiB TSV")
    print(f"  baseline  pandas.read_csv peak              {baseline / 2**20:8.1f} MiB")
    print(f"  ours      POST /api/v1/submissions/ peak    {ours / 2**20:8.1f} MiB = {ours / size:.2f}x the file size")
    print(
        f"  ratio     ours / baseline, median of {len(pairs)} pairs {ratio:6.2f}x  (goal <= {GOAL_RATIO:.0f}x)  "
        f"{verdict.verdict}"
    )
    run = entry.runs.get()  # the one log's run (several runs an entry since issue 23)
    print(f"  stored    entry {entry.id}: {run.log_row_count:,} rows, {run.curve.count():,} curve points")
    report([verdict])
    return 1 if arguments.check and verdict.verdict != PASS else 0


if __name__ == "__main__":
    sys.exit(main())
