"""`make soak`: the fault and load suite, run against the production stack started on this machine.

Usage: .venv/bin/python -m bench.soak [--submissions 1000] [--kill-batch 200] [--phases load,kill,...]

Starts its own stack (bench/soak/stack.py: two redis-servers of its own, a fresh PostgreSQL database,
gunicorn -w 2 behind nginx as deploy/ has them, a Celery worker and beat), runs the phases, prints one table and
tears everything down, also on Ctrl-C or a failure. The whole run is bounded (--max-minutes); every wait has a
timeout. Exits 1 if any submission was lost, doubled or left pending, or any answer was a server error.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import time
import traceback
import uuid
from datetime import UTC, datetime

from bench.soak import copied, hostile, mlperf, phases, reference, report, schema, slow, verify
from bench.soak.stack import Stack

PHASES = ("load", "kill", "broker", "reference", "hostile", "copied", "mlperf", "schema", "slow", "throttle")


class SoakTimeout(Exception):
    pass


def _on_alarm(signal_number, frame):
    raise SoakTimeout("the soak ran past --max-minutes")


def _on_term(signal_number, frame):
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--submissions", type=int, default=1000, help="logical submissions in the load phase")
    parser.add_argument("--kill-batch", type=int, default=200, help="submissions judged while the worker is killed")
    parser.add_argument("--phases", default=",".join(PHASES), help=f"a comma-separated subset of {PHASES}")
    parser.add_argument("--max-minutes", type=float, default=12, help="the whole run, stack included")
    arguments = parser.parse_args(argv)
    chosen = [name.strip() for name in arguments.phases.split(",") if name.strip()]
    if unknown := set(chosen) - set(PHASES):
        parser.error(f"unknown phases: {', '.join(sorted(unknown))}")

    signal.signal(signal.SIGALRM, _on_alarm)
    signal.signal(signal.SIGTERM, _on_term)
    signal.alarm(int(arguments.max_minutes * 60))
    run_id = uuid.uuid4().hex[:8]
    started = time.monotonic()
    stack = Stack(proxy=True)
    results: list[phases.PhaseResult] = []
    hostile_result = throttle_result = schema_result = slow_result = copied_result = mlperf_result = None
    reference_result = None
    stuck_at_end: int | None = None  # measured only when every phase ran
    aborted = ""
    try:
        stack.start(log=_log)
        _log(f"stack: the worker's first verdict came {phases.warm_up(stack, run_id):.1f} s after its submission")
        for name in chosen:
            _log(f"phase: {name}")
            if name == "load":
                results.append(phases.load(stack, run_id, count=arguments.submissions))
            elif name == "kill":
                results.append(phases.worker_kills(stack, run_id, count=arguments.kill_batch))
            elif name == "broker":
                results.append(phases.broker_outage(stack, run_id))
            elif name == "reference":
                reference_result = reference.run(stack)
            elif name == "hostile":
                hostile_result = hostile.run(stack)
            elif name == "copied":
                copied_result = copied.run(stack, run_id)
            elif name == "mlperf":
                mlperf_result = mlperf.run(stack)
            elif name == "schema":
                schema_result = schema.run(stack)
            elif name == "slow":
                slow_result = slow.run(stack, run_id)
            elif name == "throttle":
                throttle_result = hostile.bad_token_flood(stack)
        with stack.connect() as connection:
            stuck_at_end = _pending_after_wait(connection)
    except (Exception, KeyboardInterrupt) as error:
        phases.STOP.set()
        aborted = f"{type(error).__name__}: {error}"
        traceback.print_exc()
        for name in ("worker", "gunicorn", "nginx/error"):
            if tail := stack.log_tail(name, 15):
                print(f"--- {name} log (last lines)\n{tail}", file=sys.stderr)
    finally:
        signal.alarm(0)
        stack.close()

    header = (
        f"Soak {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {time.monotonic() - started:.0f} s: nginx (deploy/nginx.conf) "
        "in front of gunicorn -w 2, a Celery worker (-c 2), a reference worker (-c 1) and beat on a redis-server of "
        "its own, PostgreSQL; "
        "16 clients on the loopback"
    )
    print()
    print(
        report.table(
            header=header,
            phases=results,
            hostile=hostile_result,
            throttle=throttle_result,
            schema=schema_result,
            stuck_at_end=stuck_at_end,
            slow=slow_result,
            copied=copied_result,
            mlperf=mlperf_result,
            reference=reference_result,
        )
    )
    reasons = report.failures(
        results,
        hostile_result,
        throttle_result,
        schema_result,
        stuck_at_end,
        slow_result,
        copied_result,
        mlperf_result,
        reference_result,
    )
    if aborted:
        reasons.insert(0, f"aborted: {aborted}")
    print()
    print("FAILED: " + "; ".join(reasons) if reasons else "PASSED: 0 lost, 0 doubled, 0 stuck, 0 server errors")
    if reasons:
        print(f"The stack's logs (nginx/, gunicorn, worker, beat, redis, schemathesis) are kept in {stack.workdir}")
    else:
        shutil.rmtree(stack.workdir, ignore_errors=True)
    return 1 if reasons else 0


def _pending_after_wait(connection, timeout_seconds: float = 60) -> int:
    """Submissions still pending anywhere (schemathesis's too) after a bounded wait for the last verdicts."""
    deadline = time.monotonic() + timeout_seconds
    while (pending := verify.all_pending(connection)) and time.monotonic() < deadline:
        time.sleep(1)
    return pending


def _log(message: str) -> None:
    print(f"[{datetime.now():%H:%M:%S}] {message}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
