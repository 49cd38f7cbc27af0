"""What a web process needs before it answers a request, checked when gunicorn loads it (`config.wsgi`): a process
that cannot serve stops at start, saying what to run, rather than answering 500s.

Production's static storage names every static file by its hashed name from the manifest that only a
`collectstatic` under the same settings writes: without it, every page that links a static file (an entry, the
charts, the submit page, the API docs, a 404) raised "Missing staticfiles manifest entry".
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.staticfiles.storage import staticfiles_storage
from django.core.exceptions import ImproperlyConfigured


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


def refuse_to_serve_without_static_files() -> None:
    """Raise ImproperlyConfigured, saying what to run, where the static files were not collected."""
    problem = static_manifest_problem()
    if problem is not None:
        raise ImproperlyConfigured(problem)
