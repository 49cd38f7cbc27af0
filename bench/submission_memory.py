"""Peak memory of one training submission through the API, next to pandas reading the same log.

Writes a valid 1,000,000-row cifar10 log (as `bench/ingest.py` does), then measures with tracemalloc,
in the same run:

* baseline: `pandas.read_csv(path, sep="\\t")` of the log;
* ours: `POST /api/v1/submissions/` with the entry and the log, through Django's test client, against
  an in-memory SQLite database: the upload, the stored copy, the validation, the entry and its curve.

It prints both peaks and their ratio; the goal is that a submission costs at most 8x the memory
pandas needs to read the same file (bounded by the file size, not by Python objects per row).
tracemalloc sees Python and numpy allocations, not SQLite's own.

Usage: .venv/bin/python bench/submission_memory.py [--rows N] [--check]
"""

from __future__ import annotations

import argparse
import os
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

from dawnboard.formats.dawnbench import write_entry  # noqa: E402
from dawnboard.rules import Track  # noqa: E402
from leaderboard.models import Entry  # noqa: E402
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
    parser.add_argument("--check", action="store_true", help="exit 1 when the goal is missed")
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

        def submit():
            upload = {
                "task": CIFAR10.task_slug,
                "track": Track.TRAIN.value,
                "entry": SimpleUploadedFile("entry.json", write_entry(ENTRY)),
                "log": SimpleUploadedFile("log.tsv", log_bytes),
            }
            responses.append(client.post("/api/v1/submissions/", upload, format="multipart"))

        baseline = peak_bytes(lambda: pd.read_csv(path, sep="\t"))
        ours = peak_bytes(submit)

    response = responses[0]
    if response.status_code != 201:
        print(f"The submission was not accepted: {response.status_code} {response.json()}")
        return 1
    entry = Entry.objects.get(id=response.json()["entry_url"].rstrip("/").rsplit("/", 1)[1])
    ratio = ours / baseline
    passed = ratio <= GOAL_RATIO
    print(f"Dawnboard submission memory: {arguments.rows:,} rows, {size / 2**20:.1f} MiB TSV")
    print(f"  baseline  pandas.read_csv peak              {baseline / 2**20:8.1f} MiB")
    print(f"  ours      POST /api/v1/submissions/ peak    {ours / 2**20:8.1f} MiB = {ours / size:.2f}x the file size")
    verdict = "PASS" if passed else "FAIL"
    print(f"  ratio     ours / baseline                   {ratio:8.2f}x  (goal <= {GOAL_RATIO:.0f}x)  {verdict}")
    print(f"  stored    entry {entry.id}: {entry.log_row_count:,} rows, {entry.curve.count():,} curve points")
    return 1 if arguments.check and not passed else 0


if __name__ == "__main__":
    sys.exit(main())
