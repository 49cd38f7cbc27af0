"""Backups of the whole site, and their restore into an empty database.

The database is the site: every submitted file is stored in it (`SubmittedFile.content`), beside the entries,
runs, prices and tokens' digests. A backup is the database as its own tools write it: PostgreSQL's `pg_dump`
custom format (compressed; `pg_restore` reads it), or SQLite's online backup API. Nothing on disk outside the
database is needed to serve the boards again (REFERENCE_RUNS_DIR keeps reference runs' working files, which their
submissions already hold).

A restore goes only into an empty database (no table), in one transaction, so it never mixes two sites or leaves
half a site; a backup of older code is then migrated to this code's schema. Both commands print
the site's summary (`site_summary`): the same figures before the backup and after the restore say the files and
entries came back whole.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path

from django.apps import apps
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from leaderboard.models import Entry, SubmittedFile


class BackupError(Exception):
    """The backup or restore could not be made; the message says why and what to do."""


@dataclass(frozen=True)
class SiteSummary:
    rows: dict[str, int]  # every model's row count, by "app.Model"
    entries_sha256: str  # over every column of every entry, in id order
    files: int
    files_bytes: int
    files_sha256: str  # over every submitted file's id and the sha256 of its content as stored, in id order

    def described(self, done: str) -> str:
        return (
            f"{done}: {sum(self.rows.values())} rows, {self.rows.get(Entry._meta.label, 0)} entries (sha256 "
            f"{self.entries_sha256[:16]}), {self.files} files of {self.files_bytes} bytes (sha256 "
            f"{self.files_sha256[:16]})"
        )

    def as_dict(self) -> dict:
        return {
            "rows": self.rows,
            "entries_sha256": self.entries_sha256,
            "files": self.files,
            "files_bytes": self.files_bytes,
            "files_sha256": self.files_sha256,
        }


def site_summary() -> SiteSummary:
    """What a restore must give back: every table's rows, the entries, and every file's bytes (hashed afresh)."""
    rows = {model._meta.label: model.objects.count() for model in apps.get_models() if model._meta.managed}
    entries = hashlib.sha256()
    columns = [field.attname for field in Entry._meta.concrete_fields]
    for values in Entry.objects.order_by("id").values_list(*columns).iterator(chunk_size=1000):
        entries.update(json.dumps(values, default=str).encode() + b"\n")
    files, files_bytes = hashlib.sha256(), 0
    for file_id, content in SubmittedFile.objects.order_by("id").values_list("id", "content").iterator(chunk_size=200):
        data = bytes(content)
        files_bytes += len(data)
        files.update(f"{file_id}:{hashlib.sha256(data).hexdigest()}\n".encode())
    return SiteSummary(
        rows=rows,
        entries_sha256=entries.hexdigest(),
        files=rows.get(SubmittedFile._meta.label, 0),
        files_bytes=files_bytes,
        files_sha256=files.hexdigest(),
    )


def site_backup(*, path: Path) -> None:
    """Write the whole database to `path` (refused where something is there already), through a temporary file
    beside it: a backup that fails leaves nothing, and a file at `path` is always whole."""
    if path.exists():
        raise BackupError(f"{path} exists: name a new file, so no backup is ever written over.")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.unlink(missing_ok=True)
    try:
        if connection.vendor == "postgresql":
            _run(["pg_dump", "--format=custom", "--no-owner", "--no-privileges", f"--file={partial}"], "pg_dump")
        elif connection.vendor == "sqlite":
            connection.ensure_connection()
            with sqlite3.connect(partial) as target:
                connection.connection.backup(target)
        else:
            raise BackupError(f"No backup for a {connection.vendor} database: use its own tools.")
        partial.rename(path)
    finally:
        partial.unlink(missing_ok=True)


def site_restore(*, path: Path) -> bool:
    """Load a backup into this (empty) database, all or nothing, then migrate a backup of older code to this code's
    schema. Returns whether it was migrated."""
    if not path.is_file():
        raise BackupError(f"No backup at {path}.")
    tables = connection.introspection.table_names()
    if tables:
        raise BackupError(
            f"The database {connection.settings_dict['NAME']} is not empty ({len(tables)} tables): a restore goes into "
            "an empty database only. Create a new one and point DATABASE_URL at it."
        )
    if connection.vendor == "postgresql":
        _run(
            ["pg_restore", "--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction", str(path)],
            "pg_restore",
            database_flag="--dbname",
        )
    elif connection.vendor == "sqlite":
        name = str(connection.settings_dict["NAME"])
        if ":memory:" in name or "mode=memory" in name:
            raise BackupError("The database is in memory: restore into a SQLite file.")
        connection.close()
        with sqlite3.connect(path) as source, sqlite3.connect(name) as target:
            source.backup(target)
    else:
        raise BackupError(f"No restore for a {connection.vendor} database: use its own tools.")
    connection.close()  # the next query sees the restored schema
    executor = MigrationExecutor(connection)
    if not executor.migration_plan(executor.loader.graph.leaf_nodes()):
        return False
    call_command("migrate", "--noinput", verbosity=0)
    return True


def _run(command: list[str], tool: str, *, database_flag: str | None = None) -> None:
    """Run a PostgreSQL client tool against this site's database (its settings as libpq's environment)."""
    if shutil.which(tool) is None:
        raise BackupError(
            f"{tool} is not installed: install PostgreSQL's client tools (apt-get install postgresql-client)."
        )
    database = connection.settings_dict
    environment = {
        **os.environ,
        "PGHOST": str(database.get("HOST") or ""),
        "PGPORT": str(database.get("PORT") or ""),
        "PGUSER": str(database.get("USER") or ""),
        "PGPASSWORD": str(database.get("PASSWORD") or ""),
        "PGDATABASE": str(database["NAME"]),
    }
    if database_flag:
        command = [command[0], f"{database_flag}={database['NAME']}", *command[1:]]
    completed = subprocess.run(command, env=environment, capture_output=True, text=True)
    if completed.returncode != 0:
        raise BackupError(f"{tool} failed: {completed.stderr.strip()[-2000:]}")
