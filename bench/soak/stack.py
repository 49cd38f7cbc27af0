"""The production stack the soak (and bench/http_bench.py) runs against, started here and always torn down.

Its own redis-server processes on free loopback ports (never the machine's shared Redis on 6379): one is the
broker and result backend, and is stopped and started again to make the broker unreachable; the other is the
cache (throttle counters, the page cache), which stays up, so the outage is the broker's alone. A PostgreSQL
database of its own, dropped and created afresh. gunicorn (sync workers, two for the soak, deploy/gunicorn.conf.py),
a Celery worker (prefork, two children, in a process group of its own so that SIGKILL reaches the children too)
and Celery beat for the sweep. For the soak, nginx in front of gunicorn as a deployment has it (deploy/nginx.conf,
bench/soak/proxy.py): every request goes through it, and gunicorn trusts its X-Forwarded-For (BEHIND_TLS_PROXY).
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import psycopg

from bench.soak import proxy
from deploy.serve import free_port, redis_ping, signal_group
from deploy.serve import wait_for as wait_for_answer

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = ROOT / ".venv" / "bin"
POSTGRES_HOST, POSTGRES_PORT = "127.0.0.1", 5432
SHARED_REDIS_PORT = 6379
SUBMITTERS = 16
# The worker class and timeouts come from the deployment's file; the soak only stops faster.
GUNICORN_OPTIONS = ("-c", str(proxy.GUNICORN_CONF), "--graceful-timeout", "5")
WORKER_OPTIONS = ("--without-gossip", "--without-mingle")
# Nothing kept on disk: a stopped broker loses what it held, as one that crashed does.
REDIS_OPTIONS = ("--save", "", "--appendonly", "no", "--daemonize", "no", "--protected-mode", "yes")
# Created in one process through the same service as `manage.py create_submitter NAME --email E --json`,
# which costs a Django start-up per submitter; the site's body limits come back with them, for nginx's check.
# Their names carry the stack's port and a tag of its own (the port alone comes round again), so a database kept
# from an earlier stack (`keep_database`) takes new ones.
SUBMITTERS_SCRIPT = (
    "import json; from django.conf import settings; from leaderboard.services import submitter_create; "
    "print(json.dumps({'tokens': [submitter_create(name=f'soak-client-{STACK}-{n:02d}', "
    "email=f'soak-{STACK}-{n:02d}@example.org')[1] "
    f"for n in range({SUBMITTERS})], "
    "'body_limits': [settings.DATA_UPLOAD_MAX_MEMORY_SIZE, settings.SUBMISSION_MAX_REQUEST_BYTES]}))"
)


class StackError(RuntimeError):
    """A part of the stack did not start (or stop) within its time limit."""


wait_for = partial(wait_for_answer, error=StackError)


@dataclass
class Stack:
    """Everything started for one run; `close()` stops all of it, whatever state it is in.

    The soak's stack is `Stack(proxy=True)`; bench/http_bench.py runs its own settings module (the production
    settings plus a trivial view) with four web workers, no beat and no nginx.
    """

    database: str = "dawnboard_soak"
    settings_module: str = "config.settings.production"
    web_workers: int = 2
    judging_workers: int = 2  # the Celery worker's children
    beat: bool = True
    broker_port: int = 0
    cache_port: int = 0
    web_port: int = 0  # gunicorn's
    proxy: bool = False  # nginx in front of gunicorn, all traffic through it (deploy/nginx.conf)
    proxy_port: int = 0
    throttle_rate: str = "100000/min"
    auth_failure_rate: str = "20/min"
    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="dawnboard-stack-")))
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)
    tokens: list[str] = field(default_factory=list)
    worker_starts: int = 0
    database_created: bool = False  # by this stack: dropped when it closes
    keep_database: bool = False  # use the database where it exists (migrated further, as a deploy does); never drop it

    def __post_init__(self) -> None:
        self.broker_port = self.broker_port or free_port(6391)
        self.cache_port = self.cache_port or free_port(6392)
        self.web_port = self.web_port or free_port(8391)
        if self.proxy:
            self.proxy_port = self.proxy_port or free_port(8392)
        if SHARED_REDIS_PORT in (self.broker_port, self.cache_port):
            raise StackError("the soak never uses the machine's shared Redis on 6379")
        self._secret_key = secrets.token_urlsafe(50)

    @property
    def base_url(self) -> str:
        """Where clients connect: nginx when the stack has it, else gunicorn."""
        return f"http://127.0.0.1:{self.proxy_port or self.web_port}"

    @property
    def gunicorn_url(self) -> str:
        """gunicorn itself, around nginx: for the checks that compare the two."""
        return f"http://127.0.0.1:{self.web_port}"

    @property
    def proxy_prefix(self) -> Path:
        """nginx's own directory: its rendered nginx.conf, pid file, access.log, error.log and spooled bodies."""
        return self.workdir / "nginx"

    @property
    def database_url(self) -> str:
        return f"postgres://postgres@{POSTGRES_HOST}:{POSTGRES_PORT}/{self.database}"

    @property
    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "DJANGO_SETTINGS_MODULE": self.settings_module,
            "SECRET_KEY": self._secret_key,
            "DATABASE_URL": self.database_url,
            "CELERY_BROKER_URL": f"redis://127.0.0.1:{self.broker_port}/0",
            "CACHE_URL": f"redis://127.0.0.1:{self.cache_port}/1",
            "CELERY_QUEUE": "dawnboard",
            "CELERY_REFERENCE_QUEUE": "reference",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            # Behind nginx the client's address is X-Forwarded-For's last one, which nginx sets.
            "BEHIND_TLS_PROXY": "true" if self.proxy else "false",
            # Plain http on the loopback: no redirect to https, cookies not marked Secure.
            "SECURE_SSL_REDIRECT": "false",
            "SESSION_COOKIE_SECURE": "false",
            "CSRF_COOKIE_SECURE": "false",
            # Sixteen clients from one address would meet the production rates at once; the failed-token
            # rate stays low so the hostile phase can see it answer 429.
            "THROTTLE_ANON_RATE": self.throttle_rate,
            "THROTTLE_USER_RATE": self.throttle_rate,
            "THROTTLE_SUBMISSION_RATE": self.throttle_rate,
            "THROTTLE_AUTH_FAILURE_RATE": self.auth_failure_rate,
            # Short enough that a message lost with a killed worker is judged again within the run: the judging
            # lease is the hard limit (soft + 30 s), so 50 s rather than 150.
            "SUBMISSION_JUDGE_SOFT_TIME_LIMIT_SECONDS": "20",
            "CELERY_VISIBILITY_TIMEOUT": "15",
            "SUBMISSION_JUDGE_DEADLINE_SECONDS": "20",
            "SUBMISSION_SWEEP_SECONDS": "5",
            # A reference run's worker killed outright is found within seconds (bench/soak/reference.py).
            "REFERENCE_RUN_HEARTBEAT_SECONDS": "1",
            "REFERENCE_RUN_LEASE_SECONDS": "5",
            "STATIC_ROOT": str(self.workdir / "static"),
            "FILE_UPLOAD_TEMP_DIR": str(self.workdir / "uploads"),
            "REFERENCE_RUNS_DIR": str(self.workdir / "runs"),
            "LOG_LEVEL": "WARNING",
        }

    # -- start -----------------------------------------------------------------------------------------------

    @property
    def description(self) -> str:
        web = f"gunicorn -w {self.web_workers} (sync)"
        processes = f"{'nginx, ' if self.proxy else ''}{web}, a Celery worker (-c {self.judging_workers})"
        return processes + (" and beat" if self.beat else "")

    def start(self, *, log=print) -> None:
        for folder in ("static", "uploads"):
            (self.workdir / folder).mkdir(exist_ok=True)
        log(f"stack: work dir {self.workdir}")
        self._start_redis("cache", self.cache_port)
        self.broker_start()
        log(f"stack: redis broker on {self.broker_port}, cache on {self.cache_port}")
        self._database_create()
        started = time.monotonic()
        self.manage("migrate", "--noinput", "-v0", timeout_seconds=300)
        # Production serves collectstatic's hashed files: the pages name them from its manifest.
        self.manage("collectstatic", "--noinput", "-v0", timeout_seconds=300)
        log(f"stack: database {self.database} migrated, static files collected in {time.monotonic() - started:.0f} s")
        script = f"STACK = '{self.web_port}-{uuid.uuid4().hex[:6]}'; {SUBMITTERS_SCRIPT}"
        created = json.loads(self.manage("shell", "-c", script, timeout_seconds=120).stdout.splitlines()[-1])
        self.tokens = created["tokens"]
        self._spawn(
            "gunicorn",
            [
                str(VENV_BIN / "gunicorn"),
                "config.wsgi",
                "-w",
                str(self.web_workers),
                "-b",
                f"127.0.0.1:{self.web_port}",
                *GUNICORN_OPTIONS,
            ],
        )
        wait_for(self._web_ready, what="gunicorn", timeout_seconds=60)
        if self.proxy:
            self._proxy_start(body_limits=created["body_limits"])
        self.worker_start()
        if self.beat:
            self._spawn(
                "beat",
                [
                    str(VENV_BIN / "celery"),
                    "-A",
                    "config",
                    "beat",
                    "-l",
                    "warning",
                    "-s",
                    str(self.workdir / "beat-schedule"),
                ],
            )
        log(f"stack: {self.description} on {self.base_url}; {len(self.tokens)} submitters")

    def _proxy_start(self, *, body_limits: list[int]) -> None:
        """nginx on `proxy_port`, in front of gunicorn, from deploy/nginx.conf rendered into `proxy_prefix`."""
        command = proxy.nginx_prepare(
            prefix=self.proxy_prefix,
            listen=f"127.0.0.1:{self.proxy_port}",
            upstream=f"127.0.0.1:{self.web_port}",
            body_limits=body_limits,
        )
        self._spawn("nginx", command)
        wait_for(lambda: self._answers("nginx", self.proxy_port), what="nginx", timeout_seconds=30)

    def worker_start(self) -> None:
        self._worker_spawn("worker", queue="dawnboard", concurrency=self.judging_workers, node="soak")

    def _worker_spawn(self, name: str, *, queue: str, concurrency: int, node: str) -> None:
        self.worker_starts += 1
        self._spawn(
            name,
            [
                str(VENV_BIN / "celery"),
                "-A",
                "config",
                "worker",
                "-l",
                "warning",
                "-c",
                str(concurrency),
                "-Q",
                queue,
                "-n",
                f"{node}{self.worker_starts}@%h",
                *WORKER_OPTIONS,
            ],
        )

    def worker_kill(self, name: str = "worker") -> None:
        """SIGKILL a worker's whole process group: the main process and the children judging (or training)."""
        process = self.processes.pop(name)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)

    def reference_worker_start(self) -> None:
        """A worker on the reference queue, one run at a time, as `make serve` has one."""
        self._worker_spawn("reference", queue="reference", concurrency=1, node="soak-reference")

    def reference_worker_kill(self) -> None:
        self.worker_kill("reference")

    def reference_worker_stop(self) -> None:
        self._stop("reference")

    def broker_start(self) -> None:
        self._start_redis("broker", self.broker_port)

    def broker_stop(self) -> None:
        """Stop the broker's redis-server; with no persistence, whatever it held is gone, as after a crash."""
        self._stop("broker")
        wait_for(lambda: not redis_ping("127.0.0.1", self.broker_port), what="the broker to stop", timeout_seconds=10)

    # -- stop ------------------------------------------------------------------------------------------------

    def close(self) -> None:
        """Stop every process (each its whole group) and drop the database; never raises."""
        for name in ("nginx", "gunicorn", "beat", "worker", "reference", "broker", "cache"):
            try:
                self._stop(name)
            except Exception as error:  # keep tearing down the rest
                print(f"stack: stopping {name}: {error}", file=sys.stderr)
        if self.database_created:
            try:
                with psycopg.connect(**self._admin_connection) as admin:
                    admin.execute(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')
            except psycopg.Error as error:
                print(f"stack: dropping {self.database}: {error}", file=sys.stderr)

    def assert_running(self) -> None:
        """Raise StackError, with its log's last lines, if a process of the stack has exited on its own."""
        for name, process in self.processes.items():
            if process.poll() is not None:
                raise StackError(f"{name} exited with {process.returncode}:\n{self.log_tail(name)}")

    def log_tail(self, name: str, lines: int = 30) -> str:
        """The last lines of a process's log: "gunicorn", "worker", ... or "nginx/error" (nginx's own error.log)."""
        path = self.workdir / f"{name}.log"
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else ""

    # -- helpers ---------------------------------------------------------------------------------------------

    @property
    def _admin_connection(self) -> dict:
        return {
            "host": POSTGRES_HOST,
            "port": POSTGRES_PORT,
            "user": "postgres",
            "dbname": "postgres",
            "autocommit": True,
            "connect_timeout": 5,
        }

    def connect(self) -> psycopg.Connection:
        """A connection to the stack's own database, for the checks that count rows."""
        return psycopg.connect(
            host=POSTGRES_HOST, port=POSTGRES_PORT, user="postgres", dbname=self.database, autocommit=True
        )

    def _database_create(self) -> None:
        with psycopg.connect(**self._admin_connection) as admin:
            if self.keep_database:
                exists = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [self.database]).fetchone()
                if not exists:
                    admin.execute(f'CREATE DATABASE "{self.database}"')
                return
            admin.execute(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')
            admin.execute(f'CREATE DATABASE "{self.database}"')
        self.database_created = True

    def manage(self, *arguments: str, timeout_seconds: float) -> subprocess.CompletedProcess:
        completed = subprocess.run(
            [str(VENV_BIN / "python"), str(ROOT / "manage.py"), *arguments],
            env=self.env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout_seconds,
        )
        if completed.returncode != 0:
            raise StackError(f"manage.py {arguments[0]} failed:\n{completed.stderr[-3000:]}")
        return completed

    def _start_redis(self, name: str, port: int) -> None:
        self._spawn(
            name,
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", *REDIS_OPTIONS],
        )
        wait_for(lambda: redis_ping("127.0.0.1", port), what=f"redis-server ({name}) on {port}", timeout_seconds=15)

    def _spawn(self, name: str, command: list[str]) -> None:
        log_file = open(self.workdir / f"{name}.log", "ab")  # the child writes to it
        self.processes[name] = subprocess.Popen(
            command,
            env=self.env,
            cwd=ROOT,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # its own process group: Ctrl-C reaches us, and we stop it
        )
        log_file.close()

    def _stop(self, name: str) -> None:
        process = self.processes.pop(name, None)
        if process is None or process.poll() is not None:
            return
        signal_group(process, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            signal_group(process, signal.SIGKILL)
            process.wait(timeout=10)
        signal_group(process, signal.SIGKILL)  # children that outlived their parent

    def _web_ready(self) -> bool:
        return self._answers("gunicorn", self.web_port)

    def _answers(self, name: str, port: int) -> bool:
        """Whether process `name`, still running, answers GET /api/v1/tasks/ with 200 on `port`."""
        process = self.processes.get(name)
        if process is None or process.poll() is not None:
            errors = self.log_tail("nginx/error") if name == "nginx" else ""
            raise StackError(f"{name} exited:\n{self.log_tail(name)}\n{errors}".rstrip())
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                sock.sendall(b"GET /api/v1/tasks/ HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
                return b" 200 " in sock.recv(64).split(b"\r\n")[0]
        except OSError:
            return False
