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
from pathlib import Path

import pytest

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


def what_readers_see(database_url: str) -> dict:
    """Every board of the task as the leaderboard command prints it, the entries list as JSON."""
    boards = {
        metric: json.loads(manage(database_url, "leaderboard", "cifar10", metric, "--json").stdout)
        for metric in ("training-time", "training-cost")
    }
    return boards


def site_filled_and_backed_up(database_url: str, backup: Path) -> dict:
    manage(database_url, "migrate", "--noinput", "-v0")
    manage(database_url, "shell", "-c", FILL)
    return json.loads(manage(database_url, "backup_site", str(backup), "--json").stdout)


def test_a_sqlite_backup_restored_into_a_new_file_shows_the_same_boards_entries_and_files(tmp_path):
    original, restored = f"sqlite:///{tmp_path / 'site.sqlite3'}", f"sqlite:///{tmp_path / 'new.sqlite3'}"
    backup = tmp_path / "backups" / "site.sqlite3"
    before = site_filled_and_backed_up(original, backup)

    after = json.loads(manage(restored, "restore_site", str(backup), "--json").stdout)

    assert before["rows"]["leaderboard.Entry"] == 3 and before["files"] == 6 and before["files_bytes"] > 0
    assert after == before
    assert what_readers_see(restored) == what_readers_see(original)
    again = manage(restored, "restore_site", str(backup), check=False)
    assert (
        again.returncode != 0
        and "is not empty" in again.stderr
        and "a restore goes into an empty database" in (again.stderr)
    )
    over = manage(original, "backup_site", str(backup), check=False)
    assert over.returncode != 0 and "exists: name a new file" in over.stderr


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
