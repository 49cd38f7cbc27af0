"""Production (gunicorn + PostgreSQL + a Redis-backed Celery worker). SECRET_KEY has no default here."""

from config.settings.base import *  # noqa: F403
from config.settings.base import env

DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env("SECRET_KEY")
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=True)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=True)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# A reference run of hours never trains inside a web request: without a broker the API refuses it.
REFERENCE_RUNS_IN_REQUEST = env.bool("REFERENCE_RUNS_IN_REQUEST", default=False)
