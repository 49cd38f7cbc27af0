"""Settings shared by every environment. Everything that differs between machines comes from the environment."""

from pathlib import Path

import environ
import plotly

BASE_DIR = Path(__file__).resolve().parents[2]
env = environ.Env()
if (BASE_DIR / ".env").exists():
    environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DEBUG", default=False)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
SECRET_KEY = env("SECRET_KEY", default=None)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "leaderboard",
    "pricing",
    "benchmarks",
    "inference",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = env.path("STATIC_ROOT", default=BASE_DIR / "staticfiles")
# plotly.js comes from the plotly package itself, so no page loads anything from a CDN.
STATICFILES_DIRS = [BASE_DIR / "static", ("plotly", Path(plotly.__file__).parent / "package_data")]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# The public pages are cached whole until the board changes (leaderboard/page_cache.py). Behind several
# gunicorn workers, point CACHE_URL at Redis (e.g. redis://127.0.0.1:6379/1) so they share one cache.
CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://dawnboard")}
PAGE_CACHE_SECONDS = env.int("PAGE_CACHE_SECONDS", default=600)

# Uploads: a training log can be tens of MB; past this it is refused with `file_too_large`.
SUBMISSION_MAX_FILE_BYTES = env.int("SUBMISSION_MAX_FILE_BYTES", default=64 * 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024  # non-file fields only
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024  # larger files spool to disk, keeping memory bounded

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "leaderboard.api.errors.envelope_exception_handler",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Dawnboard API",
    "DESCRIPTION": "Submit DAWNBench-format entries and read the validated leaderboards.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "SubmissionStatusEnum": ["pending", "accepted", "rejected", "valid"],
        "EntryStatusEnum": "leaderboard.models.Entry.Status",
    },
}

# Celery: with no broker, tasks run in-process, inside the caller's transaction.
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_DEFAULT_QUEUE = env("CELERY_QUEUE", default="dawnboard")
# Reference training jobs go to their own queue, for a worker on a GPU machine (`-Q reference`).
CELERY_REFERENCE_QUEUE = env("CELERY_REFERENCE_QUEUE", default="reference")
CELERY_TASK_ROUTES = {
    "benchmarks.reference_run": {"queue": CELERY_REFERENCE_QUEUE},
    "inference.measure": {"queue": CELERY_REFERENCE_QUEUE},
}
CELERY_TASK_EAGER_PROPAGATES = True
# Task results are not kept, but a reference run's progress is its task state (PROGRESS, with the epoch, step
# and latest quality): with a Redis broker the same Redis keeps those states by default.
CELERY_RESULT_BACKEND = env("CELERY_RESULT_BACKEND", default="") or (
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else None
)
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = 10 * 60
CELERY_TASK_SOFT_TIME_LIMIT = 9 * 60

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    # In-process (eager) task runs would otherwise log a line per submission on every command.
    "loggers": {"celery.app.trace": {"level": env("CELERY_TRACE_LOG_LEVEL", default="WARNING")}},
}

# Reference runs started through the API read datasets from REFERENCE_DATA_DIR/<task>/ (CIFAR-10 python
# batches, ImageNet folders, SQuAD JSON; digits needs none) and write their files under REFERENCE_RUNS_DIR.
REFERENCE_DATA_DIR = env("REFERENCE_DATA_DIR", default=str(BASE_DIR / "data"))
REFERENCE_RUNS_DIR = env("REFERENCE_RUNS_DIR", default=str(BASE_DIR / "runs"))
# With no broker, may `POST /api/v1/reference-runs/` train in the request itself? Yes on the local site (a
# digits run takes seconds); production says no: a run of hours must go to a worker.
REFERENCE_RUNS_IN_REQUEST = env.bool("REFERENCE_RUNS_IN_REQUEST", default=True)
