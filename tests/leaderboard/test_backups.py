"""Backups (`manage.py backup_site` / `restore_site`, leaderboard/services/backups.py): a backup restored into an
empty database gives the same boards, entries and files (each file's sha256 taken afresh from the restored
bytes); a restore never goes into a database that holds anything."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import uuid
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.factories import submit_training_entry

ROOT = Path(__file__).resolve().parents[2]
POSTGRES = ("127.0.0.1", 5432)
FILL = (
    "from pathlib import Path; import tempfile; from tests.factories import submit_training_entry; "
    "[submit_training_entry(Path(tempfile.mkdtemp()), model=f'backup-model-{n}', hardware='1 V100') for n in range(3)]"
)


def manage(database_url: str, *arguments: str, check: bool = True) -> subprocess.CompletedProcess:
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "DATABASE_URL": database_url,
        "PYTHONPATH": str(ROOT),
    }
    environment.pop("CELERY_BROKER_URL", None)
    return subprocess.run(
        [sys.executable, "manage.py", *arguments],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        check=check,
        timeout=300,
    )


BOARDS = ("training-time", "training-cost")


def what_readers_see(database_url: str) -> dict:
    """The task's training boards as the leaderboard command prints them."""
    return {
        metric: json.loads(manage(database_url, "leaderboard", "cifar10", metric, "--json").stdout) for metric in BOARDS
    }


def what_readers_see_here() -> dict:
    """`what_readers_see` of the test's own database, read in this process."""
    boards = {}
    for metric in BOARDS:
        out = StringIO()
        call_command("leaderboard", "cifar10", metric, "--json", stdout=out)
        boards[metric] = json.loads(out.getvalue())
    return boards


def site_filled_and_backed_up(database_url: str, backup: Path) -> dict:
    manage(database_url, "migrate", "--noinput", "-v0")
    manage(database_url, "shell", "-c", FILL)
    return json.loads(manage(database_url, "backup_site", str(backup), "--json").stdout)


@pytest.mark.django_db(transaction=True)
def test_a_sqlite_backup_restored_into_a_new_file_shows_the_same_boards_entries_and_files(tmp_path):
    for n in range(3):
        submit_training_entry(tmp_path, model=f"backup-model-{n}", hardware="1 V100")
    backup = tmp_path / "backups" / "site.sqlite3"
    out = StringIO()
    call_command("backup_site", str(backup), "--json", stdout=out)
    before = json.loads(out.getvalue())
    boards = what_readers_see_here()
    restored = f"sqlite:///{tmp_path / 'new.sqlite3'}"

    after = json.loads(manage(restored, "restore_site", str(backup), "--json").stdout)

    assert before["rows"]["leaderboard.Entry"] == 3 and before["files"] == 6 and before["files_bytes"] > 0
    assert after == before
    assert what_readers_see(restored) == boards


@pytest.mark.django_db
def test_a_restore_goes_into_an_empty_database_only_and_a_backup_never_over_a_file(tmp_path):
    backup = tmp_path / "site.sqlite3"
    backup.write_bytes(b"an earlier backup")

    with pytest.raises(CommandError, match=r"is not empty .* a restore goes into an empty database only"):
        call_command("restore_site", str(backup))
    with pytest.raises(CommandError, match="exists: name a new file"):
        call_command("backup_site", str(backup))
    assert backup.read_bytes() == b"an earlier backup"
    assert list(tmp_path.iterdir()) == [backup]  # no partial file left beside it


@pytest.mark.services
def test_a_pg_dump_restored_into_an_empty_postgresql_database_shows_the_same_site(tmp_path):
    try:
        socket.create_connection(POSTGRES, timeout=1).close()
    except OSError:
        pytest.skip(f"PostgreSQL is not running on {POSTGRES[0]}:{POSTGRES[1]}; this test needs the real service")
    import psycopg

    names = [f"dawnboard_backup_{uuid.uuid4().hex[:8]}" for _ in range(2)]
    with psycopg.connect(host=POSTGRES[0], port=POSTGRES[1], user="postgres", autocommit=True) as admin:
        for name in names:
            admin.execute(f'CREATE DATABASE "{name}"')
        try:
            original, restored = (f"postgres://postgres@{POSTGRES[0]}:{POSTGRES[1]}/{name}" for name in names)
            backup = tmp_path / "site.dump"
            before = site_filled_and_backed_up(original, backup)

            after = json.loads(manage(restored, "restore_site", str(backup), "--json").stdout)

            assert before["rows"]["leaderboard.Entry"] == 3 and before["files"] == 6
            assert after == before
            assert what_readers_see(restored) == what_readers_see(original)
            assert backup.read_bytes()[:5] == b"PGDMP"  # pg_dump's custom format
        finally:
            for name in names:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
