"""Celery wiring. With no CELERY_BROKER_URL the settings make every task run in-process (eager)."""

import os

from celery import Celery
from celery.signals import worker_init
from django_structlog.celery.steps import DjangoStructLogInitStep

# A worker is a deployment's process, like gunicorn: production unless told otherwise. This module is imported
# by `config/__init__.py` before `config/wsgi.py` runs, so its default is also gunicorn's.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

app = Celery("dawnboard")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# Each task's log lines carry its task_id and the request_id of the request that queued it (config/logs.py).
app.steps["worker"].add(DjangoStructLogInitStep)


@worker_init.connect
def refuse_to_work_unready(**kwargs) -> None:
    """A worker whose database or broker cannot be reached stops at start, saying what to run."""
    from config.serving import serving_problems

    problems = serving_problems(web=False)
    if problems:
        raise SystemExit("Cannot start the worker: " + " ".join(problems))
