"""Exactly once, checked in the database itself: every logical submission's rows, found by its entry's SHA-256."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

import psycopg

from bench.soak.payloads import Logical

FINAL = ("accepted", "rejected", "failed")
ROWS_SQL = """
SELECT file.sha256, submission.id, submission.status, entry.id, submission.errors
FROM leaderboard_submission AS submission
JOIN leaderboard_submittedfile AS file ON file.submission_id = submission.id AND file.role = 'entry'
LEFT JOIN leaderboard_entry AS entry ON entry.submission_id = submission.id
WHERE file.sha256 = ANY(%s)
"""

# Every entry stored from a submission whose log is one of these files, whatever its status.
ENTRIES_BY_LOG_SQL = """
SELECT entry.id, entry.status
FROM leaderboard_entry AS entry
JOIN leaderboard_submittedfile AS file ON file.submission_id = entry.submission_id AND file.role = 'log'
WHERE file.sha256 = ANY(%s)
ORDER BY entry.id
"""


@dataclass
class Row:
    submission_id: int
    status: str
    entry_id: int | None
    codes: list[str]


@dataclass
class Tally:
    """What the database says of one batch of logical submissions."""

    accepted: int = 0
    rejected: int = 0
    failed: int = 0
    lost: int = 0  # answered 2xx, yet no row
    doubled: int = 0  # more than one row, or more than one entry, for one logical submission
    stuck: int = 0  # still pending after the wait
    unexpected_rows: int = 0  # a row for a submission that was answered with a refusal (400, 503)
    wrong_verdict: int = 0  # e.g. a valid entry rejected
    verdict_codes: Counter = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        if len(self.examples) < 8:
            self.examples.append(text)


def rows_by_sha(connection: psycopg.Connection, shas: list[str]) -> dict[str, list[Row]]:
    rows: dict[str, list[Row]] = {}
    for sha, submission_id, status, entry_id, errors in connection.execute(ROWS_SQL, (shas,)):
        codes = [str(error.get("code")) for error in errors or [] if isinstance(error, dict)]
        rows.setdefault(sha, []).append(Row(submission_id, status, entry_id, codes))
    return rows


def entries_by_log(connection: psycopg.Connection, log_shas: list[str]) -> dict[int, str]:
    """Entry id -> status (accepted, withdrawn) of the entries whose submitted log has one of these SHA-256s."""
    return dict(connection.execute(ENTRIES_BY_LOG_SQL, (log_shas,)).fetchall())


def pending_count(connection: psycopg.Connection, shas: list[str]) -> int:
    rows = rows_by_sha(connection, shas)
    return sum(row.status == "pending" for sha_rows in rows.values() for row in sha_rows)


def all_pending(connection: psycopg.Connection) -> int:
    return connection.execute("SELECT count(*) FROM leaderboard_submission WHERE status = 'pending'").fetchone()[0]


def wait_until_judged(connection: psycopg.Connection, shas: list[str], *, timeout_seconds: float, check=None) -> float:
    """Wait (bounded) until none of these submissions is pending; returns the seconds waited.

    `check` is called on each round and may raise (e.g. `Stack.assert_running`) to stop waiting early.
    """
    started = time.monotonic()
    while time.monotonic() - started < timeout_seconds:
        if check is not None:
            check()
        if pending_count(connection, shas) == 0:
            break
        time.sleep(0.5)
    return time.monotonic() - started


def tally(connection: psycopg.Connection, sent: list[tuple[Logical, int]]) -> Tally:
    """Count each logical submission's rows against what the client was answered (its last HTTP status).

    A 2xx answer must have left exactly one row, judged, with one entry if accepted; a 4xx or 503 answer
    must have left none.
    """
    return count(sent, rows_by_sha(connection, [logical.entry_sha256 for logical, _ in sent]))


def count(sent: list[tuple[Logical, int]], rows: dict[str, list[Row]]) -> Tally:
    """The tally itself, over rows already read: (logical submission, last HTTP status) against its rows."""
    result = Tally()
    for logical, status in sent:
        found = rows.get(logical.entry_sha256, [])
        if 200 <= status < 300:
            if not found:
                result.lost += 1
                result.note(f"lost: {logical.label} (answered {status}, no row)")
                continue
            if len(found) > 1 or sum(row.entry_id is not None for row in found) > 1:
                result.doubled += 1
                result.note(f"doubled: {logical.label} rows {[row.submission_id for row in found]}")
            row = found[0]
            if row.status == "pending":
                result.stuck += 1
                result.note(f"stuck: {logical.label} submission {row.submission_id} still pending")
                continue
            setattr(result, row.status, getattr(result, row.status) + 1)
            result.verdict_codes.update(row.codes)
            if (row.status == "accepted") != (row.entry_id is not None):
                result.wrong_verdict += 1
                result.note(f"entry mismatch: {logical.label} {row.status} with entry {row.entry_id}")
            if row.status != logical.expected:
                result.wrong_verdict += 1
                result.note(f"verdict: {logical.label} {row.status} {row.codes}, expected {logical.expected}")
        elif found:
            result.unexpected_rows += len(found)
            result.note(f"row after a {status}: {logical.label} rows {[row.submission_id for row in found]}")
    return result
