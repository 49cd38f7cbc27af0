"""How fast the public pages answer with 10,000 entries per task, next to a trivial Django view.

Builds a throw-away test database (config.settings.test: SQLite in memory unless DATABASE_URL says
otherwise), fills it with N accepted entries per task (tests/leaderboard/bulk.py: 60 % training entries
with a 20-point curve, 40 % inference), then times with django.test.Client, in the same run:

* baseline: a view returning HttpResponse("ok"), through the same middleware and URL resolver;
* each page: /, /tasks/cifar10/, /entries/<id>/ (a training entry), and for information only
  /tasks/cifar10/charts/ and /tasks/cifar10/export.csv.

Each page is measured twice: as served (the page cache on, as deployed: a reader gets the page cached
since the board last changed) and as rendered (the cache off: the first reader after a change). Each
runs 3 times to warm up, then 15 times alternating with the baseline, so that drifting load on a
shared machine hits both alike; a ratio is the median of the 15 paired ratios. The goal is a served
ratio <= 3.0 for /, /tasks/<slug>/ and /entries/<id>/; the rendered ratio is printed beside it.

Templates are rendered as in production: Django's test instrumentation of template rendering (from
setup_test_environment) is not installed, since the baseline renders none.

Usage: .venv/bin/python bench/pages.py [--entries N] [--check]
(exit status 0 unless --check is given and a goal is missed).
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
from django.core.cache import cache  # noqa: E402
from django.db import connection  # noqa: E402
from django.http import HttpResponse  # noqa: E402
from django.test import Client  # noqa: E402
from django.urls import clear_url_caches, path  # noqa: E402

import config.urls  # noqa: E402
from dawnboard.rules import Track  # noqa: E402
from leaderboard.models import Entry  # noqa: E402
from tests.leaderboard.bulk import create_entries  # noqa: E402

GOAL_RATIO = 3.0
WARM_UP = 3
REPEATS = 15
TRIVIAL_URL = "/__trivial__/"


def trivial(request):
    return HttpResponse("ok")


urlpatterns = [path(TRIVIAL_URL.strip("/") + "/", trivial), *config.urls.urlpatterns]


def pages(entry_id: int) -> list[tuple[str, str, bool]]:
    """(label, url, has a goal)."""
    return [
        ("/", "/", True),
        ("/tasks/cifar10/", "/tasks/cifar10/", True),
        ("/entries/<id>/ (training)", f"/entries/{entry_id}/", True),
        ("/tasks/cifar10/charts/", "/tasks/cifar10/charts/", False),
        ("/tasks/cifar10/export.csv", "/tasks/cifar10/export.csv", False),
    ]


def seconds(client: Client, url: str) -> float:
    start = time.perf_counter()
    response = client.get(url)
    elapsed = time.perf_counter() - start
    if response.status_code != 200:
        raise SystemExit(f"{url} answered {response.status_code}; the bench measures only working pages.")
    return elapsed


def paired_timings(client: Client, url: str) -> tuple[list[float], list[float]]:
    """Alternate the trivial view and the page so that drifting load on a shared machine hits both alike."""
    for _ in range(WARM_UP):
        seconds(client, TRIVIAL_URL)
        seconds(client, url)
    pairs = [(seconds(client, TRIVIAL_URL), seconds(client, url)) for _ in range(REPEATS)]
    return [pair[0] for pair in pairs], [pair[1] for pair in pairs]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=10_000, help="entries per task (default 10,000)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    arguments = parser.parse_args()

    settings.ROOT_URLCONF = __name__
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    clear_url_caches()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0)
    try:
        start = time.perf_counter()
        create_entries(arguments.entries)
        build_seconds = time.perf_counter() - start
        entry = Entry.objects.filter(task__slug="cifar10", track=Track.TRAIN).order_by("id").first()
        client = Client()
        results = []
        for label, url, has_goal in pages(entry.id):
            measured = []
            for cache_seconds in (600, 0):  # served from the page cache, then rendered every time
                settings.PAGE_CACHE_SECONDS = cache_seconds
                cache.clear()
                baseline_runs, page_runs = paired_timings(client, url)
                ratio = statistics.median(page / base for base, page in zip(baseline_runs, page_runs, strict=True))
                measured.append((statistics.median(page_runs), ratio))
            results.append((label, statistics.median(baseline_runs), *measured, has_goal))
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)

    print(
        f"Dawnboard pages bench: {arguments.entries:,} entries per task ({3 * arguments.entries:,} in all, built in "
        f"{build_seconds:.1f} s), {connection.vendor}, median of {REPEATS} alternating runs after {WARM_UP} warm-up"
    )
    print(
        f"  {'page':<28} {'trivial ms':>10} {'served ms':>10} {'ratio':>8} {'rendered ms':>12} {'ratio':>8}"
        f"  verdict (served, goal <= {GOAL_RATIO:.1f}x)"
    )
    missed = False
    for label, baseline_seconds, (served, served_ratio), (rendered, rendered_ratio), has_goal in results:
        if has_goal:
            verdict = "PASS" if served_ratio <= GOAL_RATIO else "FAIL"
            missed |= verdict == "FAIL"
        else:
            verdict = "info (no goal)"
        print(
            f"  {label:<28} {baseline_seconds * 1000:10.3f} {served * 1000:10.2f} {served_ratio:7.1f}x"
            f" {rendered * 1000:12.2f} {rendered_ratio:7.1f}x  {verdict}"
        )
    return 1 if arguments.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
