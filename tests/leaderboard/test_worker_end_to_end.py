"""End to end on the production stack: gunicorn, PostgreSQL, Redis and a real Celery worker.

The POST answers 202 `pending`; a worker process judges the stored upload and the submission URL
gives the verdict. Skipped, with the reason, where PostgreSQL or Redis is not running.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from tests.factories import entry_bytes, training_log

pytestmark = pytest.mark.services

ROOT = Path(__file__).resolve().parents[2]
STAFF_TOKEN_SCRIPT = (
    "from django.contrib.auth import get_user_model; from knox.models import AuthToken; "
    "user = get_user_model().objects.create_user('e2e-staff', password='x', is_staff=True); "
    "print(AuthToken.objects.create(user=user)[1])"
)
POSTGRES = ("127.0.0.1", 5432)
REDIS = ("127.0.0.1", 6379)


def _reachable(address: tuple[str, int]) -> bool:
    try:
        with socket.create_connection(address, timeout=1):
            return True
    except OSError:
        return False


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    for name, address in (("PostgreSQL", POSTGRES), ("Redis", REDIS)):
        if not _reachable(address):
            pytest.skip(f"{name} is not running on {address[0]}:{address[1]}; this test needs the real service")
    import psycopg

    database = f"dawnboard_e2e_{uuid.uuid4().hex[:10]}"
    admin = psycopg.connect(host=POSTGRES[0], port=POSTGRES[1], user="postgres", dbname="postgres", autocommit=True)
    admin.execute(f'CREATE DATABASE "{database}"')
    port = _free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": "end-to-end-test-key",
        "DATABASE_URL": f"postgres://postgres@{POSTGRES[0]}:{POSTGRES[1]}/{database}",
        "CELERY_BROKER_URL": f"redis://{REDIS[0]}:{REDIS[1]}/15",
        "CELERY_QUEUE": database,  # a queue of its own: nothing stale from another run is consumed
        "CELERY_REFERENCE_QUEUE": f"{database}-reference",
        "REFERENCE_RUNS_DIR": str(tmp_path_factory.mktemp("reference-runs")),
        "ALLOWED_HOSTS": "127.0.0.1",
        # Plain http on loopback: production otherwise redirects to https and sends cookies over TLS only.
        "SECURE_SSL_REDIRECT": "false",
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
        "STATIC_ROOT": str(tmp_path_factory.mktemp("static")),
        "PYTHONPATH": str(ROOT),
    }
    processes: list[subprocess.Popen] = []
    try:
        manage = [sys.executable, str(ROOT / "manage.py")]
        subprocess.run([*manage, "migrate", "--noinput", "-v0"], env=env, check=True, cwd=ROOT, timeout=120)
        subprocess.run([*manage, "collectstatic", "--noinput", "-v0"], env=env, check=True, cwd=ROOT, timeout=300)
        created = subprocess.run(
            [*manage, "create_submitter", "e2e-team", "--email", "e2e@example.org", "--json"],
            env=env,
            check=True,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        token = json.loads(created.stdout)["token"]
        staff = subprocess.run(
            [*manage, "shell", "-c", STAFF_TOKEN_SCRIPT], env=env, check=True, cwd=ROOT, capture_output=True, text=True
        )
        staff_token = staff.stdout.strip().splitlines()[-1]
        processes.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "config",
                    "worker",
                    "--pool=solo",
                    "--loglevel=WARNING",
                    "-Q",
                    f"{database},{database}-reference",  # submissions, and reference runs
                ],
                env=env,
                cwd=ROOT,
            )
        )
        processes.append(
            subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "2"],
                env=env,
                cwd=ROOT,
            )
        )
        base_url = f"http://127.0.0.1:{port}"
        _wait_for(lambda: _get(f"{base_url}/api/v1/tasks/")[0] == 200, what="gunicorn")
        yield base_url, token, database, staff_token
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        admin.close()


def test_a_worker_accepts_a_valid_entry(stack):
    base_url, token, *_ = stack

    status, submitted = _post_submission(base_url, token, entry=entry_bytes(), log=training_log())

    assert (status, submitted["status"]) == (202, "pending")
    verdict = _wait_for_verdict(submitted["url"], token)
    assert verdict["status"] == "accepted"
    assert verdict["results"]["time_to_accuracy_seconds"] == pytest.approx(0.03 * 3600)
    _, entry = _get(verdict["entry_url"])
    assert entry["results"]["training_cost_usd"] == pytest.approx(0.03 * 3.06)
    assert len(entry["runs"][0]["curve"]) == 4


def test_a_worker_rejects_with_a_code_and_creates_no_entry(stack):
    base_url, token, *_ = stack
    _, before = _get(f"{base_url}/api/v1/entries/")

    status, submitted = _post_submission(
        base_url, token, entry=entry_bytes(), log=training_log([(0, 0.1, 50.0), (1, 0.2, 60.0)])
    )

    assert status == 202
    verdict = _wait_for_verdict(submitted["url"], token)
    assert verdict["status"] == "rejected"
    assert [error["code"] for error in verdict["errors"]] == ["threshold_not_reached"]
    assert verdict["entry_url"] is None
    _, after = _get(f"{base_url}/api/v1/entries/")
    assert after["count"] == before["count"]


def test_an_unknown_task_is_refused_before_anything_is_queued(stack):
    base_url, token, *_ = stack

    status, verdict = _post_submission(base_url, token, entry=entry_bytes(), log=training_log(), task="mnist")

    assert (status, verdict["status"], verdict["id"]) == (400, "rejected", None)
    assert [error["code"] for error in verdict["errors"]] == ["unknown_task"]


def test_the_leaderboard_is_served_from_postgresql(stack):
    base_url, token, *_ = stack
    _, submitted = _post_submission(base_url, token, entry=entry_bytes(model="pg-model"), log=training_log())
    _wait_for_verdict(submitted["url"], token)

    status, board = _get(f"{base_url}/api/v1/leaderboards/cifar10/training-time/")

    assert status == 200
    assert "pg-model" in [row["model"] for row in board["results"]]


def test_gunicorn_serves_the_pages_and_plotly_through_whitenoise(stack):
    base_url, *_ = stack

    with urllib.request.urlopen(f"{base_url}/tasks/cifar10/", timeout=30) as page:
        html = page.read().decode()
    with urllib.request.urlopen(f"{base_url}/tasks/cifar10/charts/", timeout=30) as charts_page:
        charts_html = charts_page.read().decode()
    # The page names plotly by its hashed name (the manifest storage), loaded with `defer`.
    plotly_tag = re.search(
        r'<script src="(/static/vendor/plotly/plotly-scatter\.min\.[0-9a-f]{12}\.js)" defer>', charts_html
    )
    assert plotly_tag, "the charts page does not load the hashed plotly bundle with defer"
    request = urllib.request.Request(base_url + plotly_tag.group(1), headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request, timeout=30) as script:
        compressed = script.read()

    assert page.status == 200 and "CIFAR10" in html
    assert script.status == 200 and script.headers["Content-Encoding"] == "gzip"
    assert len(gzip.decompress(compressed)) > 1_000_000 > len(compressed)
    assert "immutable" in script.headers["Cache-Control"] and "max-age=315360000" in script.headers["Cache-Control"]


def test_a_reference_run_queued_by_staff_is_trained_by_the_worker_and_entered(stack):
    base_url, _, _, staff_token = stack
    request = urllib.request.Request(
        f"{base_url}/api/v1/reference-runs/",
        data=json.dumps({"task": "digits", "seed": 1}).encode(),
        method="POST",
        headers={"Authorization": f"Token {staff_token}", "Content-Type": "application/json"},
    )

    status, queued = _send(request)

    assert (status, queued["state"]) == (202, "queued")
    seen: list[dict] = []

    def finished() -> bool:
        _, run = _get(queued["url"])
        seen.append(run)
        return run.get("state") in ("succeeded", "failed")

    _wait_for(finished, what="the reference run", timeout_seconds=180)
    run = seen[-1]
    assert run["state"] == "succeeded", run["error"]
    assert run["task_state"]["state"] == "SUCCESS"  # Redis keeps the task's states
    progress = [
        state["meta"]
        for state in (seen_run.get("task_state") for seen_run in seen)
        if state and state["state"] == "PROGRESS"
    ]
    assert progress and {"epoch", "step", "quality"} <= set(progress[-1]), "no PROGRESS state was seen while it ran"
    assert run["progress"]["quality"] >= 98.0 and run["progress"]["epoch"] == run["outcome"]["epochs_to_accuracy"]
    # The run enters the board as any submission does: queued for judging on the worker, then accepted.
    assert run["outcome"]["submission"]["status"] == "pending"
    submission_url = f"{base_url}/api/v1/submissions/{run['outcome']['submission']['submission_id']}/"
    verdict = _wait_for_verdict(submission_url, staff_token)
    assert verdict["status"] == "accepted"
    _, board = _get(f"{base_url}/api/v1/leaderboards/digits/training-time/")
    _, entry = _get(verdict["entry_url"])
    assert entry["id"] in [row["entry_id"] for row in board["results"]]


def _post_submission(base_url: str, token: str, *, entry: bytes, log: bytes, task: str = "cifar10") -> tuple[int, dict]:
    boundary = uuid.uuid4().hex
    parts = [
        _form_field(boundary, "task", task.encode()),
        _form_field(boundary, "track", b"train"),
        _form_field(boundary, "entry", entry, filename="entry.json"),
        _form_field(boundary, "log", log, filename="log.tsv"),
    ]
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    request = urllib.request.Request(
        f"{base_url}/api/v1/submissions/",
        data=body,
        method="POST",
        headers={"Authorization": f"Token {token}", "Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    return _send(request)


def _form_field(boundary: str, name: str, value: bytes, filename: str | None = None) -> bytes:
    disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
    return f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n".encode() + value + b"\r\n"


def _get(url: str, token: str | None = None) -> tuple[int, dict]:
    headers = {"Authorization": f"Token {token}"} if token else {}
    return _send(urllib.request.Request(url, headers=headers))


def _send(request: urllib.request.Request) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")
    except OSError:
        return 0, {}


def _wait_for_verdict(url: str, token: str) -> dict:
    verdict: dict = {}

    def judged() -> bool:
        nonlocal verdict
        _, verdict = _get(url, token)
        return verdict.get("status") in ("accepted", "rejected")

    _wait_for(judged, what="the worker's verdict")
    return verdict


def _wait_for(condition, *, what: str, timeout_seconds: float = 60) -> None:
    deadline = time.monotonic() + timeout_seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.3)
    raise AssertionError(f"timed out after {timeout_seconds} s waiting for {what}")
