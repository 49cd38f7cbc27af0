"""Whole-page caching for the public pages and the leaderboard API, retired by the board generation (see
BoardGeneration).

A cached page costs one primary-key query and one cache read; without it, the home page alone runs
a dozen board queries and renders sixty rows. `PAGE_CACHE_SECONDS = 0` turns caching off.

A cache key holds only what changes the answer: the path and the parameters the page reads, as parsed.
Keyed on the raw query string, every `?utm_source=...` a crawler invents would be an entry of its own and
push the real pages out of the cache.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import wraps
from typing import TypeVar

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.db.models import F
from django.http import QueryDict

from leaderboard.models import BoardGeneration

GENERATION_ID = 1
T = TypeVar("T")


def board_generation() -> int:
    """The current generation. Raw SQL: this runs on every page view, where the ORM's own cost shows."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT value FROM {BoardGeneration._meta.db_table} WHERE id = %s", [GENERATION_ID])
        row = cursor.fetchone()
    return row[0] if row else 0


def board_generation_bump() -> None:
    """Called (through signals) in the transaction that changes an entry, so it commits or rolls back with it."""
    if not BoardGeneration.objects.filter(pk=GENERATION_ID).update(value=F("value") + 1):
        BoardGeneration.objects.get_or_create(pk=GENERATION_ID, defaults={"value": 1})


def cache_key(kind: str, identity: str) -> str:
    """The key of `identity` (a path and its canonical parameters) in the current board generation."""
    digest = hashlib.sha256(identity.encode("utf-8", "backslashreplace")).hexdigest()
    return f"dawnboard:{kind}:{board_generation()}:{digest}"


def cached_value(*, kind: str, parameters: dict, compute: Callable[[], T]) -> T:
    """`compute()`, kept while the board is unchanged under `parameters` (the parsed values that decide it).

    An exception from `compute` (a bad parameter, say) is raised and nothing is kept.
    """
    seconds = settings.PAGE_CACHE_SECONDS
    if not seconds:
        return compute()
    key = cache_key(kind, json.dumps(parameters, sort_keys=True, default=str))
    value = cache.get(key)
    if value is None:
        value = compute()
        cache.set(key, value, seconds)
    return value


def cached_page(view=None, *, query=None):
    """Serve a GET page from the cache while the board is unchanged; only 200 responses are kept.

    `query`, a form class with `canonical_query()` (leaderboard.forms.QueryForm), names the parameters the
    page reads. The view sees only those, sorted and as parsed (`request.GET` is replaced), so the page
    depends on nothing but its key. A page without `query` reads no parameter. A query with a value its
    form refuses is rendered, saying so, and not kept; nor is a response marked `Cache-Control: no-store`.
    """
    if view is None:
        return lambda view: cached_page(view, query=query)

    @wraps(view)
    def cached_view(request, *args, **kwargs):
        parameters, parsed = query(request.GET).canonical_query() if query else (QueryDict(), True)
        request.GET = parameters
        seconds = settings.PAGE_CACHE_SECONDS
        if not seconds or request.method != "GET" or not parsed:
            return view(request, *args, **kwargs)
        # The scheme and host too: pages write absolute links (a permalink, the API's address) with them.
        key = cache_key("page", f"{request.scheme}://{request.get_host()}{request.path}?{parameters.urlencode()}")
        response = cache.get(key)
        if response is None:
            response = view(request, *args, **kwargs)
            if response.status_code == 200 and not response.streaming and not _no_store(response):
                cache.set(key, response, seconds)
        return response

    return cached_view


def _no_store(response) -> bool:
    """The view said the response must not be kept (`Cache-Control: no-store`)."""
    return "no-store" in response.get("Cache-Control", "")
