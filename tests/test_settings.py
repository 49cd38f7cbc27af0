"""Settings come from the environment; production refuses to start without a secret key."""

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


# Settings read from the environment that these tests set themselves, or that must not leak in from the shell.
CONTROLLED = ("SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL", "BEHIND_TLS_PROXY", "ALLOWED_HOSTS", "DEBUG")
ENGINE_AND_EAGER = "print(settings.DATABASES['default']['ENGINE'], settings.CELERY_TASK_ALWAYS_EAGER)"
# 50+ characters, many of them distinct, as `check --deploy` asks of a real key.
DEPLOY_SECRET_KEY = "k3Jq9vZ2xW8pL4mN7bR1tY6uE0aS5dF2gH8jK4lZ9xC3vB7nM1qW5eR0tY2uI6oP"


def _clean_environment(**env: str) -> dict[str, str]:
    clean = {key: value for key, value in os.environ.items() if key not in CONTROLLED}
    return {**clean, "PYTHONPATH": str(ROOT), **env}


def _load_settings(module: str, code: str = ENGINE_AND_EAGER, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-c",
            f"import django, os; os.environ['DJANGO_SETTINGS_MODULE']='{module}'; "
            f"from django.conf import settings; {code}",
        ],
        env=_clean_environment(**env),
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


def test_production_passes_the_deploy_check_with_no_warning():
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        env=_clean_environment(
            DJANGO_SETTINGS_MODULE="config.settings.production",
            SECRET_KEY=DEPLOY_SECRET_KEY,
            ALLOWED_HOSTS="example.org",
        ),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )

    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr
    assert "no issues" in result.stdout


def test_production_redirects_to_https_and_sends_hsts_for_a_year():
    code = "print(settings.SECURE_SSL_REDIRECT, settings.SECURE_HSTS_SECONDS, settings.SESSION_COOKIE_SECURE)"

    result = _load_settings("config.settings.production", code, SECRET_KEY="x")

    assert result.stdout.split() == ["True", "31536000", "True"], result.stderr


def test_plain_http_soak_runs_can_turn_https_off_from_the_environment():
    code = "print(settings.SECURE_SSL_REDIRECT, settings.SESSION_COOKIE_SECURE, settings.CSRF_COOKIE_SECURE)"

    result = _load_settings(
        "config.settings.production",
        code,
        SECRET_KEY="x",
        SECURE_SSL_REDIRECT="false",
        SESSION_COOKIE_SECURE="false",
        CSRF_COOKIE_SECURE="false",
    )

    assert result.stdout.split() == ["False", "False", "False"], result.stderr


def test_forwarded_proto_is_not_believed_without_a_tls_proxy():
    code = "print(getattr(settings, 'SECURE_PROXY_SSL_HEADER', None))"

    result = _load_settings("config.settings.production", code, SECRET_KEY="x")

    assert result.stdout.strip() == "None", result.stderr


def test_behind_a_tls_proxy_forwarded_proto_is_believed():
    code = "print(settings.SECURE_PROXY_SSL_HEADER)"

    result = _load_settings("config.settings.production", code, SECRET_KEY="x", BEHIND_TLS_PROXY="true")

    assert result.stdout.strip() == "('HTTP_X_FORWARDED_PROTO', 'https')", result.stderr


def test_throttle_rates_and_the_lockout_come_from_the_environment():
    code = "print(settings.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES'], settings.AXES_FAILURE_LIMIT)"

    result = _load_settings(
        "config.settings.production",
        code,
        SECRET_KEY="x",
        THROTTLE_ANON_RATE="1/s",
        THROTTLE_USER_RATE="2/s",
        THROTTLE_SUBMISSION_RATE="3/hour",
        THROTTLE_AUTH_FAILURE_RATE="off",
        AXES_FAILURE_LIMIT="7",
    )

    assert result.stdout.strip() == (
        "{'anon': '1/s', 'user': '2/s', 'submissions': '3/hour', 'auth_failure': None} 7"
    ), result.stderr


def test_gunicorn_and_the_worker_load_production_settings_unless_told_otherwise(tmp_path):
    """`gunicorn config.wsgi` imports the `config` package (and its Celery app) first: both must mean production."""
    code = (
        "import config.wsgi; from django.conf import settings; from config.celery_app import app; "
        "print(settings.SETTINGS_MODULE, settings.SECURE_SSL_REDIRECT, app.conf.worker_disable_prefetch)"
    )
    (tmp_path / "staticfiles.json").write_text('{"paths": {}, "version": "1.1"}')  # as collectstatic leaves it
    environment = {key: value for key, value in _clean_environment().items() if key != "DJANGO_SETTINGS_MODULE"}
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={
            **environment,
            **_migrated_sqlite(tmp_path),
            "SECRET_KEY": DEPLOY_SECRET_KEY,
            "STATIC_ROOT": str(tmp_path),
        },
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["config.settings.production", "True", "True"]


def test_gunicorn_refuses_to_start_without_the_static_files_saying_what_to_run(tmp_path):
    """The 500 trap: production pages name their static files from collectstatic's manifest. Without it the web
    process stops at start, naming the command with its own settings, instead of answering 500s."""
    environment = {key: value for key, value in _clean_environment().items() if key != "DJANGO_SETTINGS_MODULE"}
    result = subprocess.run(
        [sys.executable, "-c", "import config.wsgi"],
        env={**environment, "SECRET_KEY": DEPLOY_SECRET_KEY, "STATIC_ROOT": str(tmp_path)},
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )

    assert result.returncode != 0
    assert "ImproperlyConfigured: No static files manifest (staticfiles.json)" in result.stderr
    assert (
        "DJANGO_SETTINGS_MODULE=config.settings.production .venv/bin/python manage.py collectstatic --noinput"
        in result.stderr
    )


def _migrated_sqlite(tmp_path) -> dict[str, str]:
    """A SQLite database as `migrate` leaves it, as far as a start-up check reads it (its migrations table)."""
    path = tmp_path / "db.sqlite3"
    with sqlite3.connect(path) as database:
        database.execute("CREATE TABLE django_migrations (id integer primary key, app text, name text, applied text)")
    return {"DATABASE_URL": f"sqlite:///{path}"}


def _process_start(tmp_path, code: str, **environment: str) -> subprocess.CompletedProcess:
    (tmp_path / "staticfiles.json").write_text('{"paths": {}, "version": "1.1"}')
    clean = {key: value for key, value in _clean_environment().items() if key != "DJANGO_SETTINGS_MODULE"}
    return subprocess.run(
        [sys.executable, "-c", code],
        env={**clean, "SECRET_KEY": DEPLOY_SECRET_KEY, "STATIC_ROOT": str(tmp_path), **environment},
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


UNREADY = (  # what gunicorn's master runs at start (deploy/gunicorn.conf.py), under the production settings
    "import config, django; django.setup(); from config.serving import refuse_to_serve_unready; "
    "refuse_to_serve_unready(web=True)"
)


def test_a_web_process_refuses_to_start_without_its_database_saying_what_to_run(tmp_path):
    unreachable = _process_start(tmp_path, UNREADY, DATABASE_URL="postgres://postgres@127.0.0.1:1/x")
    missing = _process_start(tmp_path, UNREADY, DATABASE_URL=f"sqlite:///{tmp_path / 'none.sqlite3'}")
    empty = tmp_path / "empty.sqlite3"
    sqlite3.connect(empty).close()
    unmigrated = _process_start(tmp_path, UNREADY, DATABASE_URL=f"sqlite:///{empty}")

    assert unreachable.returncode != 0
    assert "ImproperlyConfigured: The database 127.0.0.1:1/x cannot be reached (" in unreachable.stderr
    assert "point DATABASE_URL at one" in unreachable.stderr
    assert f"No database: the SQLite file {tmp_path / 'none.sqlite3'} does not exist." in missing.stderr
    assert not (tmp_path / "none.sqlite3").exists()  # the check made none
    assert "has no tables: it was never migrated. Run: DJANGO_SETTINGS_MODULE=config.settings.production" in (
        unmigrated.stderr
    )


def test_gunicorn_refuses_to_start_without_its_broker_and_a_worker_too_saying_what_to_run(tmp_path):
    """The database and broker are checked once, in gunicorn's master (deploy/gunicorn.conf.py): it exits before
    any worker starts. A worker that boots later, during a short outage, is not stopped by them."""
    broker = {**_migrated_sqlite(tmp_path), "CELERY_BROKER_URL": "redis://:secret@127.0.0.1:1/0"}
    code = (
        "import sys; from gunicorn.app.wsgiapp import run; "
        "sys.argv = ['gunicorn', '-c', 'deploy/gunicorn.conf.py', '-b', '127.0.0.1:0', 'config.wsgi']; run()"
    )
    web = _process_start(tmp_path, code, **broker)
    worker = _process_start(
        tmp_path, "from config.celery_app import app; app.worker_main(['worker', '--pool', 'solo'])", **broker
    )
    a_worker_booting = _process_start(tmp_path, "import config.wsgi; print('serving')", **broker)

    for started in (web, worker):
        assert started.returncode != 0
        assert "The broker redis://***@127.0.0.1:1/0 cannot be reached (" in started.stderr
        assert "secret" not in started.stderr
    assert "Cannot start the worker: " in worker.stderr
    assert a_worker_booting.returncode == 0 and a_worker_booting.stdout.strip() == "serving"


def test_local_settings_read_no_manifest():
    from config.serving import static_manifest_problem

    assert static_manifest_problem() is None  # the test settings' storage names static files as they are
