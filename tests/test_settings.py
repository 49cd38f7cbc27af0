"""Settings come from the environment; production refuses to start without a secret key."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load_settings(module: str, **env: str) -> subprocess.CompletedProcess:
    clean = {
        key: value
        for key, value in os.environ.items()
        if key not in ("SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL")
    }
    code = (
        "from django.conf import settings; "
        "print(settings.DATABASES['default']['ENGINE'], settings.CELERY_TASK_ALWAYS_EAGER)"
    )
    return subprocess.run(
        [sys.executable, "-c", f"import django, os; os.environ['DJANGO_SETTINGS_MODULE']='{module}'; {code}"],
        env={**clean, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def test_production_settings_refuse_to_load_without_a_secret_key():
    result = _load_settings("config.settings.production")

    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_default_is_sqlite_with_in_process_tasks():
    result = _load_settings("config.settings.local")

    assert result.stdout.split() == ["django.db.backends.sqlite3", "True"]


def test_database_url_and_broker_url_switch_to_postgresql_and_a_worker():
    result = _load_settings(
        "config.settings.production",
        SECRET_KEY="x",
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/dawnboard",
        CELERY_BROKER_URL="redis://127.0.0.1:6379/0",
    )

    assert result.stdout.split() == ["django.db.backends.postgresql", "False"], result.stderr
