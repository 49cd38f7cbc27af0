"""Whole-page caching for the public pages, retired by the board generation (see BoardGeneration).

A cached page costs one primary-key query and one cache read; without it, the home page alone runs
a dozen board queries and renders sixty rows. `PAGE_CACHE_SECONDS = 0` turns caching off.
"""

from __future__ import annotations

import hashlib
from functools import wraps

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.db.models import F

from leaderboard.models import BoardGeneration

GENERATION_ID = 1


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


def cached_page(view):
    """Serve a GET page from the cache while the board is unchanged; only 200 responses are kept."""

    @wraps(view)
    def cached_view(request, *args, **kwargs):
        seconds = settings.PAGE_CACHE_SECONDS
        if not seconds or request.method != "GET":
            return view(request, *args, **kwargs)
        path_hash = hashlib.sha256(request.get_full_path().encode()).hexdigest()
        key = f"dawnboard:page:{board_generation()}:{path_hash}"
        response = cache.get(key)
        if response is None:
            response = view(request, *args, **kwargs)
            if response.status_code == 200 and not response.streaming:
                cache.set(key, response, seconds)
        return response

    return cached_view
