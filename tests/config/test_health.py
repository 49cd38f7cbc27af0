"""`/health/` (config/health.py): 200 when the database, cache, broker, disk, migrations and queues are well; 503
naming what failed; JSON with `Accept: application/json`; no server path in what it says."""

from __future__ import annotations

import time

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

CHECKS = {"Database(alias='default')", "Cache(alias='default')", "Broker()", "Disk()", "Migrations()", "QueueDepth()"}


def health(client: Client, **headers):
    return client.get("/health/", headers={"Accept": "application/json", **headers})


def test_all_well_answers_200_with_every_check_ok_in_json(client):
    response = health(client)

    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert response.json() == dict.fromkeys(CHECKS, "OK")
    assert "no-cache" in response["Cache-Control"]


def test_a_broker_that_cannot_be_reached_answers_503_naming_it(client, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    from celery import current_app

    current_app.conf.broker_url = settings.CELERY_BROKER_URL
    try:
        started = time.monotonic()
        response = health(client)
        answered_after = time.monotonic() - started
    finally:
        current_app.conf.broker_url = ""

    assert response.status_code == 503
    assert response.json()["Broker()"].startswith("Unavailable: the broker cannot be reached")
    assert response.json()["Database(alias='default')"] == "OK"
    # A refused connection is tried again after 0.25 s, not kombu's 2 s: the load balancer hears of it at once.
    assert answered_after < 1.5, f"a refused broker took {answered_after:.2f} s to report"


def test_a_full_disk_and_a_deep_queue_answer_503_and_say_how_full(client, settings, monkeypatch):
    settings.HEALTH_MAX_DISK_USAGE_PERCENT = 0.0
    settings.HEALTH_MAX_QUEUE_DEPTH = 5
    monkeypatch.setattr("config.health.queue_depths", lambda timeout: {"judging": 6, "reference": 0})

    body = health(client).json()

    assert body["QueueDepth()"] == "Warning: messages waiting over 5: judging 6"
    assert body["Disk()"].startswith("Warning: the files' disk is ") and "GiB free" in body["Disk()"]
    assert "/" not in body["Disk()"].split("full")[0]  # no server path


def test_unapplied_migrations_answer_503_saying_to_migrate(client, monkeypatch):
    class Migration:
        app_label, name = "leaderboard", "9999_future"

    monkeypatch.setattr(
        "django.db.migrations.executor.MigrationExecutor.migration_plan", lambda self, targets: [(Migration, False)]
    )

    response = health(client)

    assert response.status_code == 503
    assert response.json()["Migrations()"] == (
        "Unavailable: 1 migration(s) not applied (leaderboard.9999_future): run manage.py migrate"
    )


def test_a_browser_gets_the_html_page_and_plain_text_its_lines(client):
    assert b"<html" in client.get("/health/", headers={"Accept": "text/html"}).content.lower()
    text = client.get("/health/", headers={"Accept": "text/plain"}).content.decode()
    assert "Migrations(): OK" in text.splitlines()


def test_the_broker_and_queue_checks_share_one_reading_of_the_queues_a_request(client, monkeypatch):
    readings = []

    def queue_depths(timeout):
        readings.append(timeout)
        return {"judging": 0, "reference": 0}

    monkeypatch.setattr("config.health.queue_depths", queue_depths)

    assert health(client).json() == dict.fromkeys(CHECKS, "OK")
    assert readings == [2.0]  # one connection, for both checks
    health(client)
    assert readings == [2.0, 2.0]  # and a new one for the next request
