import os
import sqlite3
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from tests.factories import SubmitterFactory

SAMPLE_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "dawnbench-sample"

if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
    # Each of several pytest-xdist workers has about one core of its own: torch runs one thread in it and in the
    # commands its tests start (torch reads this when it is first imported, after this file), since two OpenMP
    # threads per worker, each spinning while it waits for the other, slow every worker down on few cores.
    os.environ.setdefault("OMP_NUM_THREADS", "1")


class MigratedDatabase:
    """The test database as the migrations left it (tasks, prices), put back after every transactional test.

    pytest-django empties the database after a transactional test, and runs such tests after the others so that
    nothing later needs the migrations' rows; but pytest-xdist runs each module where and when a worker is free,
    so a module of ordinary tests can follow a transactional one on the same worker. Putting the rows back after
    each transactional test makes the order not matter. On SQLite it is a copy of the whole database taken when it
    was created (SQLite's backup API: milliseconds), which the browser tests also start from; elsewhere the
    contents pytest-django serialized (it does so when a test asks for `serialized_rollback`).
    """

    def __init__(self, connection, blocker):
        self.connection, self.blocker = connection, blocker
        self.copy: sqlite3.Connection | None = None
        if connection.vendor == "sqlite":
            with blocker.unblock():
                connection.ensure_connection()
                self.copy = sqlite3.connect(":memory:", check_same_thread=False)
                connection.connection.backup(self.copy)

    def restore(self) -> None:
        with self.blocker.unblock():
            if self.copy is not None:
                self.connection.ensure_connection()
                self.copy.backup(self.connection.connection)
            elif serialized := getattr(self.connection, "_test_serialized_contents", None):
                call_command("flush", interactive=False, inhibit_post_migrate=True, reset_sequences=False, verbosity=0)
                self.connection.creation.deserialize_db_from_string(serialized)

    def close(self) -> None:
        if self.copy is not None:
            self.copy.close()


MIGRATED: list[MigratedDatabase] = []  # the session's, once pytest-django has created the test database


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """The test database, created and migrated by pytest-django, and a way back to that state (`MIGRATED`)."""
    from django.db import connection

    MIGRATED.append(MigratedDatabase(connection, django_db_blocker))
    yield
    while MIGRATED:
        MIGRATED.pop().close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """After a transactional test's teardown (which emptied the database), the migrations' rows are put back."""
    result = yield
    marker = item.get_closest_marker("django_db")
    transactional = (marker is not None and marker.kwargs.get("transaction")) or bool(
        {"transactional_db", "live_server"} & set(item.fixturenames)
    )
    if transactional and MIGRATED:
        MIGRATED[0].restore()
    return result


@pytest.fixture(scope="module")
def imported_sample(django_db_setup, django_db_blocker) -> Path:
    """The real DAWNBench sample imported once for a whole module, through the command, and committed: each test
    (in its own transaction) starts from it and its changes roll back. The database as migrated is put back after
    the module, on SQLite only (elsewhere the sample would stay: such a module skips)."""
    if not (SAMPLE_DIR / "CIFAR10").is_dir():
        pytest.skip(f"the DAWNBench sample is not at {SAMPLE_DIR}")
    if not MIGRATED or MIGRATED[0].copy is None:
        pytest.skip("a module's shared import is undone from SQLite's copy of the migrated database")
    with django_db_blocker.unblock():
        call_command("import_dawnbench", str(SAMPLE_DIR), stdout=StringIO())
    yield SAMPLE_DIR
    MIGRATED[0].restore()


@pytest.fixture
def sample_dir() -> Path:
    if not (SAMPLE_DIR / "CIFAR10").is_dir():
        pytest.skip(f"the DAWNBench sample is not at {SAMPLE_DIR}")
    return SAMPLE_DIR


@pytest.fixture
def submitter(db):
    return SubmitterFactory()


@pytest.fixture
def api_client(submitter) -> APIClient:
    """An API client authenticated with a real submitter token."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {submitter.token}")
    return client


@pytest.fixture
def anonymous_client() -> APIClient:
    return APIClient()
