"""Celery wiring. With no CELERY_BROKER_URL the settings make every task run in-process (eager)."""

import os

from celery import Celery

# A worker is a deployment's process, like gunicorn: production unless told otherwise. This module is imported
# by `config/__init__.py` before `config/wsgi.py` runs, so its default is also gunicorn's.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

app = Celery("dawnboard")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
