"""End to end on the production stack as `make serve` runs it (deploy/serve.py): gunicorn, PostgreSQL, a Redis of
its own, a Celery worker judging, one for reference runs, and beat.

The POST answers 202 `pending`; a worker process judges the stored upload and the submission URL gives the
verdict; /health/ and /metrics answer; one submission is followed through the JSON logs from the web process to
the worker; Ctrl-C stops every process. Skipped, with the reason, where PostgreSQL or redis-server is absent.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import pytest

from deploy.serve import free_port, wait_for
from tests.factories import entry_bytes, training_log

pytestmark = pytest.mark.services

ROOT = Path(__file__).resolve().parents[2]
STAFF_TOKEN_SCRIPT = (
    "from django.contrib.auth import get_user_model; from knox.models import AuthToken; "
    "user = get_user_model().objects.create_user('e2e-staff', password='x', is_staff=True); "
    "print(AuthToken.objects.create(user=user)[1])"
)
POSTGRES = ("127.0.0.1", 5432)
SHARED_REDIS = ("127.0.0.1", 6379)
_wait_for = partial(wait_for, timeout_seconds=60, error=AssertionError, interval_seconds=0.3)  # make serve's own wait


def _reachable(address: tuple[str, int]) -> bool:
    try:
        with socket.create_connection(address, timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """`make serve`'s stack (deploy/serve.py) on a database and a redis-server of its own; stopped with Ctrl-C's
    SIGINT at the end, which must stop every process it started."""
    if not _reachable(POSTGRES):
        pytest.skip(f"PostgreSQL is not running on {POSTGRES[0]}:{POSTGRES[1]}; this test needs the real service")
    own_redis = shutil.which("redis-server") is not None
    if not own_redis and not _reachable(SHARED_REDIS):
        pytest.skip("neither redis-server nor a Redis on 127.0.0.1:6379; make serve needs one of them")
    import psycopg

    database = f"dawnboard_e2e_{uuid.uuid4().hex[:10]}"
    port = free_port()
    state = tmp_path_factory.mktemp("serve")
    env = {
        **os.environ,
        "SECRET_KEY": "end-to-end-test-key",
        "DATABASE_URL": f"postgres://postgres@{POSTGRES[0]}:{POSTGRES[1]}/{database}",
        "REFERENCE_RUNS_DIR": str(tmp_path_factory.mktemp("reference-runs")),
        "STATIC_ROOT": str(tmp_path_factory.mktemp("static")),
        "SERVE_STATE_DIR": str(state),
        "WEB_CONCURRENCY": "2",
    }
    env.pop("CELERY_BROKER_URL", None)
    env.pop("CACHE_URL", None)
    if not own_redis:  # the machine's Redis, in databases and queues of this run's own
        env.update(
            CELERY_BROKER_URL="redis://127.0.0.1:6379/15",
            CACHE_URL="redis://127.0.0.1:6379/14",
            CELERY_QUEUE=database,
            CELERY_REFERENCE_QUEUE=f"{database}-reference",
        )
    log_path = state / "serve.log"
    with open(log_path, "wb") as log:
        serve = subprocess.Popen(
            [sys.executable, "-m", "deploy.serve", "--port", str(port), *(["--own-redis"] if own_redis else [])],
            env=env,
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    base_url = f"http://127.0.0.1:{port}"
    try:
        _wait_for(
            lambda: serve.poll() is not None or "Dawnboard serves on" in log_path.read_text(errors="replace"),
            what="make serve's stack",
            timeout_seconds=240,
        )
        assert serve.poll() is None, log_path.read_text(errors="replace")[-3000:]
        manage = [sys.executable, str(ROOT / "manage.py")]
        production = {**env, "DJANGO_SETTINGS_MODULE": "config.settings.production"}
        created = subprocess.run(
            [*manage, "create_submitter", "e2e-team", "--email", "e2e@example.org", "--json"],
            env=production,
            check=True,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        token = json.loads(created.stdout)["token"]
        staff = subprocess.run(
            [*manage, "shell", "-c", STAFF_TOKEN_SCRIPT],
            env=production,
            check=True,
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        staff_token = staff.stdout.strip().splitlines()[-1]
        yield ServedStack(base_url, token, database, staff_token, serve, log_path)
    finally:
        if serve.poll() is None:
            serve.send_signal(signal.SIGINT)
            try:
                serve.wait(timeout=60)
            except subprocess.TimeoutExpired:
                serve.kill()
        with psycopg.connect(
            host=POSTGRES[0], port=POSTGRES[1], user="postgres", dbname="postgres", autocommit=True
        ) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


@dataclass(frozen=True)
class ServedStack:
    base_url: str
    token: str
    database: str
    staff_token: str
    serve: subprocess.Popen
    log_path: Path

    def __iter__(self):  # the tests unpack (base_url, token, database, staff_token)
        return iter((self.base_url, self.token, self.database, self.staff_token))

    def log_events(self, process: str) -> list[dict]:
        """The JSON log lines of one of the stack's processes ("web", "judging", ...)."""
        events = []
        for line in self.log_path.read_text(errors="replace").splitlines():
            name, _, text = line.partition("| ")
            if name.strip() == process and text.startswith("{"):
                events.append(json.loads(text))
        return events


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


def test_health_answers_200_in_json_and_the_metrics_count_the_submissions(stack):
    status, health = _send(urllib.request.Request(f"{stack.base_url}/health/", headers={"Accept": "application/json"}))
    with urllib.request.urlopen(f"{stack.base_url}/metrics", timeout=30) as response:
        metrics = response.read().decode()

    assert status == 200 and set(health.values()) == {"OK"} and "Broker()" in health
    assert 'dawnboard_queue_depth{queue="judging"}' in metrics
    assert re.search(r'^dawnboard_submissions\{status="accepted"\} \d', metrics, re.MULTILINE)
    # Summed over both web workers (PROMETHEUS_MULTIPROC_DIR): at least the requests this module has sent, which
    # the two workers shared between them, and more than either one alone answered.
    requests = re.search(
        r'^django_http_requests_total_by_method_total\{method="GET"\} ([0-9.]+)', metrics, re.MULTILINE
    )
    assert requests and float(requests.group(1)) >= 10


def test_one_submission_is_followed_through_the_logs_from_the_web_to_the_worker(stack):
    status, submitted = _post_submission(
        stack.base_url, stack.token, entry=entry_bytes(model="logged"), log=training_log()
    )
    assert status == 202
    _wait_for_verdict(submitted["url"], stack.token)
    _wait_for(
        lambda: any(
            event.get("submission_id") == submitted["id"] and event["event"] == "submission_judged"
            for event in stack.log_events("judging")
        ),
        what="the worker's log line",
    )

    stored = [event for event in stack.log_events("web") if event.get("submission_id") == submitted["id"]]
    judged = [event for event in stack.log_events("judging") if event.get("submission_id") == submitted["id"]]

    assert [event["event"] for event in stored][:1] == ["submission_stored"]
    request_id = stored[0]["request_id"]
    verdicts = [event for event in judged if event["event"] == "submission_judged"]
    assert [event["status"] for event in verdicts] == ["accepted"]
    assert verdicts[0]["request_id"] == request_id and verdicts[0]["task_id"]  # the request that queued it
    assert {event["request_id"] for event in judged} == {request_id}


def test_zz_ctrl_c_stops_every_process_of_the_stack(stack):
    """Last (by name, in this module's order): the stack is stopped here, and the fixture finds it stopped."""
    stack.serve.send_signal(signal.SIGINT)

    assert stack.serve.wait(timeout=60) == 0
    log = stack.log_path.read_text(errors="replace")
    assert "serve | stopped: web, beat, judging, reference" in log
    assert _get(f"{stack.base_url}/health/")[0] == 0  # nothing answers on the port
