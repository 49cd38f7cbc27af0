"""Whole-page caching for the public pages and the API's reads, retired per task by board generations (see
BoardGeneration).

A cached page costs one cache read (the page and a copy of the generations together) and no query; without
it, the home page alone runs a dozen board queries and renders sixty rows. `PAGE_CACHE_SECONDS = 0` turns
caching off.

Four rules keep it fast under load:
- A key holds only what changes the answer: the path and the parameters the page reads, as parsed. Keyed on
  the raw query string, every `?utm_source=...` a crawler invents would be an entry of its own.
- A change moves only its own task's generation, once per transaction and after it commits, in a statement
  that never waits: a submission holds no lock that readers or other submissions queue on.
- The database holds the generations; each bump copies them into the cache, where page views read them.
- A page is stored with the generation it was rendered in. When that generation has moved, one request
  re-renders the page (it takes a short render lock) while the others are served the previous copy,
  so a board change does not send every waiting reader into the same render at once.
- That request too is served the previous copy when it is recent (`PAGE_CACHE_STALE_SECONDS`), and renders the
  new one once its response has gone: no reader waits on a render, so a board that changes every second
  leaves page latency as it was. A reader then sees the board as it stood at most that many seconds earlier.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import wraps
from typing import TypeVar

from django.conf import settings
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.db import connection, transaction
from django.db.models import F, Subquery
from django.http import QueryDict
from prometheus_client import Counter

from leaderboard.models import BoardGeneration, Task

SITE_GENERATION_ID = 1  # the row with no task (migration 0003): prices and matches, which every page shows
# In every key: a release that changes what is stored under a key (a page's shape, a document's) changes it,
# so a shared cache never hands a new release an old release's value.
KEY_FORMAT = 3
RENDER_LOCK_SECONDS = 30
GENERATIONS_KEY = f"dawnboard:{KEY_FORMAT}:generations"
GENERATIONS_SECONDS = 5  # how long a copy of the generations may be read without asking the database
PUBLISH_TRIES = 3  # a render that dies holding the lock stops the previous copy being served after this
T = TypeVar("T")
# Reads of a cached page or value, by what they got (served on /metrics): `hit`, `stale` (the previous copy, while
# another request or this one after its response renders the new), `rendered` (the reader waited for a render).
READS = Counter("dawnboard_page_cache_reads", "Page-cache reads by result.", ["result"])
logger = logging.getLogger(__name__)


# --- generations -----------------------------------------------------------------------------------------------


def board_generations() -> dict[str | None, int]:
    """Every generation by task slug, and the site's under None, as the database holds them (the truth)."""
    generations = BoardGeneration._meta.db_table
    tasks = Task._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT t.slug, g.value FROM {generations} g LEFT JOIN {tasks} t ON t.id = g.task_id")
        return dict(cursor.fetchall())


def generations_publish() -> None:
    """Copy the generations into the cache, where page views read them (see `_generations_and`).

    Two bumps that publish at once may write in either order; each checks afterwards that what it wrote is
    still what the database holds, and writes again if not, so the last copy written is the latest.
    """
    for _ in range(PUBLISH_TRIES):
        generations = board_generations()
        cache.set(GENERATIONS_KEY, generations, GENERATIONS_SECONDS)
        if board_generations() == generations:
            return


def _generations_and(key: str) -> tuple[dict[str | None, int], object]:
    """The generations and the value under `key`, in one cache read: a cached page touches no database.

    The copy of the generations lives `GENERATIONS_SECONDS`; when it is missing, the database's are read and
    added (never over a copy a bump has just written). So a change reaches every page at once where the
    cache is shared, and within `GENERATIONS_SECONDS` where it is not (a process-local cache beside a
    worker process, or a bump whose process died between its commit and its copy).
    """
    found = cache.get_many([GENERATIONS_KEY, key])
    generations = found.get(GENERATIONS_KEY)
    if generations is None:
        generations = board_generations()
        cache.add(GENERATIONS_KEY, generations, GENERATIONS_SECONDS)
    return generations, found.get(key)


def generation_key(generations: dict[str | None, int], task_slug: str | None) -> str:
    """The part of a key that moves when the page may change: the site's and the task's generation, or for a
    page showing every task (`task_slug` None) all of them."""
    if task_slug is not None:
        return f"{generations.get(None, 0)}.{generations.get(task_slug, 0)}"
    ordered = sorted(generations.items(), key=lambda item: item[0] or "")
    # A digest: one number per task would make keys longer than a cache key should be (MLPerf adds many tasks).
    every = ".".join(f"{slug or ''}={value}" for slug, value in ordered)
    return hashlib.sha256(every.encode()).hexdigest()[:20]


def boards_changed(*task_slugs: str) -> None:
    """The named tasks' boards changed (every task's when none is named): see `task_boards_changed`."""
    if not task_slugs:
        site_board_changed()
        return
    task_boards_changed(*Task.objects.filter(slug__in=task_slugs).values_list("id", flat=True))


def task_boards_changed(*task_ids: int) -> None:
    """Retire the cached pages of these tasks once the current transaction commits (at once outside one)."""
    _after_commit(_BoardChanges(task_ids=set(task_ids)))


def site_board_changed() -> None:
    """Retire every cached page once the current transaction commits: a price or a hardware match moved."""
    _after_commit(_BoardChanges(site=True))


@dataclass
class _BoardChanges:
    """What one transaction changed, bumped once when it commits."""

    task_ids: set[int] = field(default_factory=set)
    site: bool = False
    bumped: bool = False

    def add(self, other: _BoardChanges) -> None:
        self.task_ids |= other.task_ids
        self.site |= other.site

    def bump(self) -> None:
        self.bumped = True
        if self.site:
            _bump(BoardGeneration.objects.filter(pk=SITE_GENERATION_ID))
        if self.task_ids:
            known = set(BoardGeneration.objects.filter(task_id__in=self.task_ids).values_list("task_id", flat=True))
            for task_id in self.task_ids - known:  # a task loaded after the migration: its first change
                BoardGeneration.objects.get_or_create(task_id=task_id)
            _bump(BoardGeneration.objects.filter(task_id__in=self.task_ids))
        generations_publish()


def _bump(rows) -> None:
    """Add one to the rows, skipping any row another bump holds: that bump starts after this change has
    committed and commits after it, so the generation it writes already covers this change."""
    with transaction.atomic():
        locked = rows.select_for_update(skip_locked=True).values("pk")
        BoardGeneration.objects.filter(pk__in=Subquery(locked)).update(value=F("value") + 1)


PENDING_ATTRIBUTE = "dawnboard_board_changes"


def _after_commit(changes: _BoardChanges) -> None:
    """Bump once per transaction, after it commits: an entry saved twice in one judging moves its task once.

    The pending changes ride on the connection with their on-commit callback; a rolled-back savepoint or
    transaction drops the callback (Django forgets it), and the next change then starts a new batch.
    """
    database = transaction.get_connection()
    if not database.in_atomic_block:
        changes.bump()
        return
    pending = getattr(database, PENDING_ATTRIBUTE, None)
    waiting = (
        pending is not None
        and not pending.bumped
        and any(callback == pending.bump for _, callback, _ in database.run_on_commit)
    )
    if not waiting:
        pending = _BoardChanges()
        setattr(database, PENDING_ATTRIBUTE, pending)
        transaction.on_commit(pending.bump, robust=True)  # the data is committed: a failed bump only logs
    pending.add(changes)


# --- caching ---------------------------------------------------------------------------------------------------


def cache_key(kind: str, identity: str) -> str:
    """The key of `identity` (a path and its canonical parameters): it holds no generation, so the previous
    copy of a page can be found (and served) while the current one renders."""
    digest = hashlib.sha256(identity.encode("utf-8", "backslashreplace")).hexdigest()
    return f"dawnboard:{KEY_FORMAT}:{kind}:{digest}"


def _cached(key: str, *, task_slug: str | None, compute: Callable[[], T], keep: Callable[[T], bool]) -> T:
    """`compute()` as stored under `key` for the current generation; see the module's last two rules."""
    generations, stored = _generations_and(key)
    generation = generation_key(generations, task_slug)
    if stored is not None and stored[0] == generation:
        READS.labels("hit").inc()
        return stored[1]
    lock = f"{key}:rendering:{generation}"
    if stored is None:
        READS.labels("rendered").inc()
        return _render(key, generation, lock, compute=compute, keep=keep)
    if not cache.add(lock, 1, RENDER_LOCK_SECONDS):
        READS.labels("stale").inc()
        return stored[1]  # another request renders this generation now
    _, previous, rendered_at = stored
    render_later = functools.partial(_render, key, generation, lock, compute=compute, keep=keep)
    if time.time() - rendered_at <= settings.PAGE_CACHE_STALE_SECONDS and _after_response(render_later):
        READS.labels("stale").inc()
        return previous
    READS.labels("rendered").inc()
    return _render(key, generation, lock, compute=compute, keep=keep)


def _render(key: str, generation: str, lock: str, *, compute: Callable[[], T], keep: Callable[[T], bool]) -> T:
    """Compute the value, store it with its generation and the time, and give up the render lock."""
    try:
        value = compute()
    except BaseException:
        cache.delete(lock)
        raise
    if keep(value):
        cache.set(key, (generation, value, time.time()), settings.PAGE_CACHE_SECONDS)
    cache.delete(lock)
    return value


# Renders put off until the response has gone, per thread: a list while a request is served, None otherwise.
# gunicorn's sync worker (and Django's test client) close the response, firing `request_finished`, once the
# client holds all of it; the worker then renders before it accepts its next connection.
_deferred = threading.local()


def _after_response(render: Callable[[], object]) -> bool:
    """Run `render` once the current request's response has been sent; False outside a request."""
    renders = getattr(_deferred, "renders", None)
    if renders is None:
        return False
    renders.append(render)
    return True


def _request_started(**kwargs) -> None:
    _deferred.renders = []


def _request_finished(**kwargs) -> None:
    renders, _deferred.renders = getattr(_deferred, "renders", None), None
    for render in renders or ():
        try:
            render()
        except Exception:  # the reader has been answered; the next one renders the page again
            logger.exception("rendering a page after its response failed")


request_started.connect(_request_started, dispatch_uid="dawnboard-page-cache-started")
request_finished.connect(_request_finished, dispatch_uid="dawnboard-page-cache-finished")


def cached_value(*, kind: str, parameters: dict, compute: Callable[[], T], task_slug: str | None = None) -> T:
    """`compute()`, kept while the board is unchanged under `parameters` (the parsed values that decide it).

    `task_slug` names the one task the value shows (None: it may show any). An exception from `compute`
    (a bad parameter, say) is raised and nothing is kept.
    """
    if not settings.PAGE_CACHE_SECONDS:
        return compute()
    key = cache_key(kind, json.dumps(parameters, sort_keys=True, default=str))
    return _cached(key, task_slug=task_slug, compute=compute, keep=lambda value: True)


def cached_page(view=None, *, query=None, per_task: bool = False):
    """Serve a GET page from the cache while the board is unchanged; only 200 responses are kept.

    `query`, a form class with `canonical_query()` (leaderboard.forms.QueryForm), names the parameters the
    page reads. The view sees only those, sorted and as parsed (`request.GET` is replaced), so the page
    depends on nothing but its key. A page without `query` reads no parameter. A query with a value its
    form refuses is rendered, saying so, and not kept; nor is a response marked `Cache-Control: no-store`.
    `per_task`: the page shows only the task its URL's `slug` names, so only that task's changes retire it.
    """
    if view is None:
        return lambda view: cached_page(view, query=query, per_task=per_task)

    @wraps(view)
    def cached_view(request, *args, **kwargs):
        parameters, parsed = query(request.GET).canonical_query() if query else (QueryDict(), True)
        request.GET = parameters
        if not settings.PAGE_CACHE_SECONDS or request.method != "GET" or not parsed:
            return view(request, *args, **kwargs)
        # The scheme and host too: pages write absolute links (a permalink, the API's address) with them.
        key = cache_key("page", f"{request.scheme}://{request.get_host()}{request.path}?{parameters.urlencode()}")
        return _cached(
            key,
            task_slug=kwargs["slug"] if per_task else None,
            compute=lambda: view(request, *args, **kwargs),
            keep=_keepable,
        )

    return cached_view


def _keepable(response) -> bool:
    """A whole 200 response that the view did not mark `Cache-Control: no-store`."""
    no_store = "no-store" in response.get("Cache-Control", "")
    return response.status_code == 200 and not response.streaming and not no_store
