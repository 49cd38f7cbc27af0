"""What a process needs before it serves, checked when gunicorn loads it (`config.wsgi`) and when a Celery worker
starts (`config.celery_app`): a process that cannot serve stops at start, saying what to run, rather than answering
500s (or judging nothing): its static files (web only), its database, and its broker.

Production's static storage names every static file by its hashed name from the manifest that only a
`collectstatic` under the same settings writes: without it, every page that links a static file (an entry, the
charts, the submit page, the API docs, a 404) raised "Missing staticfiles manifest entry".
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles.storage import staticfiles_storage
from django.core.exceptions import ImproperlyConfigured
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.utils import Error as DatabaseError

BROKER_TIMEOUT_SECONDS = 3.0


def static_manifest_problem() -> str | None:
    """Why the static files cannot be served (their storage reads a manifest that is not there), or None."""
    manifest_name = getattr(staticfiles_storage, "manifest_name", None)
    if manifest_name is None:  # a storage that names files as they are (local settings): nothing to read
        return None
    if staticfiles_storage.manifest_storage.exists(manifest_name):
        return None
    return (
        f"No static files manifest ({manifest_name}) in STATIC_ROOT {settings.STATIC_ROOT}: the pages could not name "
        f"their static files. Collect them with this process's settings first: DJANGO_SETTINGS_MODULE="
        f"{settings.SETTINGS_MODULE} .venv/bin/python manage.py collectstatic --noinput (with the same STATIC_ROOT)."
    )


def database_problem() -> str | None:
    """Why the database cannot serve (it cannot be reached, or was never migrated), or None. Pending migrations of
    a database migrated before are /health/'s to report: a deploy migrates while the old processes still serve."""
    connection = connections[DEFAULT_DB_ALIAS]
    where = _database_named(connection.settings_dict)
    migrate = f"DJANGO_SETTINGS_MODULE={settings.SETTINGS_MODULE} .venv/bin/python manage.py migrate"
    name = str(connection.settings_dict.get("NAME") or "")
    if connection.vendor == "sqlite" and name and ":memory:" not in name and "mode=memory" not in name:
        if not Path(name).exists():
            return f"No database: the SQLite file {name} does not exist. Create it: {migrate}"
    try:
        with connection.cursor():
            tables = connection.introspection.table_names()
    except DatabaseError as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return (
            f"The database {where} cannot be reached ({first_line}). Start it, or point DATABASE_URL at one "
            f"(e.g. postgres://postgres@127.0.0.1:5432/dawnboard), then run: {migrate}"
        )
    finally:
        connection.close()
    if "django_migrations" not in tables:
        return f"The database {where} has no tables: it was never migrated. Run: {migrate}"
    return None


def broker_problem() -> str | None:
    """Why the Celery broker cannot take work (no answer within a few seconds), or None; None also where tasks run
    in-process (no CELERY_BROKER_URL)."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return None
    from leaderboard.selectors.operations import queue_depths  # the one read of the broker (health, metrics too)

    try:
        queue_depths(timeout=BROKER_TIMEOUT_SECONDS)
    except Exception as error:  # kombu's OperationalError: refused, timed out, a name that does not resolve
        return (
            f"The broker {_without_password(settings.CELERY_BROKER_URL)} cannot be reached ({type(error).__name__}: "
            f"{error}). Start it (e.g. redis-server), or point CELERY_BROKER_URL at one; with none set, tasks run "
            "in the web process."
        )
    return None


def _database_named(settings_dict: dict) -> str:
    host, port = settings_dict.get("HOST") or "", settings_dict.get("PORT") or ""
    location = f"{host}:{port}/" if host else ""
    return f"{location}{settings_dict.get('NAME')}"


def _without_password(url: str) -> str:
    scheme, _, rest = url.partition("://")
    _, at, host = rest.rpartition("@")
    return f"{scheme}://{'***@' if at else ''}{host}" if rest else url


def serving_problems(*, web: bool) -> list[str]:
    """Every reason this process cannot serve (static files for a web process, database, broker)."""
    checks = [static_manifest_problem] if web else []
    checks += [database_problem, broker_problem]
    return [problem for check in checks if (problem := check()) is not None]


def refuse_to_serve_without_static_files() -> None:
    """Raise ImproperlyConfigured, saying what to run, where the static files were not collected."""
    problem = static_manifest_problem()
    if problem is not None:
        raise ImproperlyConfigured(problem)


def refuse_to_serve_unready(*, web: bool) -> None:
    """Raise ImproperlyConfigured, saying what to run, where the process cannot serve."""
    problems = serving_problems(web=web)
    if problems:
        raise ImproperlyConfigured(" ".join(problems))
