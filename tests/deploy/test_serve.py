"""The waiting and the ports that `make serve` (deploy/serve.py), the soak and the end-to-end test share, and the
set-up commands the stack runs before its processes."""

from __future__ import annotations

import socket

import pytest

from deploy.serve import ServeError, Stack, free_port, wait_for


def test_wait_for_returns_what_the_condition_gave_once_it_is_truthy():
    answers = iter([None, 0, "", "ready"])

    assert wait_for(lambda: next(answers), what="a stub", timeout_seconds=5, interval_seconds=0) == "ready"


def test_wait_for_stops_early_when_its_check_raises():
    rounds = []

    def check() -> None:
        rounds.append(1)
        if len(rounds) == 3:
            raise RuntimeError("redis exited with status 1")

    with pytest.raises(RuntimeError, match="redis exited"):
        wait_for(lambda: False, what="redis", timeout_seconds=60, check=check, interval_seconds=0)
    assert len(rounds) == 3


def test_wait_for_raises_the_error_it_is_given_naming_what_did_not_answer():
    class StackError(RuntimeError):
        pass

    with pytest.raises(StackError, match=r"^timed out after 0 s waiting for gunicorn on 127\.0\.0\.1:1$"):
        wait_for(lambda: False, what="gunicorn on 127.0.0.1:1", timeout_seconds=0.05, error=StackError)
    with pytest.raises(TimeoutError):  # by default
        wait_for(lambda: False, what="nginx", timeout_seconds=0.05)


def test_free_port_takes_the_preferred_port_where_it_is_free_and_another_where_it_is_taken():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        other = free_port(busy)
    preferred = free_port()

    assert other != busy
    assert free_port(preferred) == preferred


def test_the_set_up_commands_all_run_and_the_one_that_failed_is_named_with_its_error(tmp_path, monkeypatch):
    monkeypatch.setattr("deploy.serve.say", lambda message: None)
    stack = Stack(port=free_port(), own_redis=False, settings_module="config.settings.local")
    stack.env = {**stack.env, "DJANGO_SETTINGS_MODULE": "config.settings.local", "DATABASE_URL": "sqlite://:memory:"}
    written = tmp_path / "written.txt"

    with pytest.raises(ServeError) as refused:
        stack._manage(["no_such_command"], ["shell", "-c", f"open({str(written)!r}, 'w').write('ran')"])

    assert str(refused.value).startswith("manage.py no_such_command failed:\n")
    assert "Unknown command: 'no_such_command'" in str(refused.value)
    assert written.read_text() == "ran"  # the other command ran to its end all the same
    stack._manage(["check"], ["help"])  # and commands that succeed raise nothing
