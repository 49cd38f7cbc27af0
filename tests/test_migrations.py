"""Migrations run from zero on an empty database, and carry existing data across the changes they make.

Each case runs in a subprocess against a database of its own (a SQLite file, and PostgreSQL where it runs
on 127.0.0.1:5432), so the suite's own test database is never migrated back and forth.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import uuid
from decimal import Decimal
from pathlib import Path

import pytest

from dawnboard.rules import TASKS
from pricing.domain.catalog import BUNDLED_CATALOG_DIR, parse_grid, parse_prices

ROOT = Path(__file__).resolve().parents[1]
POSTGRES = ("127.0.0.1", 5432)

AFTER_MIGRATING = """
import json
from leaderboard.models import TaskVersion
from pricing.models import GridRegion, PriceQuote
versions = {
    f"{version.task.slug} {version.version}": [version.version, str(version.threshold), version.log_column,
                        version.documented_log_columns, version.documented_fields]
    for version in TaskVersion.objects.select_related("task")
}
quote = PriceQuote.objects.get(instance__name="a2-ultragpu-1g", pricing_model="on-demand")
grid = sorted(str(region.grams_co2e_per_kwh) for region in GridRegion.objects.all())
print(json.dumps({"versions": versions, "a2_price": str(quote.usd_per_hour), "quotes": PriceQuote.objects.count(),
                  "grid": grid}))
"""

# A migration script's start, after its BEFORE (the migrations to go back to): `migrate(targets)` runs the
# migrations to those targets (None: the latest) and returns the models as they stand there; `apps` and `version`
# are those at BEFORE.
MIGRATE_TO_BEFORE = (
    "import datetime, json\n"
    "from django.db import connection\n"
    "from django.db.migrations.executor import MigrationExecutor\n"
    + """
def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets or executor.loader.graph.leaf_nodes())
    return executor.loader.project_state(targets or executor.loader.graph.leaf_nodes()).apps

apps = migrate(BEFORE)
version = apps.get_model("leaderboard", "TaskVersion").objects.get(task__slug="cifar10", version="v1.0")
"""
)

# Before the hardware match moved to the leaderboard: an entry matched by staff in pricing's old table, and one
# stored before any catalog existed, with no match. Then forward, back and forward again.
MATCH_ACROSS_THE_MOVE = (
    'BEFORE = [("leaderboard", "0003_board_generation"), ("pricing", "0002_bundled_catalog")]\n'
    + MIGRATE_TO_BEFORE
    + """
def entry(hardware):
    submission = apps.get_model("leaderboard", "Submission").objects.create(
        source="api", task_slug="cifar10", track="train")
    return apps.get_model("leaderboard", "Entry").objects.create(
        submission=submission, task=version.task, task_version=version, track="train", version="v1.0", author="a",
        author_email="a@b.c", framework="f", model="m", hardware=hardware, date=datetime.date(2018, 1, 1),
        claimed={}, accuracy=94.5, time_to_accuracy_seconds=100.0)

staff_set, unmatched = entry("8 x p3.2xlarge"), entry("AWS p3.16xlarge")
OldMatch = apps.get_model("pricing", "HardwareMatch")
OldMatch.objects.create(entry=staff_set, instance=apps.get_model("pricing", "InstanceType").objects.get(
    name="p3.2xlarge"), instance_count=8, reason="set by staff", set_by_staff=True)
OldMatch.objects.update(updated_at=datetime.datetime(2020, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc))

def matches(model):
    return {m.entry_id: [m.instance.name if m.instance else None, m.instance_count, m.reason, m.set_by_staff,
                         m.updated_at.isoformat() if m.entry_id == staff_set.id else None]
            for m in model.objects.order_by("entry_id")}

forward = matches(migrate(None).get_model("leaderboard", "HardwareMatch"))
back = matches(migrate(BEFORE).get_model("pricing", "HardwareMatch"))
migrate(None)
print(json.dumps({"forward": list(forward.values()), "back": list(back.values())}))
"""
)


def sqlite_database(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'migrations.sqlite3'}"


def postgres_database() -> str:
    try:
        socket.create_connection(POSTGRES, 1).close()
    except OSError:
        pytest.skip("PostgreSQL is not running on 127.0.0.1:5432")
    import psycopg

    name = f"dawnboard_migrations_{uuid.uuid4().hex[:8]}"
    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}")
    return f"postgres://postgres@127.0.0.1:5432/{name}"


def drop_postgres_database(url: str) -> None:
    import psycopg

    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {url.rsplit('/', 1)[1]} WITH (FORCE)")


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_database(request, tmp_path):
    if request.param == "sqlite":
        yield sqlite_database(tmp_path)
        return
    url = postgres_database()
    yield url
    drop_postgres_database(url)


def manage(database_url: str, *args: str) -> str:
    environment = {**os.environ, "DATABASE_URL": database_url, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    completed = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


def test_an_empty_database_migrates_from_zero_and_holds_the_rules_and_the_whole_catalog(empty_database):
    manage(empty_database, "migrate", "--noinput")

    state = json.loads(manage(empty_database, "shell", "-c", AFTER_MIGRATING).strip().splitlines()[-1])
    reloaded = manage(empty_database, "load_prices", "pricing/data/prices.csv")

    assert {
        key: [version, Decimal(threshold), *rest] for key, (version, threshold, *rest) in state["versions"].items()
    } == {  # every version of every task, MLPerf's rounds among them
        f"{task.slug} {rules.version}": [
            rules.version,
            rules.threshold,
            rules.log_column,
            list(rules.documented_log_columns),
            list(rules.documented_fields),
        ]
        for task in TASKS
        for rules in task.versions
    }
    assert Decimal(state["a2_price"]) == Decimal("5.06879789")  # every decimal the catalog gives
    assert state["quotes"] == len(parse_prices((BUNDLED_CATALOG_DIR / "prices.csv").read_text(encoding="utf-8")))
    grid = parse_grid((BUNDLED_CATALOG_DIR / "grid.csv").read_text(encoding="utf-8"))
    assert sorted(Decimal(value) for value in state["grid"]) == sorted(row.grams_co2e_per_kwh for row in grid)
    assert reloaded.startswith("Nothing changed"), reloaded  # reloading the bundled catalog changes nothing


def test_hardware_matches_move_to_the_leaderboard_and_back_and_unmatched_entries_are_matched(empty_database):
    output = manage(empty_database, "shell", "-c", MATCH_ACROSS_THE_MOVE)

    moved = json.loads(output.strip().splitlines()[-1])
    staff = ["p3.2xlarge", 8, "set by staff", True, "2020-01-02T03:04:05+00:00"]
    resolved = ["p3.16xlarge", 1, "names aws p3.16xlarge", False, None]
    assert moved["forward"] == [staff, resolved]
    assert moved["back"] == [staff, resolved]


# Before several runs per entry: a training entry with its log's fingerprints and a curve of two points, a withdrawn
# one, and an inference entry. Then forward (each training entry becomes an entry of one run), back and forward.
RUNS_ACROSS_THE_CHANGE = (
    'BEFORE = [("leaderboard", "0014_files_digest_as_published")]\n'
    + MIGRATE_TO_BEFORE
    + """
def entry(track, status, digest, **figures):
    submission = apps.get_model("leaderboard", "Submission").objects.create(
        source="api", task_slug="cifar10", track=track)
    if track == "train":
        apps.get_model("leaderboard", "SubmittedFile").objects.create(
            submission=submission, role="log", name=f"run-{digest}.tsv", sha256=digest * 64, size_bytes=2, content=b"x")
    return apps.get_model("leaderboard", "Entry").objects.create(
        submission=submission, task=version.task, task_version=version, track=track, version="v1.0", author="a",
        author_email="a@b.c", framework="f", model="m", hardware="h", date=datetime.date(2018, 1, 1), claimed={},
        status=status, **figures)

def trained(status, digest, seconds):
    made = entry("train", status, digest, accuracy=94.5, time_to_accuracy_seconds=seconds, time_to_accuracy_epoch=3,
                 time_to_accuracy_line=4, log_sha256=digest * 64, log_rows_sha256=digest.upper() * 64,
                 log_row_count=5)
    for position, (hours, metric) in enumerate([(0.01, 80.0), (seconds / 3600, 94.5)]):
        apps.get_model("leaderboard", "CurvePoint").objects.create(
            entry=made, position=position, line=position + 2, epoch=position, hours=hours, metric=metric)
    return made

accepted, withdrawn = trained("accepted", "a", 360.0), trained("withdrawn", "b", 720.0)
inference = entry("inference", "accepted", "c", accuracy=94.2, latency_ms=12.5)

def runs(apps):
    Run, Entry = apps.get_model("leaderboard", "Run"), apps.get_model("leaderboard", "Entry")
    return {
        "runs": [[r.entry_id, r.position, r.status, r.log_name, r.log_sha256[:2], r.log_rows_sha256[:2],
                  r.log_row_count, r.time_to_accuracy_seconds, r.time_to_accuracy_epoch, r.time_to_accuracy_line,
                  r.on_board, [[p.position, p.hours, p.metric] for p in r.curve.order_by("position")]]
                 for r in Run.objects.order_by("entry_id")],
        "spread": {e.id: [e.run_count, e.successful_run_count, e.time_min_seconds, e.time_max_seconds,
                          e.time_interval_low_seconds, e.time_interval_high_seconds]
                   for e in Entry.objects.order_by("id")},
    }

def entries_before(apps):
    return [[e.id, e.log_sha256[:2], e.log_rows_sha256[:2], e.log_row_count,
             [[p.position, p.metric] for p in apps.get_model("leaderboard", "CurvePoint").objects.filter(
                 entry_id=e.id).order_by("position")]]
            for e in apps.get_model("leaderboard", "Entry").objects.order_by("id")]

forward = runs(migrate(None))
back = entries_before(migrate(BEFORE))
again = runs(migrate(None))
print(json.dumps({"ids": [accepted.id, withdrawn.id, inference.id], "forward": forward, "back": back,
                  "again": again}))
"""
)


def test_each_training_entry_becomes_an_entry_of_one_run_and_back(empty_database):
    output = manage(empty_database, "shell", "-c", RUNS_ACROSS_THE_CHANGE)

    moved = json.loads(output.strip().splitlines()[-1])
    accepted, withdrawn, inference = moved["ids"]
    curve = lambda seconds: [[0, 0.01, 80.0], [1, seconds / 3600, 94.5]]  # noqa: E731
    assert moved["forward"]["runs"] == [
        [accepted, 0, "success", "run-a.tsv", "aa", "AA", 5, 360.0, 3.0, 4, True, curve(360.0)],
        [withdrawn, 0, "success", "run-b.tsv", "bb", "BB", 5, 720.0, 3.0, 4, False, curve(720.0)],
    ]
    assert moved["forward"]["spread"] == {
        str(accepted): [1, 1, 360.0, 360.0, 360.0, 360.0],
        str(withdrawn): [1, 1, 720.0, 720.0, 720.0, 720.0],
        str(inference): [0, 0, None, None, None, None],
    }
    assert moved["back"] == [
        [accepted, "aa", "AA", 5, [[0, 80.0], [1, 94.5]]],
        [withdrawn, "bb", "BB", 5, [[0, 80.0], [1, 94.5]]],
        [inference, "", "", 0, []],
    ]
    assert moved["again"] == moved["forward"]
