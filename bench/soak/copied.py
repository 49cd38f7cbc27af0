"""A log already on the board, sent again: refused as another's (`log_already_submitted`), or replacing one's own.

Submitter A's entry is accepted with its log. Submitter B then sends that log with entry files of their own, as
it was and rewritten (CRLF line ends, "0.93" written "0.930", an extra column): each must be rejected on the
worker with `log_already_submitted`, its error naming A's entry (`entry_id`). A then sends the same log again
with the entry's hardware text corrected: it must be accepted with a `replaces_entry` warning naming A's first
entry, which is withdrawn. In the database exactly one accepted entry holds the log afterwards.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field

from bench.soak import client, verify
from bench.soak.payloads import TASK, TRACK, entry_document, training_log
from bench.soak.stack import Stack

# Its own run: no other phase's log has these rows. The crossing row's hours are the "0.93" rewritten.
COPIED_ROWS = [(0, 0.31, 80.0), (1, 0.62, 90.5), (2, 0.93, 94.1), (3, 1.24, 94.5)]
HARDWARE_CORRECTED = "1 V100 16 GB (AWS p3.2xlarge)"
OWNER, COPIER = 1, 2  # indexes into the stack's submitter tokens
ALREADY_SUBMITTED, REPLACES_ENTRY = "log_already_submitted", "replaces_entry"


@dataclass
class Verdict:
    """A submission's outcome once judged: the HTTP answer's status, then the verdict's."""

    http_status: int
    status: str
    errors: list[dict]
    warnings: list[dict]
    entry_id: int | None
    seconds: float

    @property
    def codes(self) -> str:
        return ", ".join(str(issue.get("code")) for issue in [*self.errors, *self.warnings])


@dataclass
class CopiedRow:
    name: str
    status: str
    codes: str
    seconds: float
    ok: bool
    detail: str = ""


@dataclass
class CopiedResult:
    rows: list[CopiedRow] = field(default_factory=list)

    @property
    def failures(self) -> int:
        return sum(not row.ok for row in self.rows)


def run(stack: Stack, run_id: str) -> CopiedResult:
    result = CopiedResult()
    log = training_log(COPIED_ROWS)
    model = f"soak {run_id} copied"
    first = _submit(stack, OWNER, entry_document(model), log)
    accepted = first.status == "accepted" and first.entry_id is not None
    result.rows.append(_row("A: an entry and its log", first, accepted, f"entry {first.entry_id}"))
    if not accepted:
        return result  # nothing on the board to copy
    copies = _rewritten(log)
    for n, (name, copy) in enumerate(copies.items()):
        verdict = _submit(stack, COPIER, entry_document(f"{model} by another {n}"), copy)
        result.rows.append(_refusal_row(f"B: {name}", verdict, first.entry_id))
    again = _submit(stack, OWNER, entry_document(model, hardware=HARDWARE_CORRECTED), log)
    result.rows.append(_replacement_row("A: same log, hardware corrected", again, first.entry_id))
    with stack.connect() as connection:
        entries = verify.entries_by_log(connection, [_sha256(body) for body in [log, *copies.values()]])
    result.rows.append(_database_row(entries, original_id=first.entry_id, replacement_id=again.entry_id))
    return result


def _rewritten(log: bytes) -> dict[str, bytes]:
    """The same run written otherwise, each rewrite checked to change the bytes."""
    lines = log.decode().splitlines()
    copies = {
        "same bytes": log,
        "CRLF line ends": log.replace(b"\n", b"\r\n"),
        '"0.93" written "0.930"': log.replace(b"\t0.93\t", b"\t0.930\t"),
        "an extra column": "".join(f"{line}\t{'loss' if n == 0 else '0.5'}\n" for n, line in enumerate(lines)).encode(),
    }
    unchanged = [name for name, copy in copies.items() if name != "same bytes" and copy == log]
    if unchanged:
        raise ValueError(f"rewrites that left the log as it was: {unchanged}")
    return copies


def _submit(stack: Stack, submitter: int, entry: dict, log: bytes) -> Verdict:
    token = stack.tokens[submitter]
    reply = client.post_submission(
        stack.base_url, token=token, task=TASK, track=TRACK, entry=json.dumps(entry).encode(), log=log
    )
    body, seconds = reply.body, reply.seconds
    if body.get("status") == "pending" and body.get("url"):
        body, waited = client.wait_for_verdict(stack.base_url, body["url"], token=token)
        seconds += waited
    return Verdict(
        http_status=reply.status,
        status=str(body.get("status") or f"HTTP {reply.status}"),
        errors=[issue for issue in body.get("errors") or [] if isinstance(issue, dict)],
        warnings=[issue for issue in body.get("warnings") or [] if isinstance(issue, dict)],
        entry_id=_entry_id(body.get("entry_url")),
        seconds=seconds,
    )


def _refusal_row(name: str, verdict: Verdict, original_id: int) -> CopiedRow:
    refusal = next((issue for issue in verdict.errors if issue.get("code") == ALREADY_SUBMITTED), None)
    named = refusal is not None and refusal.get("entry_id") == original_id
    ok = verdict.status == "rejected" and named and verdict.entry_id is None
    detail = f"entry_id {refusal.get('entry_id')}" if refusal else f"expected rejected {ALREADY_SUBMITTED}"
    return _row(name, verdict, ok, detail)


def _replacement_row(name: str, verdict: Verdict, original_id: int) -> CopiedRow:
    warning = next((issue for issue in verdict.warnings if issue.get("code") == REPLACES_ENTRY), None)
    named = warning is not None and (
        warning.get("entry_id") == original_id or re.search(rf"\b{original_id}\b", str(warning.get("message")))
    )
    ok = verdict.status == "accepted" and bool(named)
    detail = f"entry {verdict.entry_id}, replacing {original_id}" if ok else f"expected accepted, {REPLACES_ENTRY}"
    return _row(name, verdict, ok, detail)


def _database_row(entries: dict[int, str], *, original_id: int, replacement_id: int | None) -> CopiedRow:
    accepted = [entry_id for entry_id, status in entries.items() if status == "accepted"]
    ok = accepted == [replacement_id] and entries.get(original_id) == "withdrawn"
    detail = ", ".join(f"entry {entry_id} {status}" for entry_id, status in entries.items())
    return CopiedRow("database: entries holding the log", f"{len(accepted)} accepted", "", 0.0, ok, detail)


def _row(name: str, verdict: Verdict, ok: bool, detail: str) -> CopiedRow:
    return CopiedRow(name, verdict.status, verdict.codes, verdict.seconds, ok, detail)


def _entry_id(entry_url: str | None) -> int | None:
    match = re.search(r"/entries/(\d+)/", entry_url or "")
    return int(match.group(1)) if match else None


def _sha256(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()
