"""`manage.py` commands that neither train nor measure start without torch or onnxruntime, and quietly.

A command that runs the system checks imports the URLconf and so every view: an import of the training or
measuring stack anywhere on that path costs each command seconds (issue 21). `leaderboard`, a read, skips the
checks and loads no pandas either. Each case runs a command in a fresh process with the project's settings
(`config.settings.local`, as manage.py), on a file copy of the migrated test database, and reads which of
those packages the process had loaded when the command finished.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

# pytest-django creates the test database only for a session with tests that ask for it; these copy it.
pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[1]
TRAINING_AND_MEASURING = ("torch", "onnxruntime", "onnx")
HEAVY = (*TRAINING_AND_MEASURING, "pandas")
# manage.py's own entry point, then the heavy packages the process holds, as the last line of stdout.
RUN_AND_LIST = (
    "import json, os, sys\n"
    "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings.local')\n"
    "from django.core.management import execute_from_command_line\n"
    "execute_from_command_line(['manage.py', *sys.argv[1:]])\n"
    f"print(json.dumps(sorted(name for name in {HEAVY!r} if name in sys.modules)))\n"
)


def _manage(*args: str, database: Path) -> subprocess.CompletedProcess:
    environment = {
        key: value for key, value in os.environ.items() if key not in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL")
    }
    result = subprocess.run(
        [sys.executable, "-c", RUN_AND_LIST, *args],
        env={**environment, "PYTHONPATH": str(ROOT), "DATABASE_URL": f"sqlite:///{database}"},
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result


def _loaded(result: subprocess.CompletedProcess) -> list[str]:
    return json.loads(result.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def database(django_db_setup, django_db_blocker, tmp_path_factory) -> Path:
    """A file copy of the suite's own test database: migrated, so the tasks (digits among them) are seeded."""
    path = tmp_path_factory.mktemp("cli") / "db.sqlite3"
    with django_db_blocker.unblock():
        connection.ensure_connection()
        if connection.vendor != "sqlite":
            pytest.skip("copies the SQLite test database into a file for the command's process")
        copy = sqlite3.connect(path)
        connection.connection.backup(copy)
        copy.close()
    return path


@pytest.fixture(scope="module")
def check(database) -> subprocess.CompletedProcess:
    return _manage("check", database=database)


@pytest.fixture(scope="module")
def board(database) -> subprocess.CompletedProcess:
    return _manage("leaderboard", "digits", "training-time", "--json", database=database)


def test_check_loads_neither_torch_nor_onnxruntime(check):
    assert "System check identified no issues" in check.stdout
    assert set(_loaded(check)).isdisjoint(TRAINING_AND_MEASURING)


def test_a_board_as_json_loads_neither_torch_nor_onnxruntime_nor_pandas(board):
    """It reads the board and skips the checks (which import every view, the charts with pandas among them)."""
    document = json.loads("\n".join(board.stdout.splitlines()[:-1]))
    assert (document["task"], document["metric"], document["results"]) == ("digits", "training-time", [])
    assert _loaded(board) == []


def test_no_command_prints_the_axes_banner(check, board):
    assert "AXES" not in check.stderr
    assert board.stderr == ""
