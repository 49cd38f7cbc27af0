"""Celery wiring. With no CELERY_BROKER_URL the settings make every task run in-process (eager)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("dawnboard")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
