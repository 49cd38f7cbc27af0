"""The test suite: fast hashing, in-process Celery, an in-memory SQLite unless DATABASE_URL says otherwise."""

import tempfile
from pathlib import Path

from config.settings.base import *  # noqa: F403
from config.settings.base import REST_FRAMEWORK, env

DEBUG = False
SECRET_KEY = "dawnboard-test-key"
DATABASES = {"default": env.db("DATABASE_URL", default="sqlite://:memory:")}
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CELERY_BROKER_URL = ""
CELERY_TASK_ALWAYS_EAGER = True
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
LOGGING = {"version": 1, "disable_existing_loggers": False}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
PAGE_CACHE_SECONDS = 0  # tests see every page rendered; tests of the cache turn it on themselves
PAGE_CACHE_STALE_SECONDS = 0  # a change shows on the next read; tests of rendering after the response set it
# No test meets a throttle unless it sets a rate itself (tests/leaderboard/api/test_throttling.py).
REST_FRAMEWORK = {
    **REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": {scope: None for scope in REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]},
}
FILE_UPLOAD_TEMP_DIR = str(Path(tempfile.gettempdir()) / "dawnboard-test-uploads")
