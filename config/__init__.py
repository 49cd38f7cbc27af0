"""Dawnboard's Django project. Importing it loads the Celery app so `shared_task`s bind to it."""

from config.celery_app import app as celery_app

__all__ = ("celery_app",)
