"""`make serve`: the production stack on this machine, in the foreground, until Ctrl-C.

    .venv/bin/python -m deploy.serve [--port 8000] [--own-redis]

It runs what a deployment runs, with the production settings (config.settings.production):

1. PostgreSQL: DATABASE_URL, by default postgres://postgres@127.0.0.1:5432/dawnboard (the database is created
   when the server runs but has none of that name); unreachable, it stops, saying what to start.
2. Redis as the Celery broker and the shared cache: CELERY_BROKER_URL and CACHE_URL where set; else the Redis on
   127.0.0.1:6379 where one answers; else (or with --own-redis) a redis-server of its own on a free port, stopped
   with the rest.
3. `manage.py collectstatic` and `migrate` side by side under those settings, so the web process finds its manifest.
4. gunicorn (deploy/gunicorn.conf.py) on 127.0.0.1:PORT; a Celery worker judging submissions (the default
   queue); one for reference runs (the reference queue, one at a time); Celery beat (the sweeps).

Every process's output comes here, each line after its name. Ctrl-C (or SIGTERM) stops them all; so does any
one of them exiting, with its name and status. Plain http on the loopback: SECURE_SSL_REDIRECT and the Secure
cookies are off unless set; METRICS_ALLOWED_IPS is the loopback unless set; SECRET_KEY, unless set, is made once
and kept in .serve/secret_key. Everything it writes (the beat schedule, the metrics of the web workers, its
Redis's files) lives under .serve/.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
STATE = Path(os.environ.get("SERVE_STATE_DIR") or ROOT / ".serve")
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/dawnboard"
SHARED_REDIS = ("127.0.0.1", 6379)
STOP_SECONDS = 15


class ServeError(RuntimeError):
    """The stack cannot start: the message says what to do."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make serve", description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=int(os.environ.get("SERVE_PORT", "8000")))
    parser.add_argument("--own-redis", action="store_true", help="start a redis-server of its own, always")
    parser.add_argument(
        "--settings", default="config.settings.production", help="the settings module (not DJANGO_SETTINGS_MODULE's)"
    )
    options = parser.parse_args(argv)
    stack = Stack(port=options.port, own_redis=options.own_redis, settings_module=options.settings)
    try:
        stack.start()
        return stack.wait()
    except ServeError as error:
        print(f"serve: {error}", file=sys.stderr)
        return 1
    finally:
        stack.stop()


class Stack:
    def __init__(self, *, port: int, own_redis: bool, settings_module: str):
        self.port, self.own_redis, self.settings_module = port, own_redis, settings_module
        self.processes: dict[str, subprocess.Popen] = {}
        self.stopping = threading.Event()
        self.env = dict(os.environ)

    # -- start ---------------------------------------------------------------------------------------------------

    def start(self) -> None:
        STATE.mkdir(exist_ok=True)
        signal.signal(signal.SIGINT, self._on_signal)
        signal.signal(signal.SIGTERM, self._on_signal)
        self.env.update(self._settings())
        self._database_ensure()
        self._redis_ensure()
        self._manage(["collectstatic", "--noinput", "-v0"], ["migrate", "--noinput", "-v0"])
        celery = [str(VENV_BIN / "celery"), "-A", "config"]
        worker = [*celery, "worker", "-l", "info", "--without-gossip", "--without-mingle"]
        judging, reference = self.env["CELERY_QUEUE"], self.env["CELERY_REFERENCE_QUEUE"]
        self._spawn("web", [str(VENV_BIN / "gunicorn"), "-c", "deploy/gunicorn.conf.py", "config.wsgi"])
        self._spawn("judging", [*worker, "-Q", judging, "-n", f"judging-{os.getpid()}@%h"])
        self._spawn("reference", [*worker, "-Q", reference, "-c", "1", "-n", f"reference-{os.getpid()}@%h"])
        self._spawn("beat", [*celery, "beat", "-l", "info", "-s", str(STATE / "beat-schedule")])
        self._wait_for_web()
        base = f"http://127.0.0.1:{self.port}"
        say(f"Dawnboard serves on {base}/ (health {base}/health/, metrics {base}/metrics); Ctrl-C stops it all")

    def _settings(self) -> dict[str, str]:
        """The environment every process gets: production settings, on the loopback over plain http."""
        multiprocess_dir = STATE / "prometheus"
        shutil.rmtree(multiprocess_dir, ignore_errors=True)  # a new stack's counters start at zero
        multiprocess_dir.mkdir()
        given = os.environ.get
        return {
            "DJANGO_SETTINGS_MODULE": self.settings_module,
            "PYTHONPATH": str(ROOT),
            "PYTHONUNBUFFERED": "1",
            "DATABASE_URL": given("DATABASE_URL", DEFAULT_DATABASE_URL),
            "SECRET_KEY": given("SECRET_KEY") or _secret_key(),
            "GUNICORN_BIND": f"127.0.0.1:{self.port}",
            "WEB_CONCURRENCY": given("WEB_CONCURRENCY", "2"),
            "CELERY_QUEUE": given("CELERY_QUEUE", "dawnboard"),
            "CELERY_REFERENCE_QUEUE": given("CELERY_REFERENCE_QUEUE", "reference"),
            "SECURE_SSL_REDIRECT": given("SECURE_SSL_REDIRECT", "false"),
            "SESSION_COOKIE_SECURE": given("SESSION_COOKIE_SECURE", "false"),
            "CSRF_COOKIE_SECURE": given("CSRF_COOKIE_SECURE", "false"),
            "METRICS_ALLOWED_IPS": given("METRICS_ALLOWED_IPS", "127.0.0.1,::1"),
            "PROMETHEUS_MULTIPROC_DIR": str(multiprocess_dir),
            "LOG_FORMAT": given("LOG_FORMAT", "json"),
        }

    def _database_ensure(self) -> None:
        """The database DATABASE_URL names exists on a PostgreSQL that answers (created where it is missing)."""
        url = urlsplit(self.env["DATABASE_URL"])
        if url.scheme not in ("postgres", "postgresql", "pgsql"):
            return  # another engine: the processes' own start-up checks judge it
        import psycopg
        import psycopg.sql

        name = unquote(url.path.lstrip("/"))
        admin = {
            "host": unquote(url.hostname or "127.0.0.1"),
            "port": url.port or 5432,
            "user": unquote(url.username or "postgres"),
            "password": unquote(url.password) if url.password else None,
            "dbname": "postgres",
            "autocommit": True,
            "connect_timeout": 5,
        }
        try:
            connection = psycopg.connect(**admin)
        except psycopg.OperationalError as error:
            raise ServeError(
                f"PostgreSQL at {admin['host']}:{admin['port']} refused the connection as {admin['user']} "
                f"({str(error).strip()}). Start it (e.g. `service postgresql start`), check DATABASE_URL's user and "
                "password, or point DATABASE_URL at another server."
            ) from error
        with connection:
            if not connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
                say(f"creating the database {name}")
                try:
                    connection.execute(psycopg.sql.SQL("CREATE DATABASE {}").format(psycopg.sql.Identifier(name)))
                except psycopg.Error as error:
                    raise ServeError(
                        f"The database {name} does not exist and could not be created ({str(error).strip()}): "
                        "create it, or point DATABASE_URL at one that exists."
                    ) from error

    def _redis_ensure(self) -> None:
        """Broker and cache: as set; else the shared Redis where it answers; else a redis-server of its own."""
        if "CELERY_BROKER_URL" in os.environ and not self.own_redis:
            broker = os.environ["CELERY_BROKER_URL"]
            if "CACHE_URL" not in os.environ and broker.startswith(("redis://", "rediss://")):
                self.env["CACHE_URL"] = broker.rsplit("/", 1)[0] + "/1"  # the same Redis, database 1
            return
        if not self.own_redis and redis_ping(*SHARED_REDIS):
            host, port = SHARED_REDIS
        else:
            if shutil.which("redis-server") is None:
                raise ServeError(
                    "No Redis answers on 127.0.0.1:6379 and redis-server is not installed: install it (`apt-get "
                    "install redis-server`), or point CELERY_BROKER_URL and CACHE_URL at a Redis."
                )
            host, port = "127.0.0.1", free_port()
            self._spawn(
                "redis",
                ["redis-server", "--port", str(port), "--bind", host, "--dir", str(STATE), "--save", ""],
                show=False,
            )
            self._wait_for(lambda: redis_ping(host, port), what=f"redis-server on {port}", timeout_seconds=15)
        say(f"Redis on {host}:{port}: broker db 0, cache db 1")
        self.env["CELERY_BROKER_URL"] = f"redis://{host}:{port}/0"
        self.env.setdefault("CACHE_URL", f"redis://{host}:{port}/1")

    def _manage(self, *commands: list[str]) -> None:
        """Run these manage.py commands side by side and wait for all; the first that failed is named with its error
        output. collectstatic writes the static files, migrate the database: side by side, the stack served 6.8 to
        7.1 s after its start here, where one after the other it took 8.2 to 8.8 s."""
        running = []
        for arguments in commands:
            say(f"manage.py {' '.join(arguments)}")
            running.append(
                subprocess.Popen(
                    [str(VENV_BIN / "python"), "manage.py", *arguments],
                    cwd=ROOT,
                    env=self.env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    text=True,
                    start_new_session=True,  # Ctrl-C is this process's to handle: the commands finish, then it stops
                )
            )
        errors = [process.communicate()[1] for process in running]
        if self.stopping.is_set():
            raise ServeError("stopped before it started")
        for arguments, process, error in zip(commands, running, errors, strict=True):
            if process.returncode != 0:
                raise ServeError(f"manage.py {arguments[0]} failed:\n{error.strip()[-3000:]}")

    def _spawn(self, name: str, command: list[str], *, show: bool = True) -> None:
        if self.stopping.is_set():
            raise ServeError("stopped before it started")
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group: Ctrl-C reaches this process, which stops each group in turn
        )
        self.processes[name] = process
        threading.Thread(target=_relay, args=(name, process, show), daemon=True).start()

    def _wait_for_web(self) -> None:
        def answers() -> bool:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as connection:
                    connection.sendall(b"GET /health/ HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
                    return connection.recv(16).startswith(b"HTTP/1.")
            except OSError:
                return False

        self._wait_for(answers, what=f"gunicorn on 127.0.0.1:{self.port}", timeout_seconds=90)

    def _wait_for(self, condition, *, what: str, timeout_seconds: float) -> None:
        """`wait_for`, given up (ServeError) where a process of the stack exits, or Ctrl-C comes, first."""

        def running() -> None:
            gone = self.exited()
            if gone is not None:
                raise ServeError(f"{gone[0]} exited with status {gone[1]} before {what} answered (its output is above)")
            if self.stopping.is_set():
                raise ServeError("stopped before it started")

        wait_for(condition, what=what, timeout_seconds=timeout_seconds, check=running, error=ServeError)

    # -- run and stop --------------------------------------------------------------------------------------------

    def exited(self) -> tuple[str, int] | None:
        for name, process in self.processes.items():
            if process.poll() is not None:
                return name, process.returncode
        return None

    def wait(self) -> int:
        """Until Ctrl-C (0) or a process exits on its own (1)."""
        while not self.stopping.wait(0.5):
            gone = self.exited()
            if gone is not None:
                say(f"{gone[0]} exited with status {gone[1]}: stopping the rest")
                return 1
        return 0

    def _on_signal(self, signum, frame) -> None:
        if self.stopping.is_set():
            return
        say(f"{signal.Signals(signum).name}: stopping every process")
        self.stopping.set()

    def stop(self) -> None:
        """SIGTERM to each process group, then SIGKILL to any still there after a while; its own Redis last, once
        the workers are gone (they hand back or acknowledge their messages as they stop)."""
        self.stopping.set()
        stopped = [name for name in ("web", "beat", "judging", "reference") if name in self.processes]
        self._stop_groups(stopped)
        if "redis" in self.processes:
            self._stop_groups(["redis"])
            stopped.append("redis")
        if stopped:
            say("stopped: " + ", ".join(stopped))

    def _stop_groups(self, names: list[str]) -> None:
        for name in names:
            signal_group(self.processes[name], signal.SIGTERM)
        deadline = time.monotonic() + STOP_SECONDS
        for name in names:
            process = self.processes[name]
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                say(f"{name} did not stop within {STOP_SECONDS} s: killed")
            signal_group(process, signal.SIGKILL)  # the group's children too
            process.wait()


def say(message: str) -> None:
    print(f"serve | {message}", flush=True)


def _relay(name: str, process: subprocess.Popen, show: bool) -> None:
    for line in process.stdout:
        if show:
            sys.stdout.write(f"{name:<9}| {line.decode(errors='replace')}")
            sys.stdout.flush()


def signal_group(process: subprocess.Popen, signal_number: int) -> None:
    try:
        os.killpg(process.pid, signal_number)
    except ProcessLookupError:
        pass


def _secret_key() -> str:
    path = STATE / "secret_key"
    if not path.exists():
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # never readable by others
        with os.fdopen(descriptor, "w") as key:
            key.write(secrets.token_urlsafe(50))
    return path.read_text().strip()


def free_port(preferred: int | None = None) -> int:
    """`preferred` where it is free on the loopback, else a free port the system picks."""
    for port in (preferred, 0) if preferred else (0,):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return probe.getsockname()[1]
    raise OSError("no free port on the loopback")


def redis_ping(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def wait_for(
    condition: Callable[[], Any],
    *,
    what: str,
    timeout_seconds: float,
    check: Callable[[], None] | None = None,
    error: type[Exception] = TimeoutError,
    interval_seconds: float = 0.2,
) -> Any:
    """Poll `condition` until it returns something truthy, and return that. `check`, called each round, may raise to
    stop waiting early (a process of the stack exited); after `timeout_seconds`, `error` says what did not answer.
    The one wait of `make serve`, the soak and the end-to-end test."""
    deadline = time.monotonic() + timeout_seconds
    while True:
        if check is not None:
            check()
        if result := condition():
            return result
        if time.monotonic() > deadline:
            raise error(f"timed out after {timeout_seconds:.0f} s waiting for {what}")
        time.sleep(interval_seconds)


if __name__ == "__main__":
    sys.exit(main())
