"""A reference run never stays `running`: its worker renews a lease while it trains (a heartbeat thread), and the
sweep (Celery beat's `benchmarks.reference_runs_sweep`) ends `failed`, with the reason, a run past its lease."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.db import OperationalError
from django.db.models import QuerySet
from django.utils import timezone

from benchmarks import services
from benchmarks.models import ReferenceRun
from benchmarks.tasks import reference_runs_sweep_task

pytestmark = pytest.mark.django_db(transaction=True)  # the heartbeat writes from its own thread


def running(*, lease_until, started_ago=timedelta(minutes=1)) -> ReferenceRun:
    run = ReferenceRun.objects.create(task_slug="digits", recipe="cnn")
    ReferenceRun.objects.filter(id=run.id).update(
        state=ReferenceRun.State.RUNNING, started_at=timezone.now() - started_ago, lease_until=lease_until
    )
    return run


def test_the_sweep_ends_a_run_past_its_lease_failed_saying_why_and_leaves_a_live_one():
    now = timezone.now()
    lost = running(lease_until=now - timedelta(seconds=1))
    live = running(lease_until=now + timedelta(seconds=60))

    assert reference_runs_sweep_task() == 1

    lost.refresh_from_db(), live.refresh_from_db()
    assert lost.state == "failed" and lost.finished_at is not None and lost.lease_until is None
    assert lost.error.startswith("The worker running it was lost: its lease ran out at ")
    assert "Start it again." in lost.error
    assert live.state == "running" and live.error == ""
    assert reference_runs_sweep_task() == 0  # ended once


def test_a_run_started_before_leases_is_lost_once_it_ran_a_whole_lease_without_one(settings):
    settings.REFERENCE_RUN_LEASE_SECONDS = 60
    old = running(lease_until=None, started_ago=timedelta(seconds=61))
    recent = running(lease_until=None, started_ago=timedelta(seconds=10))

    assert reference_runs_sweep_task() == 1

    old.refresh_from_db(), recent.refresh_from_db()
    assert old.state == "failed" and "it held no lease" in old.error and recent.state == "running"


def test_a_training_run_renews_its_lease_and_gives_it_up_when_it_ends(settings, tmp_path, monkeypatch):
    settings.REFERENCE_RUNS_DIR = str(tmp_path)
    settings.REFERENCE_RUN_HEARTBEAT_SECONDS = 0.05
    settings.REFERENCE_RUN_LEASE_SECONDS = 60
    run = ReferenceRun.objects.create(task_slug="digits", recipe="cnn", submit=False)
    leases, renewed = [], threading.Event()

    def training(config, out_dir, *, progress):  # the job, standing still until the heartbeat has renewed twice
        while len(leases) < 3:
            lease = ReferenceRun.objects.get(id=run.id).lease_until
            if not leases or lease != leases[-1]:
                leases.append(lease)
            renewed.wait(0.02)
        raise RuntimeError("stopped by the test")

    monkeypatch.setattr("benchmarks.runner.job.reference_run", training)

    assert services.reference_run_execute(run_id=run.id) == "failed"

    assert leases == sorted(leases) and len(set(leases)) == 3  # claimed with a lease, then renewed
    run.refresh_from_db()
    assert run.lease_until is None and run.error == "RuntimeError: stopped by the test"
    assert not any(thread.name.endswith("-heartbeat") for thread in threading.enumerate())


def test_the_heartbeat_survives_a_database_error_and_renews_again(settings, monkeypatch):
    settings.REFERENCE_RUN_HEARTBEAT_SECONDS = 0.02
    run = running(lease_until=timezone.now())
    real_update, calls = QuerySet.update, []

    def update(queryset, **fields):  # the first renewal meets a database going away
        calls.append(fields)
        if "lease_until" in fields and len(calls) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return real_update(queryset, **fields)

    monkeypatch.setattr(QuerySet, "update", update)
    before = ReferenceRun.objects.get(id=run.id).lease_until
    with services._heartbeat(run.id):
        deadline = time.monotonic() + 5
        while ReferenceRun.objects.get(id=run.id).lease_until == before and time.monotonic() < deadline:
            time.sleep(0.02)

    assert len(calls) >= 2 and ReferenceRun.objects.get(id=run.id).lease_until > before


def test_a_run_the_sweep_ended_keeps_that_ending_when_its_training_finishes_after_all():
    run = running(lease_until=timezone.now() - timedelta(seconds=1))
    reference_runs_sweep_task()

    assert services._finish(run.id, ReferenceRun.State.SUCCEEDED, outcome={"reached": True}) == "failed"
    run.refresh_from_db()
    assert run.state == "failed" and run.outcome is None and run.error.startswith("The worker running it was lost")
