"""Test data built in code: DAWNBench entry documents and TSV logs, and submitters."""

from __future__ import annotations

import itertools
import json
from io import StringIO
from pathlib import Path

import factory
from django.core.management import call_command

from leaderboard.models import Entry, Submitter
from leaderboard.services import submitter_create


def entry_document(**overrides) -> dict:
    """A valid DAWNBench v1.0 training entry; pass field=None... via `drop=` to remove fields."""
    document = {
        "version": "v1.0",
        "author": "Test Team",
        "authorEmail": "team@example.org",
        "framework": "PyTorch 2.13",
        "model": "ResNet 9",
        "hardware": "1 V100 (AWS p3.2xlarge)",
        "costPerHour": 3.06,
        "timestamp": "2019-05-07",
    }
    document.update(overrides)
    return document


def inference_document(**overrides) -> dict:
    document = entry_document(latency=2.5, cost=1.5e-6, top1Accuracy=94.3)
    document.pop("costPerHour")
    document.update(overrides)
    return document


def entry_bytes(**overrides) -> bytes:
    return json.dumps(entry_document(**overrides)).encode()


def submit_training_entry(directory: Path, **fields) -> Entry:
    """Submit a cifar10 training entry (`entry_document(**fields)` and the default log) with `manage.py submit`."""
    entry_path, log_path = directory / "entry.json", directory / "log.tsv"
    entry_path.write_bytes(entry_bytes(**fields))
    log_path.write_bytes(training_log())
    out = StringIO()
    call_command(
        "submit", "--task", "cifar10", "--track", "train", str(entry_path), str(log_path), "--json", stdout=out
    )
    return Entry.objects.get(id=json.loads(out.getvalue())["entry_id"])


_default_runs = itertools.count()


def training_log(rows=None, *, header="epoch\thours\ttop1Accuracy", newline="\n") -> bytes:
    """A TSV log; the default crosses 94.0 at epoch 2, hour 0.03.

    Each default log is a run of its own (its first quality differs in the fourth decimal), as each entry on a
    real board is: a log already on the board is refused under another entry, or replaces its submitter's own.
    Pass the same bytes twice to send one run twice.
    """
    first_quality = round(80.0 + next(_default_runs) % 10_000 / 10_000, 4)
    rows = rows if rows is not None else [(0, 0.01, first_quality), (1, 0.02, 90.5), (2, 0.03, 94.1), (3, 0.04, 94.5)]
    lines = [header] + ["\t".join(str(cell) for cell in row) for row in rows]
    return (newline.join(lines) + newline).encode()


class SubmitterFactory(factory.Factory):
    """Creates a submitter through the service (so it has a real API token); `.token` holds the token, of which
    the database keeps only a hash."""

    class Meta:
        model = Submitter

    name = factory.Sequence(lambda n: f"team-{n}")
    email = factory.LazyAttribute(lambda o: f"{o.name}@example.org")

    @classmethod
    def _create(cls, model_class, name: str, email: str):
        submitter, token = submitter_create(name=name, email=email)
        submitter.token = token
        return submitter
