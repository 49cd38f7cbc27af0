"""Production (gunicorn + PostgreSQL + a Redis-backed Celery worker). SECRET_KEY has no default here."""

from config.settings.base import *  # noqa: F403
from config.settings.base import env

DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env("SECRET_KEY")
# HTTPS only. Over plain http (a soak run on loopback) set SECURE_SSL_REDIRECT, SESSION_COOKIE_SECURE and
# CSRF_COOKIE_SECURE to false. Behind a TLS-terminating proxy set BEHIND_TLS_PROXY (base.py), or every request
# looks like http and is redirected forever.
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=True)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=True)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=365 * 24 * 60 * 60)
# Both bind every subdomain of the domain, and preload lists take months to leave: only the operator can choose
# them. Left off, `check --deploy`'s reminders of them (W005, W021) are silenced, as that choice was made here.
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=False)
SILENCED_SYSTEM_CHECKS = [
    *SILENCED_SYSTEM_CHECKS,  # noqa: F405
    *([] if SECURE_HSTS_INCLUDE_SUBDOMAINS else ["security.W005"]),
    *([] if SECURE_HSTS_PRELOAD else ["security.W021"]),
]
# Static files under hashed names (collectstatic), gzipped beforehand: whitenoise serves a hashed name with a
# year-long `immutable` cache header, so a reader fetches plotly.js once per release.
STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
# A reference run of hours never trains inside a web request: without a broker the API refuses it.
REFERENCE_RUNS_IN_REQUEST = env.bool("REFERENCE_RUNS_IN_REQUEST", default=False)
# One PostgreSQL connection per gunicorn worker, kept between requests: opening one costs about 5 ms, more than
# a cached page. Health checks drop a connection the server closed instead of failing the next request on it.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=600)  # noqa: F405
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True  # noqa: F405
