"""How fast the public pages answer with 10,000 entries per task, next to a trivial Django view.

Builds a throw-away test database (config.settings.test: SQLite in memory unless DATABASE_URL says
otherwise), fills it with N accepted entries per task (tests/leaderboard/bulk.py: 60 % training entries
with a 20-point curve, 40 % inference), then times with django.test.Client, in the same run:

* baseline: a view returning HttpResponse("ok"), through the same middleware and URL resolver;
* each page: /, /tasks/cifar10/, /entries/<id>/ (a training entry), and for information only
  /tasks/cifar10/charts/ and /tasks/cifar10/export.csv.

Each page is measured twice: as served (the page cache on, as deployed: a reader gets the page cached
since the board last changed) and as rendered (the cache off: the first reader after a change). Each
runs 3 times to warm up, then in pairs with the baseline, the side going first alternating, so that drifting
load on a shared machine hits both alike; a ratio is the median of the paired ratios. The goal is a served
ratio <= 3.0 for /, /tasks/<slug>/ and /entries/<id>/, judged by `bench.goals` (at least `--rounds` pairs, 15,
until the 95 % interval of the median lies within +-2 %, or a cap: `--max-seconds`, `--max-pairs`); the rendered
ratio (information, 15 pairs) is printed beside it.

Templates are rendered as in production: Django's test instrumentation of template rendering (from
setup_test_environment) is not installed, since the baseline renders none.

Then, for each page with charts (/tasks/cifar10/charts/, a training entry, a comparison of two), what a
reader's browser meets under production settings: gunicorn with config.settings.production on a SQLite file
holding the same N entries per task, static files from `collectstatic` (hashed names, gzipped, served by
whitenoise). Debian's chromium (Playwright) opens each page in a fresh context (an empty cache) and reads its
performance timeline: the bytes transferred (the page and every resource, `transferSize`) and the first
contentful paint (`first-contentful-paint`). Goals: under 1.5 MB transferred and a first paint under 1 s, each
judged on the loads' median by the same rule (at least 6 loads).

Usage: .venv/bin/python bench/pages.py [--entries N] [--rounds 15] [--max-seconds 120] [--check] [--skip-paint]
(exit status 0 unless --check is given and a goal is not judged met).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
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
from bench.goals import (  # noqa: E402
    FEWEST_FOR_AN_INTERVAL,
    PASS,
    Goal,
    Rule,
    add_rule_arguments,
    judge,
    judge_ratio,
    report,
    rule_from,
)
from dawnboard.rules import Track  # noqa: E402
from leaderboard.models import Entry  # noqa: E402
from tests.leaderboard.bulk import create_entries  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
GOAL_RATIO = 3.0
GOAL_TRANSFER_BYTES = 1_500_000
GOAL_PAINT_MS = 1000.0
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
# Run in the production-settings database: fill it, then print the ids of the pages to open.
FILL_SCRIPT = """
import django, json; django.setup()
from dawnboard.rules import Track
from leaderboard.models import Entry
from tests.leaderboard.bulk import create_entries
create_entries({entries})
trained = Entry.objects.filter(task__slug="cifar10", track=Track.TRAIN).order_by("id")
ids = list(trained.values_list("id", flat=True)[:2])
print(json.dumps(ids))
"""
TIMELINE_SCRIPT = """() => {
  const navigation = performance.getEntriesByType("navigation")[0];
  const resources = performance.getEntriesByType("resource");
  const paint = performance.getEntriesByName("first-contentful-paint")[0];
  return {
    bytes: navigation.transferSize + resources.reduce((sum, entry) => sum + entry.transferSize, 0),
    paint_ms: paint ? paint.startTime : null,
  };
}"""
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
    """One request, timed to its whole body: a streamed export is read to its end, as its reader reads it."""
    start = time.perf_counter()
    response = client.get(url)
    if response.streaming:
        b"".join(response.streaming_content)
    elapsed = time.perf_counter() - start
    if response.status_code != 200:
        raise SystemExit(f"{url} answered {response.status_code}; the bench measures only working pages.")
    return elapsed


def warm_up(client: Client, url: str) -> None:
    for _ in range(WARM_UP):
        seconds(client, TRIVIAL_URL)
        seconds(client, url)


def paired_timings(client: Client, url: str) -> tuple[list[float], list[float]]:
    """Alternate the trivial view and the page so that drifting load on a shared machine hits both alike."""
    warm_up(client, url)
    pairs = [(seconds(client, TRIVIAL_URL), seconds(client, url)) for _ in range(REPEATS)]
    return [pair[0] for pair in pairs], [pair[1] for pair in pairs]


def served_pass(client: Client, label: str, url: str, rule: Rule):
    """The served page judged against the trivial view (`bench.goals`): (trivial s, page s, ratio, verdict)."""
    warm_up(client, url)
    pairs: list[tuple[float, float]] = []
    goal = Goal(bench="pages", name=f"{label} served / trivial", target=GOAL_RATIO, at_most=True)
    verdict = judge_ratio(goal, lambda: seconds(client, TRIVIAL_URL), lambda: seconds(client, url), rule, pairs=pairs)
    trivial = statistics.median(base for base, _ in pairs)
    return trivial, statistics.median(page for _, page in pairs), verdict.median, verdict


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=10_000, help="entries per task (default 10,000)")
    parser.add_argument("--rounds", type=int, default=REPEATS, help=f"the fewest pairs a page (default {REPEATS})")
    parser.add_argument("--check", action="store_true", help="exit 1 unless every goal is judged met")
    parser.add_argument("--skip-paint", action="store_true", help="leave out the chart pages in chromium")
    add_rule_arguments(parser)
    arguments = parser.parse_args()
    rule = rule_from(arguments, min_pairs=arguments.rounds)

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
        results, verdicts = [], []
        for label, url, has_goal in pages(entry.id):
            measured = []
            for cache_seconds in (600, 0):  # served from the page cache, then rendered every time
                settings.PAGE_CACHE_SECONDS = cache_seconds
                cache.clear()
                if cache_seconds and has_goal:
                    *served, verdict = served_pass(client, label, url, rule)
                    measured.append(tuple(served))
                    verdicts.append(verdict)
                    continue
                baseline_runs, page_runs = paired_timings(client, url)
                ratio = statistics.median(page / base for base, page in zip(baseline_runs, page_runs, strict=True))
                # Each pass keeps its own trivial time: the ratio beside it was taken against that one.
                measured.append((statistics.median(baseline_runs), statistics.median(page_runs), ratio))
            results.append((label, *measured, has_goal))
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)

    print(
        f"Dawnboard pages bench: {arguments.entries:,} entries per task ({3 * arguments.entries:,} in all, built in "
        f"{build_seconds:.1f} s), {connection.vendor}, medians of alternating runs after {WARM_UP} warm-up (served "
        f"pages with a goal: pairs until judged, below; the rest: {REPEATS})"
    )
    print(
        f"  {'page':<28} {'trivial ms':>10} {'served ms':>10} {'ratio':>8} {'trivial ms':>11} {'rendered ms':>12}"
        f" {'ratio':>8}  verdict (served, goal <= {GOAL_RATIO:.1f}x)"
    )
    judged = iter(verdicts)
    for label, served_figures, rendered_figures, has_goal in results:
        served_trivial, served, served_ratio = served_figures
        rendered_trivial, rendered, rendered_ratio = rendered_figures
        verdict = next(judged).verdict if has_goal else "info (no goal)"
        print(
            f"  {label:<28} {served_trivial * 1000:10.3f} {served * 1000:10.2f} {served_ratio:7.1f}x"
            f" {rendered_trivial * 1000:11.3f} {rendered * 1000:12.2f} {rendered_ratio:7.1f}x  {verdict}"
        )
    print("  (each pass's trivial ms is the trivial view timed alternately with that pass's page)")
    report(verdicts)
    if not arguments.skip_paint:
        verdicts += report_paint(arguments.entries, rule)
    return 1 if arguments.check and any(verdict.verdict != PASS for verdict in verdicts) else 0


def report_paint(entries: int, rule: Rule) -> list:
    """Print bytes and first paint of each chart page under production settings, and their goals' verdicts."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("Chart pages in a browser: skipped (playwright is not installed)")
        return []
    if not CHROMIUM.exists():
        print(f"Chart pages in a browser: skipped ({CHROMIUM} is missing)")
        return []
    loads = Rule(  # a load is a second or so: at least 6 of them, the interval's least
        min_pairs=FEWEST_FOR_AN_INTERVAL, max_pairs=rule.max_pairs, max_seconds=rule.max_seconds
    )
    with tempfile.TemporaryDirectory(prefix="dawnboard-paint-") as workdir:
        with ProductionSite(Path(workdir), entries) as (base_url, entry_ids):
            urls = [
                # The baseline, measured in the same run: a page of the same site with no chart and no chart script.
                ("/submit/ (baseline, no chart)", "/submit/"),
                ("/tasks/cifar10/charts/", "/tasks/cifar10/charts/"),
                ("/entries/<id>/ (training)", f"/entries/{entry_ids[0]}/"),
                ("/compare/ (two entries)", f"/compare/?entries={entry_ids[0]},{entry_ids[1]}"),
            ]
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
                (baseline_label, baseline_url), *chart_urls = urls
                measured = [(baseline_label, *timeline(browser, base_url + baseline_url))]
                verdicts = []
                for label, url in chart_urls:
                    goals = [
                        Goal("pages", f"{label} transferred", GOAL_TRANSFER_BYTES / 1e6, at_most=True, unit="MB"),
                        Goal("pages", f"{label} first paint", GOAL_PAINT_MS, at_most=True, unit="ms"),
                    ]
                    judged = judge(goals, lambda _index: one_load(browser, base_url + url), loads)  # noqa: B023
                    verdicts += judged
                    measured.append((label, judged[0].median * 1e6, judged[1].median))
                browser.close()
    print(
        f"Chart pages in chromium, production settings (gunicorn, whitenoise, collectstatic), {entries:,} entries "
        "per task, a fresh cache each, median of loads (the baseline: 3; each chart page: until judged, below)"
    )
    print(
        f"  {'page':<30} {'transferred':>12} {'first paint':>12} {'ratio':>6}  verdict (< 1.5 MB, < 1 s; ratio: "
        "first paint against the baseline's)"
    )
    (baseline_label, baseline_bytes, baseline_paint_ms), *chart_pages = measured
    print(f"  {baseline_label:<30} {baseline_bytes / 1e6:9.3f} MB {baseline_paint_ms or 0:9.0f} ms {1:5.1f}x  baseline")
    for (label, transferred, paint_ms), (bytes_verdict, paint_verdict) in zip(
        chart_pages, zip(verdicts[::2], verdicts[1::2], strict=True), strict=True
    ):
        verdict = PASS if bytes_verdict.verdict == paint_verdict.verdict == PASS else "see the goals below"
        ratio = f"{paint_ms / baseline_paint_ms:5.1f}x" if baseline_paint_ms else "    -"
        print(f"  {label:<30} {transferred / 1e6:9.3f} MB {paint_ms:9.0f} ms {ratio}  {verdict}")
    report(verdicts)
    return verdicts


def one_load(browser, url: str) -> tuple[float, float]:
    """(MB transferred, first contentful paint in ms) of one load of `url` in a fresh context (an empty cache)."""
    # bypass_csp: the policy refuses Playwright's own polling script on a page that has painted before it
    # polls (it is evaluated as a string); the page's scripts load and run as they would anyway.
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    response = page.goto(url, wait_until="load", timeout=60_000)
    if response is None or response.status != 200:
        raise SystemExit(f"{url} answered {response and response.status}; the bench measures only working pages.")
    page.wait_for_function("performance.getEntriesByName('first-contentful-paint').length > 0", timeout=10_000)
    run = page.evaluate(TIMELINE_SCRIPT)
    context.close()
    return run["bytes"] / 1e6, run["paint_ms"]


def timeline(browser, url: str) -> tuple[float, float]:
    """(bytes transferred, first contentful paint in ms) of `url`: the median of three loads, each uncached."""
    runs = [one_load(browser, url) for _ in range(3)]
    return statistics.median(run[0] for run in runs) * 1e6, statistics.median(run[1] for run in runs)


class ProductionSite:
    """gunicorn on a free port with config.settings.production, a SQLite file of `entries` per task, and
    `collectstatic`'s hashed, compressed files; yields (base url, two training entries' ids)."""

    def __init__(self, workdir: Path, entries: int):
        self.workdir, self.entries, self.server = workdir, entries, None

    def __enter__(self) -> tuple[str, list[int]]:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "SECRET_KEY": "dawnboard-pages-bench",
            "DATABASE_URL": f"sqlite:///{self.workdir / 'db.sqlite3'}",
            "STATIC_ROOT": str(self.workdir / "static"),
            "SECURE_SSL_REDIRECT": "false",
            "SESSION_COOKIE_SECURE": "false",
            "CSRF_COOKIE_SECURE": "false",
            "SECURE_HSTS_SECONDS": "0",
            "CELERY_BROKER_URL": "",
            "CACHE_URL": "locmemcache://pages-bench",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "LOG_LEVEL": "WARNING",
        }
        manage = [sys.executable, str(ROOT / "manage.py")]
        for command in (["migrate", "-v0"], ["collectstatic", "--noinput", "-v0"]):
            subprocess.run([*manage, *command], env=env, cwd=ROOT, check=True, capture_output=True)
        filled = subprocess.run(
            [sys.executable, "-c", FILL_SCRIPT.format(entries=self.entries)],
            env=env, cwd=ROOT, check=True, capture_output=True, text=True,
        )  # fmt: skip
        entry_ids = json.loads(filled.stdout.strip().splitlines()[-1])
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "2"],
            env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        base_url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(base_url + "/api/v1/tasks/", timeout=5):
                    break
            except OSError:
                if time.monotonic() > deadline or self.server.poll() is not None:
                    raise SystemExit("gunicorn did not start under production settings") from None
                time.sleep(0.3)
        return base_url, entry_ids

    def __exit__(self, *exc_info) -> None:
        if self.server is not None:
            self.server.terminate()
            self.server.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
