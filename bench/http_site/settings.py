"""The production settings, unchanged but for the URLconf, which adds the trivial view (see urls.py)."""

from config.settings.production import *  # noqa: F403

ROOT_URLCONF = "bench.http_site.urls"
