"""Settings shared by every environment. Everything that differs between machines comes from the environment."""

import tempfile
from datetime import timedelta
from pathlib import Path

import environ
from csp.constants import NONE, SELF, UNSAFE_INLINE

from config.logs import logging_settings, structlog_configure

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
    "knox",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "csp",
    "health_check",
    "django_prometheus",
    "django_structlog",
    "leaderboard",
    "pricing",
    "benchmarks",
    "inference",
]

MIDDLEWARE = [
    # django-prometheus times every request and counts its response, refusals included (first and last).
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    # A body over SUBMISSION_MAX_REQUEST_BYTES is refused before anything reads it.
    "leaderboard.http_limits.RequestSizeLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A request id (and the user's) bound to every log line of the request (config/logs.py).
    "django_structlog.middlewares.RequestMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into its lockout response.
    "axes.middleware.AxesMiddleware",
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]

# Behind a proxy that terminates TLS (nginx, a load balancer), set BEHIND_TLS_PROXY: then, and only then, the
# site believes the proxy's X-Forwarded-Proto (is the request https?) and X-Forwarded-For (the client address
# that throttles and the admin lockout count by). Without a proxy a client could write either header itself.
BEHIND_TLS_PROXY = env.bool("BEHIND_TLS_PROXY", default=False)
if BEHIND_TLS_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Admin logins (django-axes): after AXES_FAILURE_LIMIT wrong passwords for one username from one address, that
# pair is refused (429) for AXES_COOLOFF_HOURS, even with the right password. Staff unlock with
# `manage.py axes_reset` (or `axes_reset_username NAME`, `axes_reset_ip ADDRESS`) or in the admin.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(hours=env.float("AXES_COOLOFF_HOURS", default=1.0))
# By the pair, so someone guessing a password from elsewhere never locks the real admin out.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_CLIENT_IP_CALLABLE = "leaderboard.http_limits.client_ip"
AXES_RESET_ON_SUCCESS = True
# No "AXES: BEGIN version ..." line on stderr at every start (each manage.py command); lockouts are still logged.
AXES_VERBOSE = False

# Content-Security-Policy (django-csp 4) on every response: scripts only from this site's own files, so an
# injected <script> or onclick= never runs. Pages pass data to their scripts in <script type="application/json">
# blocks (json_script), which are not executed. style-src allows inline styles because plotly.js writes its
# stylesheet into a <style> element and positions every chart element with style attributes (and Swagger UI
# styles its elements inline too); plotly's SVG traces need no eval, so script-src has no 'unsafe-eval'.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, UNSAFE_INLINE],
        "img-src": [SELF, "data:"],
        "object-src": [NONE],
        "base-uri": [SELF],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
    }
}

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
# The charts page's covering index (leaderboard.Entry) is PostgreSQL's; SQLite builds it without its included
# columns, which only makes it slower there, and says so at every migrate.
SILENCED_SYSTEM_CHECKS = ["models.W040"] if DATABASES["default"]["ENGINE"].endswith("sqlite3") else []

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = env.path("STATIC_ROOT", default=BASE_DIR / "staticfiles")
# plotly.js is the partial "basic" bundle vendored under static/vendor/plotly/, so no page loads anything from a CDN.
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# The public pages are cached whole until the board changes (leaderboard/page_cache.py). Behind several
# gunicorn workers, point CACHE_URL at Redis (e.g. redis://127.0.0.1:6379/1) so they share one cache.
CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://dawnboard")}
if CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
    CACHES["default"]["BACKEND"] = "config.redis_cache.RedisCache"  # the same, without a client per call
PAGE_CACHE_SECONDS = env.int("PAGE_CACHE_SECONDS", default=600)
# A reader who finds the board changed is served the previous copy of the page if it is this recent, and the
# new one is rendered after that response: no reader waits on a render (0: that reader waits for it).
PAGE_CACHE_STALE_SECONDS = env.int("PAGE_CACHE_STALE_SECONDS", default=10)

# Uploads: a training log can be tens of MB; past this it is refused with `file_too_large`.
SUBMISSION_MAX_FILE_BYTES = env.int("SUBMISSION_MAX_FILE_BYTES", default=64 * 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024  # non-file fields only
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024  # larger files spool to disk, keeping memory bounded
# A submission sends an entry and a log per run, at most 40 runs (MLPerf Training's unet3d); Django refuses a form
# of more files (`too_many_files`) as it reads the part past it.
DATA_UPLOAD_MAX_NUMBER_FILES = 41
# A whole request body past this is refused (413 `request_too_large`) from its Content-Length, before a byte
# is read: room for an entry and a log of SUBMISSION_MAX_FILE_BYTES each, and 1 MiB of form fields.
SUBMISSION_MAX_REQUEST_BYTES = env.int(
    "SUBMISSION_MAX_REQUEST_BYTES", default=2 * SUBMISSION_MAX_FILE_BYTES + 1024 * 1024
)
# Spooled uploads go to a directory of their own, so the ones a killed worker leaves are found and removed.
FILE_UPLOAD_TEMP_DIR = env("FILE_UPLOAD_TEMP_DIR", default=str(Path(tempfile.gettempdir()) / "dawnboard-uploads"))
# Made here, not first by the middleware: Django's checks (files.E001), which every manage.py command runs,
# refuse a directory that does not exist, and a fresh machine's /tmp has none.
Path(FILE_UPLOAD_TEMP_DIR).mkdir(mode=0o700, parents=True, exist_ok=True)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "leaderboard.api.throttling.FailureLimitedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "leaderboard.api.schema.PublicAwareAutoSchema",
    "EXCEPTION_HANDLER": "leaderboard.api.errors.envelope_exception_handler",
    # Over a rate: 429, Retry-After, code `throttled`. Rates are N/s, N/min, N/hour or N/day; "off" turns one off.
    "DEFAULT_THROTTLE_CLASSES": [
        "leaderboard.api.throttling.AnonThrottle",
        "leaderboard.api.throttling.UserThrottle",
        "leaderboard.api.throttling.ScopedThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        scope: None if rate.strip().lower() in ("", "off", "none") else rate.strip()
        for scope, rate in {
            "anon": env("THROTTLE_ANON_RATE", default="300/min"),
            "user": env("THROTTLE_USER_RATE", default="600/min"),
            "submissions": env("THROTTLE_SUBMISSION_RATE", default="120/hour"),
            "auth_failure": env("THROTTLE_AUTH_FAILURE_RATE", default="20/min"),
        }.items()
    },
}

# API tokens (django-rest-knox): only a SHA-512 digest of each token is stored, beside its first characters
# (`token_key`: the "dawn_" prefix and 10 more) by which staff recognise it in the admin. A token expires
# TOKEN_TTL_DAYS after it is issued; `manage.py rotate_token NAME` issues a new one. Clients send
# `Authorization: Token <token>`. Expiry is never pushed back by use (AUTO_REFRESH): a token dies on its date.
TOKEN_TTL_DAYS = env.int("TOKEN_TTL_DAYS", default=365)
REST_KNOX = {
    "TOKEN_TTL": timedelta(days=TOKEN_TTL_DAYS),
    "TOKEN_PREFIX": "dawn_",
    "AUTH_HEADER_PREFIX": "Token",
    "AUTO_REFRESH": False,
    # Stated, not left to knox's defaults: every stored digest (migrated tokens' too) is of this hash, and a
    # new token is 64 hex characters after its prefix, 256 random bits.
    "SECURE_HASH_ALGORITHM": "hashlib.sha512",
    "AUTH_TOKEN_CHARACTER_LENGTH": 64,
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
        "SubmissionStatusEnum": ["pending", "accepted", "rejected", "failed", "valid"],
        "EntryStatusEnum": "leaderboard.models.Entry.Status",
        "SubmissionSourceEnum": "leaderboard.models.Submission.Source",
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
    "benchmarks.algorithm_trial": {"queue": CELERY_REFERENCE_QUEUE},
    "inference.measure": {"queue": CELERY_REFERENCE_QUEUE},
}
CELERY_TASK_EAGER_PROPAGATES = True
# Task results are not kept, but a reference run's progress is its task state (PROGRESS, with the epoch, step
# and latest quality): with a Redis broker the same Redis keeps those states by default.
CELERY_RESULT_BACKEND = env("CELERY_RESULT_BACKEND", default="") or (
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else None
)
CELERY_TASK_IGNORE_RESULT = True
# No submission lost with a worker: a message is acknowledged only once its task has finished, a child killed
# mid-task hands its message back, and Redis hands out again a message a dead worker held, after the visibility
# timeout. A second delivery of a message still being judged finds the submission leased and leaves it, so the
# timeout is kept short: shorter than the judge's hard limit, so a lost judging is redone within minutes rather
# than the hour Redis waits by default.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A worker takes a message only when a slot is free, so none waits unacknowledged behind a long task (a
# reference run of hours) where the short visibility timeout would hand it to a second worker meanwhile.
CELERY_WORKER_DISABLE_PREFETCH = True
CELERY_TASK_TIME_LIMIT = 10 * 60
CELERY_TASK_SOFT_TIME_LIMIT = 9 * 60
SUBMISSION_JUDGE_SOFT_TIME_LIMIT_SECONDS = env.int("SUBMISSION_JUDGE_SOFT_TIME_LIMIT_SECONDS", default=120)
SUBMISSION_JUDGE_TIME_LIMIT_SECONDS = SUBMISSION_JUDGE_SOFT_TIME_LIMIT_SECONDS + 30
CELERY_VISIBILITY_TIMEOUT = env.int("CELERY_VISIBILITY_TIMEOUT", default=SUBMISSION_JUDGE_SOFT_TIME_LIMIT_SECONDS)
# A web request never waits long on a broker that is down: it answers 503 `queue_unavailable` and stores nothing.
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": CELERY_VISIBILITY_TIMEOUT,
    "socket_connect_timeout": 2,
    "socket_timeout": 5,
}
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.5, "interval_max": 0.5}
# The sweep (Celery beat: `celery -A config beat`) queues again a submission pending longer than the deadline
# and not leased by a worker; one whose judging started SUBMISSION_JUDGE_MAX_TRIES times without a verdict (a
# file that kills its worker) is recorded `failed` (`judging_failed`). One merely waiting in a backlog never is.
SUBMISSION_JUDGE_DEADLINE_SECONDS = env.int(
    "SUBMISSION_JUDGE_DEADLINE_SECONDS", default=CELERY_VISIBILITY_TIMEOUT + SUBMISSION_JUDGE_TIME_LIMIT_SECONDS
)
SUBMISSION_JUDGE_MAX_TRIES = env.int("SUBMISSION_JUDGE_MAX_TRIES", default=3)
SUBMISSION_SWEEP_SECONDS = env.int("SUBMISSION_SWEEP_SECONDS", default=60)
CELERY_BEAT_SCHEDULE = {
    "submissions-sweep": {"task": "leaderboard.submissions_sweep", "schedule": SUBMISSION_SWEEP_SECONDS},
    # The boards by a catalog price "today": entries whose machine's quote started or ended since they were priced
    # are priced again (leaderboard.services.policy_costs); a probe of an index on the days nothing did.
    "policy-costs-expire": {"task": "leaderboard.policy_costs_expire", "schedule": 3600},
    # A reference run whose worker was killed outright stops renewing its lease: this ends it `failed`.
    "reference-runs-sweep": {"task": "benchmarks.reference_runs_sweep", "schedule": SUBMISSION_SWEEP_SECONDS},
}
# A running reference job's worker renews its lease every REFERENCE_RUN_HEARTBEAT_SECONDS (a thread beside the
# training); a run not renewed for REFERENCE_RUN_LEASE_SECONDS was lost with its worker, and the sweep ends it.
REFERENCE_RUN_HEARTBEAT_SECONDS = env.float("REFERENCE_RUN_HEARTBEAT_SECONDS", default=30.0)
REFERENCE_RUN_LEASE_SECONDS = env.float("REFERENCE_RUN_LEASE_SECONDS", default=120.0)
# An Idempotency-Key is remembered this long per submitter.
IDEMPOTENCY_KEY_HOURS = 24


def site_logging(*, default_format: str) -> dict:
    """Django's LOGGING from LOG_FORMAT (`default_format` where unset), LOG_LEVEL and CELERY_TRACE_LOG_LEVEL."""
    return logging_settings(
        log_format=env("LOG_FORMAT", default=default_format),
        level=env("LOG_LEVEL", default="INFO"),
        celery_trace_level=env("CELERY_TRACE_LOG_LEVEL", default="WARNING"),
    )


# Logs (config/logs.py): one JSON object a line with the request's id, the Celery task's and the submission's
# (LOG_FORMAT=json), or one readable line (LOG_FORMAT=plain, the local site's default).
LOGGING = site_logging(default_format="json")
structlog_configure()
# The request's id: a proxy's X-Request-ID where one sends it (nginx's $request_id), else a new UUID.
DJANGO_STRUCTLOG_CELERY_ENABLED = True
DJANGO_STRUCTLOG_TRUST_UPSTREAM_REQUEST_ID = env.bool("TRUST_UPSTREAM_REQUEST_ID", default=BEHIND_TLS_PROXY)
# Client addresses stay out of the logs (the throttles and the admin lockout keep what they need).
DJANGO_STRUCTLOG_IP_LOGGING_ENABLED = False
# A Celery worker logs through LOGGING above, not its own format.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# /metrics (config/metrics.py) is served to these client addresses or networks (e.g. 127.0.0.1,10.0.0.0/8) and to
# signed-in staff; anyone else gets 404. Empty by default: behind a proxy without BEHIND_TLS_PROXY every client
# would look like the proxy's own address.
METRICS_ALLOWED_IPS = env.list("METRICS_ALLOWED_IPS", default=[])

# /health/ (config/health.py) answers 503 when a work queue holds more messages than this, or the disk holding the
# submitted files is this full.
HEALTH_MAX_QUEUE_DEPTH = env.int("HEALTH_MAX_QUEUE_DEPTH", default=1000)
HEALTH_MAX_DISK_USAGE_PERCENT = env.float("HEALTH_MAX_DISK_USAGE_PERCENT", default=95.0)

# Reference runs started through the API read datasets from REFERENCE_DATA_DIR/<task>/ (CIFAR-10 python
# batches, ImageNet folders, SQuAD JSON; digits needs none) and write their files under REFERENCE_RUNS_DIR.
REFERENCE_DATA_DIR = env("REFERENCE_DATA_DIR", default=str(BASE_DIR / "data"))
REFERENCE_RUNS_DIR = env("REFERENCE_RUNS_DIR", default=str(BASE_DIR / "runs"))
# With no broker, may `POST /api/v1/reference-runs/` train in the request itself? Yes on the local site (a
# digits run takes seconds); production says no: a run of hours must go to a worker.
REFERENCE_RUNS_IN_REQUEST = env.bool("REFERENCE_RUNS_IN_REQUEST", default=True)

# The public results archives `import_dawnbench --from-github` and `import_mlperf --from-github ROUND` download, on
# request only (docs/submitting/public-archives.md): from this base URL (codeload.github.com's layout), cached in
# this folder, each download at most this many bytes, and unpacked to at most this many; a server that does not
# accept the connection within the timeout counts as offline.
# Unset: GitHub's own (dawnboard.archives.GITHUB_ARCHIVE_URL, not imported here: its tarfile would load at every start).
DAWNBOARD_GITHUB_ARCHIVE_URL = env("DAWNBOARD_GITHUB_ARCHIVE_URL", default="")
DAWNBOARD_ARCHIVE_CACHE = env("DAWNBOARD_ARCHIVE_CACHE", default=str(BASE_DIR / ".cache" / "archives"))
DAWNBOARD_ARCHIVE_MAX_BYTES = env.int("DAWNBOARD_ARCHIVE_MAX_BYTES", default=2 * 1024**3)
DAWNBOARD_ARCHIVE_MAX_UNPACKED_BYTES = env.int("DAWNBOARD_ARCHIVE_MAX_UNPACKED_BYTES", default=16 * 1024**3)
DAWNBOARD_ARCHIVE_CONNECT_TIMEOUT_SECONDS = env.float("DAWNBOARD_ARCHIVE_CONNECT_TIMEOUT_SECONDS", default=5.0)
