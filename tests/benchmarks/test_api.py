"""The reference-runs API and the Celery task: staff start a run, anyone reads its state and progress."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from knox.models import AuthToken
from rest_framework.test import APIClient

from benchmarks.models import ReferenceRun
from benchmarks.tasks import reference_run_task

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(settings, tmp_path) -> APIClient:
    settings.REFERENCE_RUNS_DIR = str(tmp_path / "runs")
    settings.REFERENCE_DATA_DIR = str(tmp_path / "data")
    user = get_user_model().objects.create_user("staff", password="x", is_staff=True)
    client = APIClient()
    _, token = AuthToken.objects.create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_staff_start_a_run_and_anyone_reads_its_state(
    staff_client, anonymous_client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.post(
            "/api/v1/reference-runs/", {"task": "digits", "max_epochs": 1, "seed": 3}, format="json"
        )

    assert response.status_code == 202
    run = anonymous_client.get(f"/api/v1/reference-runs/{response.json()['id']}/").json()
    assert (run["task"], run["recipe"], run["seed"]) == ("digits", "cnn", 3)
    assert run["state"] == "succeeded"
    assert run["progress"]["epoch"] == 1 and run["progress"]["quality"] is not None
    assert run["progress"]["step"] == run["progress"]["steps_per_epoch"] == 21
    assert run["outcome"]["reached"] is False  # one epoch is short of 98 %
    assert "submission" not in run["outcome"]
    assert run["outcome"]["files"]["record"] == "run.json" and "paths" not in run["outcome"]  # no server paths
    expected = ".venv/bin/python manage.py run_reference digits --recipe cnn --seed 3 --device cpu --max-epochs 1"
    assert run["command"] == expected


def test_a_submitter_who_is_not_staff_cannot_start_one(api_client):
    response = api_client.post("/api/v1/reference-runs/", {"task": "digits"}, format="json")

    assert response.status_code == 403
    assert ReferenceRun.objects.count() == 0


def test_an_unknown_recipe_is_refused_with_its_code(staff_client):
    response = staff_client.post("/api/v1/reference-runs/", {"task": "cifar10", "recipe": "vgg"}, format="json")

    assert response.status_code == 400
    assert [(error["code"], error["field"]) for error in response.json()["errors"]] == [("unknown_recipe", "recipe")]
    assert ReferenceRun.objects.count() == 0


def test_a_run_without_its_dataset_fails_with_the_reason(staff_client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.post("/api/v1/reference-runs/", {"task": "squad"}, format="json")

    run = ReferenceRun.objects.get(id=response.json()["id"])
    assert run.state == ReferenceRun.State.FAILED
    assert "train-v1.1.json" in run.error


def test_an_unexpected_failure_ends_the_run_as_failed(settings, tmp_path, monkeypatch):
    settings.REFERENCE_RUNS_DIR = str(tmp_path)
    run = ReferenceRun.objects.create(task_slug="digits", recipe="cnn", max_epochs=1)

    def disk_full(*args, **kwargs):
        raise OSError("No space left on device")

    monkeypatch.setattr("benchmarks.runner.job.reference_run", disk_full)  # services imports it per run

    assert reference_run_task.apply(args=[run.id]).get() == "failed"
    run.refresh_from_db()
    assert (run.state, run.error) == ("failed", "OSError: No space left on device")
    assert run.finished_at is not None


def test_without_a_worker_production_refuses_to_train_in_the_request(staff_client, settings):
    settings.REFERENCE_RUNS_IN_REQUEST = False

    response = staff_client.post("/api/v1/reference-runs/", {"task": "digits"}, format="json")

    assert response.status_code == 503
    assert [error["code"] for error in response.json()["errors"]] == ["no_reference_worker"]
    assert ReferenceRun.objects.count() == 0


def test_a_seed_too_large_to_store_is_refused(staff_client):
    response = staff_client.post("/api/v1/reference-runs/", {"task": "digits", "seed": 2**31}, format="json")

    assert response.status_code == 400
    assert [(error["code"], error["field"]) for error in response.json()["errors"]] == [("max_value", "seed")]


def test_the_celery_task_runs_a_queued_run_once(settings, tmp_path):
    settings.REFERENCE_RUNS_DIR = str(tmp_path)
    run = ReferenceRun.objects.create(task_slug="digits", recipe="cnn", max_epochs=1, submit=False)

    assert reference_run_task.apply(args=[run.id]).get() == "succeeded"
    run.refresh_from_db()
    assert run.started_at <= run.finished_at
    assert (tmp_path / f"digits-cnn-run{run.id}" / "run.json").is_file()
    assert reference_run_task.apply(args=[run.id]).get() == "succeeded"  # delivered again: not run again


def test_an_unknown_run_is_404(anonymous_client):
    assert anonymous_client.get("/api/v1/reference-runs/999/").status_code == 404


def test_a_run_whose_submission_finds_the_queue_down_succeeds_and_says_it_was_not_submitted(
    settings, tmp_path, monkeypatch
):
    """Hours of training are not thrown away because the broker is down at the end."""
    from leaderboard.services import QueueUnavailable

    settings.REFERENCE_RUNS_DIR = str(tmp_path)
    run = ReferenceRun.objects.create(task_slug="digits", recipe="cnn", max_epochs=8, submit=True)

    def queue_down(**kwargs):
        raise QueueUnavailable("The judging queue is unreachable; nothing was stored.")

    monkeypatch.setattr("benchmarks.services.submission_create", queue_down)

    assert reference_run_task.apply(args=[run.id]).get() == "succeeded"
    run.refresh_from_db()
    assert run.outcome["submission"]["status"] == "not_submitted"
    assert run.outcome["submission"]["errors"][0]["code"] == "queue_unavailable"


def test_a_run_the_broker_refuses_ends_failed_saying_so_not_queued_forever(
    staff_client, settings, monkeypatch, django_capture_on_commit_callbacks
):
    from celery import current_app
    from kombu.exceptions import OperationalError

    settings.CELERY_TASK_ALWAYS_EAGER = False

    def broker_down(*args, **kwargs):
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(current_app, "send_task", broker_down)
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.post("/api/v1/reference-runs/", {"task": "digits"}, format="json")

    run = ReferenceRun.objects.get(id=response.json()["id"])
    assert run.state == ReferenceRun.State.FAILED
    assert "queue was unreachable" in run.error
