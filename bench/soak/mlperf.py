"""`manage.py import_mlperf` against hostile MLPerf results trees, on the soak's PostgreSQL database.

The trees are tests/dawnboard/mllog_trees.py's: a good ssd set and one hostile set per bad input of issue 23 (a
link leaving the tree, a 100 MiB log, a 10 MB line, 2,000,001 lines, too many result files, `time_ms` as a
string, NaN or 1e400, a value nested 100,000 deep, the wrong run count, an unknown benchmark). Three checks:
- one tree holding them all: the good set is accepted as one entry of five runs, each hostile set rejected with
  its own code, nothing of it stored; importing the tree again changes nothing;
- each hostile set alone, timed as a user meets it (the command, start-up included): its code must be known
  within 2 s more than the command takes to re-import the good set alone (start-up and one set read);
- the database afterwards holds exactly the good set's rows.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.soak.stack import Stack
from tests.dawnboard.mllog_trees import HOSTILE_SETS, ROUND, good_set

WITHIN_SECONDS = 2.0  # beyond the command's own start-up and a good set's read
COUNTS_SQL = """
SELECT (SELECT count(*) FROM leaderboard_entry), (SELECT count(*) FROM leaderboard_run),
       (SELECT count(*) FROM leaderboard_submission)
"""


@dataclass
class MlperfRow:
    name: str
    code: str  # what the set got: its codes, comma-separated, or "accepted"
    seconds: float
    ok: bool
    detail: str = ""


@dataclass
class MlperfResult:
    rows: list[MlperfRow] = field(default_factory=list)
    baseline_seconds: float = 0.0
    checks: list[tuple[str, bool]] = field(default_factory=list)  # the whole tree's checks, each named

    @property
    def failures(self) -> int:
        return sum(not row.ok for row in self.rows) + sum(not ok for _, ok in self.checks)


def run(stack: Stack) -> MlperfResult:
    result = MlperfResult()
    root = stack.workdir / "mlperf"
    whole = root / "whole" / "tree"
    good_set(whole, system="good")
    for index, hostile in enumerate(HOSTILE_SETS):
        hostile.write(whole, f"hostile{index:02d}")
    before = _counts(stack)

    first, _ = _import(stack, whole)
    sets = {imported["system"]: imported for imported in first["sets"]}
    good = sets.get("good", {})
    result.checks.append(("the good set accepted as one entry of 5 runs", _accepted_with_runs(good, 5)))
    for index, hostile in enumerate(HOSTILE_SETS):
        imported = sets.get(f"hostile{index:02d}", {})
        result.checks.append((f"{hostile.name}: rejected with {hostile.code}", _rejected_with(imported, hostile.code)))
    after_first = _counts(stack)
    result.checks.append(("the tree stored 1 entry, 5 runs", _grew_by(before, after_first, entries=1, runs=5)))

    again, _ = _import(stack, whole)
    again_good = {imported["system"]: imported for imported in again["sets"]}.get("good", {})
    result.checks.append(
        (
            "imported again: the same entry, nothing more stored",
            again_good.get("entry_id") == good.get("entry_id") and _counts(stack) == after_first,
        )
    )

    alone_good = root / "good" / "tree"
    good_set(alone_good, system="good")
    _, result.baseline_seconds = _import(stack, alone_good)
    for index, hostile in enumerate(HOSTILE_SETS):
        tree = root / f"alone{index:02d}" / "tree"
        hostile.write(tree, "bad")
        document, seconds = _import(stack, tree)
        imported = document["sets"][0] if document["sets"] else {}
        codes = _codes(imported)
        in_time = seconds - result.baseline_seconds <= WITHIN_SECONDS
        ok = _rejected_with(imported, hostile.code) and in_time
        detail = "" if ok else f"expected {hostile.code}" + ("" if in_time else f" within {WITHIN_SECONDS:.0f} s")
        result.rows.append(MlperfRow(hostile.name, ",".join(sorted(codes)) or "accepted", seconds, ok, detail))
    result.checks.append(("nothing stored by the hostile sets alone", _counts(stack) == after_first))
    return result


def _import(stack: Stack, tree: Path) -> tuple[dict, float]:
    started = time.perf_counter()
    completed = stack.manage("import_mlperf", str(tree), "--round", ROUND, "--json", timeout_seconds=120)
    return json.loads(completed.stdout), time.perf_counter() - started


def _counts(stack: Stack) -> tuple[int, int, int]:
    with stack.connect() as connection:
        return tuple(connection.execute(COUNTS_SQL).fetchone())


def _grew_by(before: tuple, after: tuple, *, entries: int, runs: int) -> bool:
    return after[0] - before[0] == entries and after[1] - before[1] == runs


def _codes(imported: dict) -> set[str]:
    codes = {error["code"] for error in imported.get("errors", [])}
    for run in imported.get("runs", []):
        codes |= {error["code"] for error in run["errors"]}
    return codes


def _accepted_with_runs(imported: dict, count: int) -> bool:
    return imported.get("status") == "accepted" and len(imported.get("runs", [])) == count


def _rejected_with(imported: dict, code: str) -> bool:
    return imported.get("status") == "rejected" and imported.get("entry_id") is None and code in _codes(imported)


def lines(result: MlperfResult) -> list[str]:
    """The rows `make soak` prints for this phase."""
    out = [f"{'import_mlperf, hostile set alone':<36}  {'codes':<40}  {'s':>5}  ok"]
    out.append(f"{'-' * 36}  {'-' * 40}  {'-' * 5}  --")
    for row in result.rows:
        line = f"{row.name:<36}  {row.code[:40]:<40}  {row.seconds:>5.2f}  {'yes' if row.ok else 'NO'}"
        out.append(line + (f"  ({row.detail})" if row.detail else ""))
    out.append(
        f"each within {WITHIN_SECONDS:.0f} s more than the command re-importing a good set alone "
        f"({result.baseline_seconds:.2f} s, start-up included)"
    )
    out += [f"  {'yes' if ok else 'NO '}  {name}" for name, ok in result.checks]
    return out
