"""How the site answers over HTTP as readers meet it, at 1,000, 10,000 and 100,000 entries per task (issue 12).

The production stack runs on this machine (bench/soak/stack.py): gunicorn with four sync workers under the
production settings (bench/http_site: the same settings, plus a trivial view to measure against), a fresh
PostgreSQL database, a redis-server of its own for the cache and another for the Celery broker, and a Celery
worker that judges submissions. wrk drives 16 concurrent clients (two threads) over the loopback: it is C, so on
a small machine it takes little of the CPU the server needs.

The board is filled in place and cumulatively (tests/leaderboard/bulk.py: 60 % training entries of --runs runs, each
with a 20-point curve, 40 % inference, for each DAWNBench-format task), every entry's hardware matched and priced by
the catalog as a stored entry is, then VACUUM ANALYZE, as a production database has statistics.
At each size, for every read in READS:

* cached: one request warms it, then wrk runs on the trivial view and on the read in turn, twice, so that
  drifting load hits both alike; the ratio is the trivial view's requests/s over the read's. Each run ends once
  the server has served what wrk left queued (bench/http_site/settle.py), so no run pays for the one before;
* cold: the board changes (`boards_changed("cifar10")` retires every cached page of the task) and the cache is
  emptied (else the request would be served the previous copy and the page rendered after it), then one
  request, timed to its full response (a whole-board download: to its first byte); five times.

At the largest size, with PostgreSQL's lock table sampled every 10 ms for a session waiting on a lock:

* each read but the downloads quiet, then while one valid submission a second is posted through the API and
  judged (accepted) by the worker, each acceptance a board change; in turn, three times (a p99 of a run of
  seconds is its few slowest requests: each side is the median of its three);
* a burst of 60 submissions from 4 clients while wrk loads the pages: submissions/s answered and judged.

Goals, judged at the largest size measured (the issue's is 100,000 per task):
1. every cached read within 3x the trivial view (a download is streamed, never cached: its ratio is
   information);
2. every cold render under 300 ms (the median of five) and every response under 1 MB; a whole-board download
   is judged on its time to first byte, and its size is information;
3. no lock waited on during the submission phase;
4. every read's p99 while a submission lands each second under 2x its quiet p99.

Usage: .venv/bin/python bench/http_bench.py [--sizes 1000,10000,100000] [--runs 5] [--seconds 2] [--check]
[--max-minutes 20]
(exit status 0 unless --check is given and a goal is missed). Needs wrk (`apt-get install -y wrk`),
redis-server and PostgreSQL on 127.0.0.1:5432.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # import `bench`, `config`, `leaderboard`, `tests`

import argparse  # noqa: E402
import http.client  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
import uuid  # noqa: E402
from dataclasses import asdict, dataclass  # noqa: E402
from datetime import datetime  # noqa: E402

from bench.http_site import settle, submissions  # noqa: E402
from bench.http_site.goals import ReadResult, Run, SizeResult  # noqa: E402
from bench.http_site.report import report  # noqa: E402
from bench.soak.stack import Stack  # noqa: E402


@dataclass(frozen=True)
class Read:
    """One page or API read. `path` may name {entry_id}, {other_entry_id}, {deep_page} and {deep_offset}."""

    path: str
    streamed: bool = False  # a whole-board download: judged on its first byte; its size is information

    def resolve(self, board: Board) -> str:
        return self.path.format(**asdict(board))


READS = (
    Read("/"),
    Read("/tasks/cifar10/"),
    Read("/tasks/cifar10/?sort=hardware&framework=PyTorch"),
    Read("/tasks/cifar10/?page={deep_page}"),
    Read("/tasks/cifar10/?verification=measured"),
    Read("/tasks/cifar10/charts/"),
    Read("/tasks/cifar10/sensitivity/"),
    Read("/tasks/cifar10/export.csv", streamed=True),
    Read("/entries/{entry_id}/"),
    Read("/compare/?ids={entry_id},{other_entry_id}"),
    Read("/api/v1/leaderboards/cifar10/training-time/"),
    Read("/api/v1/leaderboards/cifar10/training-time/?offset={deep_offset}"),
    Read("/api/v1/leaderboards/cifar10/training-cost/?cost_basis=catalog-today"),
    Read("/api/v1/entries/?task=cifar10"),
    Read("/api/v1/entries/{entry_id}/"),
    Read("/api/v1/leaderboards/cifar10/training-time/?verification=measured&offset={deep_offset}"),
    Read("/api/v1/tasks/"),
    Read("/api/v1/tasks/cifar10/sensitivity/"),
)
TASK = "cifar10"  # the task the reads show and the submissions go to
TRIVIAL_PATH = "/__trivial__/"
SIZES = (1_000, 10_000, 100_000)
DEEP_PAGE = 200
BOARD_PAGE_ROWS = 50  # rows on a page of a task's board (leaderboard/views.py)
CACHED_ROUNDS = 2
COLD_REPEATS = 5


@dataclass(frozen=True)
class Board:
    """What the reads' paths name at one size: two training entries and a place deep in the board."""

    entry_id: int
    other_entry_id: int
    deep_page: int
    deep_offset: int


def deep_page(board_rows: int) -> int:
    """DEEP_PAGE, or the board's last page when it has fewer."""
    return max(1, min(DEEP_PAGE, math.ceil(board_rows / BOARD_PAGE_ROWS)))


class BenchTimeout(Exception):
    pass


# -- the board, in-process -----------------------------------------------------------------------------------
# Django is set up in this process only once the stack's settings (its env) are known: these functions import it.


def django_setup(stack: Stack) -> None:
    import django

    os.environ.update(stack.env)
    django.setup()


def board_fill(stack: Stack, *, entries_per_task: int, already: int, runs_per_entry: int) -> tuple[float, float]:
    """Add entries up to `entries_per_task` per task (training entries of `runs_per_entry` runs), match their
    hardware and price them by the catalog as a stored entry is, then VACUUM ANALYZE; returns how long each took."""
    from django.db import connections

    from leaderboard.services import entry_policy_costs_refresh
    from tests.leaderboard.bulk import create_entries, match_all_entries

    started = time.perf_counter()
    create_entries(entries_per_task - already, runs_per_entry=runs_per_entry)
    match_all_entries()
    entry_policy_costs_refresh()  # every entry, those of a smaller size again too: one pass, a few thousand a query
    connections.close_all()
    filled = time.perf_counter()
    with stack.connect() as connection:
        connection.execute("VACUUM ANALYZE")
    return filled - started, time.perf_counter() - filled


def entries_per_task_held() -> int:
    """Entries of the bench's task on the board already (0 in a fresh database)."""
    from django.db import connections

    from leaderboard.models import Entry

    held = Entry.objects.filter(task__slug=TASK).count()
    connections.close_all()
    return held


def board_facts() -> Board:
    from django.db import connections

    from dawnboard.metrics import TRAINING_TIME
    from leaderboard.selectors import leaderboard_entries

    board = leaderboard_entries(task_slug=TASK, metric_slug=TRAINING_TIME.slug)
    first, second = board.order_by("id").values_list("id", flat=True)[:2]
    page = deep_page(board.count())
    connections.close_all()
    return Board(entry_id=first, other_entry_id=second, deep_page=page, deep_offset=(page - 1) * BOARD_PAGE_ROWS)


def board_changed() -> None:
    """Retire every cached page of the task, as an accepted entry does, and drop the previous copies too: a
    reader who finds a recent one is served it while the page renders after the response, and the render is
    what a cold read measures."""
    from django.core.cache import cache
    from django.db import connections

    from leaderboard.page_cache import boards_changed

    boards_changed(TASK)
    cache.clear()
    connections.close_all()


# -- measuring -----------------------------------------------------------------------------------------------


def timed_get(base_url: str, path: str, *, to_first_byte: bool = False) -> tuple[int, float, int]:
    """(status, seconds, bytes) of a GET on a fresh connection, timed from the client to the full response or
    to the body's first byte; the body is read to its end either way, for its size. Status 0: no answer."""
    host, port = base_url.removeprefix("http://").split(":")
    started = time.perf_counter()
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        first = response.read(1)
        first_byte_seconds = time.perf_counter() - started
        size = len(first) + len(response.read())
        return response.status, first_byte_seconds if to_first_byte else time.perf_counter() - started, size
    except (OSError, http.client.HTTPException):
        return 0, time.perf_counter() - started, 0
    finally:
        connection.close()


def measure_read(stack: Stack, read: Read, board: Board, *, seconds: float) -> ReadResult:
    """Warm the read; wrk on it and on the trivial view in turn; then cold, right after a board change."""
    path = read.resolve(board)
    status, _, size = timed_get(stack.base_url, path)
    result = ReadResult(path, read.streamed, status, size)
    if status != 200:
        return result
    for _ in range(CACHED_ROUNDS):
        result.trivial_runs.append(settle.wrk_run(stack, TRIVIAL_PATH, seconds=seconds))
        result.page_runs.append(settle.wrk_run(stack, path, seconds=seconds))
    for _ in range(COLD_REPEATS):
        board_changed()
        _, cold_seconds, _ = timed_get(stack.base_url, path, to_first_byte=read.streamed)
        result.cold_ms.append(cold_seconds * 1000)
    return result


def measure(stack: Stack, run: Run, sizes: list[int], *, seconds: float, runs_per_entry: int) -> None:
    """Each size in turn, every read; then, at the largest, the submission phase with the lock table sampled."""
    already = entries_per_task_held()
    for entries_per_task in sizes:
        if entries_per_task <= already:  # a kept database (--keep-database) holds this size: read as it is
            _log(f"the board holds {already:,} entries per task already: not filled")
            fill_seconds, analyze_seconds = 0.0, 0.0
        else:
            _log(f"filling the board to {entries_per_task:,} entries per task")
            fill_seconds, analyze_seconds = board_fill(
                stack, entries_per_task=entries_per_task, already=already, runs_per_entry=runs_per_entry
            )
            already = entries_per_task
        size = SizeResult(entries_per_task, fill_seconds, analyze_seconds)
        run.sizes.append(size)
        _log(f"filled in {fill_seconds:.1f} s, VACUUM ANALYZE in {analyze_seconds:.1f} s")
        board = board_facts()
        for read in READS:
            size.reads.append(measure_read(stack, read, board, seconds=seconds))
            stack.assert_running()
            _log(f"{size.reads[-1].path}: answered {size.reads[-1].status}, measured")
    # Downloads are left out: each one renders the whole board, cached or not, so a board change alters nothing.
    answered = [result for result in run.sizes[-1].reads if result.status == 200 and not result.streamed]
    run_id = uuid.uuid4().hex[:8]
    sampler = submissions.LockSampler(stack)
    sampler.start()
    try:
        for result in answered:
            run.loaded.append(submissions.while_submitting(stack, result.path, run_id, seconds=seconds))
            _log(f"{result.path}: measured while submitting")
        run.burst = submissions.burst(stack, [result.path for result in answered], run_id)
        _log("the burst of submissions measured")
    finally:
        run.locks = sampler.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="entries per task, filled in turn")
    parser.add_argument("--seconds", type=float, default=2.0, help="each wrk run of a cached read (default 2)")
    parser.add_argument("--runs", type=int, default=5, help="runs per training entry (default 5)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    parser.add_argument("--max-minutes", type=float, default=20, help="the whole run, stack included")
    parser.add_argument(
        "--keep-database",
        action="store_true",
        help="keep dawnboard_http after the run, and use it where it exists: a size it holds is not filled again",
    )
    arguments = parser.parse_args(argv)
    sizes = sorted({int(size) for size in arguments.sizes.split(",") if size.strip()})
    if not sizes:
        parser.error("--sizes names no size")
    if shutil.which("wrk") is None:
        raise SystemExit("bench/http_bench.py needs wrk: apt-get install -y wrk")

    signal.signal(signal.SIGALRM, _on_alarm)
    signal.signal(signal.SIGTERM, _on_term)
    signal.alarm(int(arguments.max_minutes * 60))
    started, load_before = time.monotonic(), os.getloadavg()
    # Throttles stay on, as in production, at a rate that 16 clients on one address never reach.
    stack = Stack(
        database="dawnboard_http",
        settings_module="bench.http_site.settings",
        web_workers=4,
        beat=False,
        throttle_rate="1000000/s",
        keep_database=arguments.keep_database,
    )
    run = Run(runs_per_entry=arguments.runs)
    try:
        stack.start(log=_log)
        django_setup(stack)
        measure(stack, run, sizes, seconds=arguments.seconds, runs_per_entry=arguments.runs)
    except (Exception, KeyboardInterrupt) as error:  # BenchTimeout too
        run.aborted = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
        traceback.print_exc()
        for name in ("gunicorn", "worker"):
            if tail := stack.log_tail(name, 15):
                print(f"--- {name} log (last lines)\n{tail}", file=sys.stderr)
    finally:
        signal.alarm(0)
        stack.close()

    print()
    print(
        report(
            run,
            stack_description=stack.description,
            seconds=arguments.seconds,
            cached_rounds=CACHED_ROUNDS,
            cold_repeats=COLD_REPEATS,
            load_before=load_before,
            elapsed_seconds=time.monotonic() - started,
            root=ROOT,
        )
    )
    if run.aborted:
        print(f"The stack's logs are kept in {stack.workdir}")
    else:
        shutil.rmtree(stack.workdir, ignore_errors=True)
    return 1 if arguments.check and run.misses() else 0


def _on_alarm(signal_number, frame):
    raise BenchTimeout("the bench ran past --max-minutes")


def _on_term(signal_number, frame):
    raise KeyboardInterrupt


def _log(message: str) -> None:
    print(f"[{datetime.now():%H:%M:%S}] {message}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
