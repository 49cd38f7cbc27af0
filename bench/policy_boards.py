"""The boards by a catalog price at N entries per task: priced per request (before) against read off stored costs.

Builds a throw-away test database (config.settings.test; point DATABASE_URL at PostgreSQL for the figures that
count), fills it with N accepted entries per task (tests/leaderboard/bulk.py), matches each entry's hardware to the
bundled catalog (resolved once per distinct text, as `hardware_match_entry` does, then written in bulk), prices
them all (`entry_policy_costs_refresh`, timed: the write side), VACUUM ANALYZE, then times the first run and the
median of REPEATS more (2 for the code replaced, which is slow) of:

* `/api/v1/leaderboards/cifar10/training-cost/?cost_basis=catalog-today` through django.test.Client, the page cache
  off (every request renders: the cold render of bench/http_bench.py; the process has served another board first),
  and a window halfway down it;
* the same document from the selector, and from the code it replaces (kept below, in this file only: every entry
  of the track read and priced in Python per request);
* an entry's ranks on the three catalog-price boards (its page), now and before;
* pricing one entry again (what a submission, a match or a withdrawal adds to a write).

Usage: DATABASE_URL=postgres://postgres@127.0.0.1:5432/dawn_bench .venv/bin/python bench/policy_boards.py
[--entries 100000] [--skip-old]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # import `config`, `leaderboard`, `tests`
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.test"

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.db.models import Q  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from dawnboard.metrics import LEADERBOARD_METRICS, TRAINING_COST, time_metric_of  # noqa: E402
from dawnboard.rules import Track  # noqa: E402
from leaderboard import selectors  # noqa: E402
from leaderboard.models import Entry  # noqa: E402
from leaderboard.selectors.boards import board_row, submitter_names  # noqa: E402
from leaderboard.selectors.entries import BIG_ENTRY_COLUMNS, priced_run  # noqa: E402
from leaderboard.services import entry_policy_costs_refresh  # noqa: E402
from pricing.domain.cost import AS_SUBMITTED, COST_POLICIES  # noqa: E402
from pricing.selectors import costs_by_policy  # noqa: E402
from tests.leaderboard.bulk import create_entries, match_all_entries  # noqa: E402

URL = "/api/v1/leaderboards/cifar10/training-cost/?cost_basis=catalog-today"
REPEATS = 5


# --- the code this change replaced (leaderboard/selectors/boards.py and entry_ranks.py before it) ---------------


def old_policy_rankings(*, task_slug: str, metric) -> dict:
    entries = list(
        selectors.leaderboard_entries(task_slug=task_slug, metric_slug=time_metric_of(metric).slug)
        .filter(Q(hardware_match__instance__isnull=False) | ~Q(hardware_match__parts=[]))
        .defer(*BIG_ENTRY_COLUMNS)
        .select_related("hardware_match__instance__provider")
    )
    costs = costs_by_policy({entry.id: priced_run(entry, claimed_usd_per_item=None) for entry in entries})
    return {
        policy: sorted(
            ((entry, costs[entry.id][policy]) for entry in entries if costs[entry.id][policy] is not None),
            key=lambda pair: (pair[1], pair[0].date, pair[0].id),
        )
        for policy in COST_POLICIES
        if policy != AS_SUBMITTED
    }


def old_leaderboard(*, task_slug: str, metric_slug: str, cost_basis: str, limit: int, offset: int = 0) -> dict:
    metric = LEADERBOARD_METRICS[metric_slug]
    ranked = old_policy_rankings(task_slug=task_slug, metric=metric)[cost_basis]
    submitters = submitter_names([entry.id for entry, _ in ranked])
    rows = [
        board_row(entry, rank=rank, value=float(cost), submitter=submitters.get(entry.id))
        for rank, (entry, cost) in enumerate(ranked, start=1)
    ]
    return {"count": len(rows), "results": [row.as_api_dict() for row in rows[offset : offset + limit]]}


def old_entry_policy_ranks(entry: Entry) -> dict:
    rankings = old_policy_rankings(task_slug=entry.task.slug, metric=TRAINING_COST)
    return {
        policy: next((place for place, (other, _) in enumerate(ranked, start=1) if other.id == entry.id), None)
        for policy, ranked in rankings.items()
    }


# --- building the board --------------------------------------------------------------------------------------


def explained(window: dict, entry: Entry) -> list[str]:
    """EXPLAIN (ANALYZE, BUFFERS) of each query a window of the board and an entry's ranks run."""
    lines = []
    with CaptureQueriesContext(connection) as queries:
        selectors.leaderboard(**window)
        selectors.entry_policy_ranks(entry)
    with connection.cursor() as cursor:
        for query in queries.captured_queries:
            cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {query['sql']}")
            lines += ["", f"  {query['sql'][:160]}..."] + [f"    {row}" for (row,) in cursor.fetchall()]
    return lines


def timed(function, repeats: int = REPEATS) -> tuple[float, float]:
    """(first run, median of `repeats` more) in ms."""
    start = time.perf_counter()
    function()
    first = (time.perf_counter() - start) * 1000
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        runs.append((time.perf_counter() - start) * 1000)
    return first, statistics.median(runs)


def get(client: Client, url: str) -> None:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)


def load() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 3)[:3].__str__()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=100_000, help="entries per task (default 100,000)")
    parser.add_argument("--skip-old", action="store_true", help="leave out the code this change replaced")
    parser.add_argument("--explain", action="store_true", help="print PostgreSQL's plans of the board's queries")
    arguments = parser.parse_args()

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    settings.PAGE_CACHE_SECONDS = 0  # every request renders
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0)
    lines = []
    try:
        start = time.perf_counter()
        with connection.cursor() as cursor:
            # At 100,000 per task two bulk training logs can come out the same; no log is judged here.
            cursor.execute("DROP INDEX IF EXISTS one_accepted_run_per_log")
        create_entries(arguments.entries)
        built = time.perf_counter() - start
        start = time.perf_counter()
        matched = match_all_entries()
        match_seconds = time.perf_counter() - start
        start = time.perf_counter()
        priced = entry_policy_costs_refresh()
        price_seconds = time.perf_counter() - start
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("VACUUM ANALYZE")
        client = Client()
        get(client, "/api/v1/leaderboards/cifar10/training-time/")  # the process's first request, not timed
        board = selectors.leaderboard(task_slug="cifar10", metric_slug="training-cost", cost_basis="catalog-today")
        entry = Entry.objects.get(id=board["results"][0]["entry_id"])
        halfway = board["count"] // 2
        lines.append(
            f"{arguments.entries:,} entries per task ({Entry.objects.count():,} in all, built in {built:.0f} s), "
            f"{matched:,} matched ({match_seconds:.0f} s), {priced:,} priced by entry_policy_costs_refresh in "
            f"{price_seconds:.1f} s; the cifar10 catalog-today training-cost board holds {board['count']:,}; "
            f"{connection.vendor}; load {load()}"
        )
        lines.append(f"  {'read':<62} {'first ms':>9} {'median ms':>10}")

        def report(label: str, function, repeats: int = REPEATS) -> None:
            first, median = timed(function, repeats)
            lines.append(f"  {label:<62} {first:9.1f} {median:10.1f}")

        report(f"GET {URL}", lambda: get(client, URL))
        report(f"GET ... &offset={halfway:,}", lambda: get(client, f"{URL}&offset={halfway}"))
        window = {"task_slug": "cifar10", "metric_slug": "training-cost", "cost_basis": "catalog-today", "limit": 50}
        report("selector leaderboard(limit=50), stored costs", lambda: selectors.leaderboard(**window))
        if not arguments.skip_old:
            report("selector leaderboard(limit=50), priced per request (before)", lambda: old_leaderboard(**window), 2)
        report("entry_policy_ranks (the entry page), stored costs", lambda: selectors.entry_policy_ranks(entry))
        if arguments.explain and connection.vendor == "postgresql":
            lines.extend(explained(window, entry))
        if not arguments.skip_old:
            report("entry_policy_ranks (the entry page), priced per request (before)",
                   lambda: old_entry_policy_ranks(entry), 2)  # fmt: skip
        report("entry_policy_costs_refresh(one entry): a write's share", lambda: entry_policy_costs_refresh(
            entry_ids=[entry.id]))  # fmt: skip
        if not arguments.skip_old:
            new = selectors.leaderboard(**window)
            old = old_leaderboard(**window)
            same = [row["entry_id"] for row in new["results"]] == [row["entry_id"] for row in old["results"]]
            lines.append(f"  the same board both ways: {same and new['count'] == old['count']}")
        lines.append(f"  load after: {load()}; training entries of cifar10: "
                     f"{Entry.objects.filter(task__slug='cifar10', track=Track.TRAIN).count():,}")  # fmt: skip
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
