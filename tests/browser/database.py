"""The browser tests' database: the mark every browser test module carries, and the copies each test starts from.

Every browser test is transactional (the live server's thread must see its rows): pytest-django empties the
database after each one, and tests/conftest.py puts the migrations' rows back. Each test then starts from a copy
of the state its data fixtures build (`DatabaseCopies`), built once.
"""

from __future__ import annotations

import sqlite3

import pytest

DATABASE = pytest.mark.django_db(transaction=True)


class DatabaseCopies:
    """The browser tests' database put back from in-memory copies, not rebuilt for every test.

    Every browser test starts from the database as migrated, then its data fixtures add their entries in a fixed
    order (DATA_FIXTURES). Rebuilding that each time (the migrations' rows deserialized, the sample imported
    through the command) took 2 to 4 s a test; SQLite's backup API copies the whole database in milliseconds.
    The copy as migrated is taken when the test database is created (tests/conftest.py); the first test to
    reach a further state (the steps applied so far) copies it, with what its fixture returned, and every later
    test reaching the same state is given that copy.
    """

    def __init__(self, connection, migrated):
        self.connection = connection
        self.copies: dict[tuple[str, ...], tuple[sqlite3.Connection, object]] = {(): (migrated, None)}
        self.steps: tuple[str, ...] = ()

    def as_migrated(self) -> None:
        self.steps = ()
        self._restore(())

    def once(self, step: str, build):
        """`build()`'s value, and the database as it left it: built, or put back from the first build's copy."""
        self.steps = (*self.steps, step)
        if self.steps in self.copies:
            return self._restore(self.steps)
        value = build()
        copy = sqlite3.connect(":memory:", check_same_thread=False)
        self.connection.ensure_connection()
        self.connection.connection.backup(copy)
        self.copies[self.steps] = (copy, value)
        return value

    def _restore(self, steps: tuple[str, ...]):
        from django.core.cache import cache

        copy, value = self.copies[steps]
        self.connection.ensure_connection()
        copy.backup(self.connection.connection)
        cache.clear()  # pages cached for another state of the same board generations
        return value
