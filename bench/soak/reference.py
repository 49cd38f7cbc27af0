"""A reference run whose worker is killed outright (SIGKILL of the reference worker's whole process group while
the run is `running`) ends `failed` with the reason, never stays `running`: its heartbeat stops renewing its lease
and beat's sweep (`benchmarks.reference_runs_sweep`) ends it. The soak's stack renews every second and lets a lease
lapse after 5 s (REFERENCE_RUN_HEARTBEAT_SECONDS, REFERENCE_RUN_LEASE_SECONDS), beat sweeping every 5 s."""

from __future__ import annotations

import time
from dataclasses import dataclass

from bench.soak.stack import Stack

# Queued through the service the API calls; a digits run, which imports torch in the worker's child first.
REQUEST_SCRIPT = (
    "from benchmarks.services import reference_run_request; "
    "print(reference_run_request(task_slug='digits', recipe='cnn', seed={seed}, submit=False).id)"
)
ENDED_WITHIN_SECONDS = 60.0
LOST_REASON = "The worker running it was lost"


@dataclass
class ReferenceKillResult:
    run_id: int | None = None
    tries: int = 0  # runs queued until one was still running when its worker was killed
    killed: bool = False  # no: every run ended before its worker could be killed
    final_state: str = ""
    error: str = ""
    seconds_to_failed: float | None = None  # from the kill to the row saying `failed`

    @property
    def ok(self) -> bool:
        return self.final_state == "failed" and self.error.startswith(LOST_REASON)


def run(stack: Stack, *, tries: int = 3) -> ReferenceKillResult:
    result = ReferenceKillResult()
    for attempt in range(tries):
        stack.reference_worker_start()
        result.tries = attempt + 1
        output = stack.manage("shell", "-c", REQUEST_SCRIPT.format(seed=attempt), timeout_seconds=60).stdout
        result.run_id = int(output.strip().splitlines()[-1])
        state = _wait_for_state(stack, result.run_id, {"running", "succeeded", "failed"}, timeout_seconds=120)
        if state != "running":  # it ended before it could be killed: a longer window next time
            stack.reference_worker_stop()
            continue
        stack.reference_worker_kill()
        result.killed = True
        killed_at = time.monotonic()
        result.final_state = _wait_for_state(
            stack, result.run_id, {"failed", "succeeded"}, timeout_seconds=ENDED_WITHIN_SECONDS
        )
        if result.final_state == "failed":
            result.seconds_to_failed = time.monotonic() - killed_at
        with stack.connect() as connection:
            result.error = connection.execute(
                "SELECT error FROM benchmarks_referencerun WHERE id = %s", [result.run_id]
            ).fetchone()[0]
        return result
    return result


def lines(result: ReferenceKillResult) -> list[str]:
    if not result.killed:
        return [f"reference worker SIGKILL: no kill took place: each of {result.tries} runs ended before it; NO"]
    if result.seconds_to_failed is None:
        ended = f"still {result.final_state or 'unknown'} {ENDED_WITHIN_SECONDS:.0f} s after the kill"
    else:
        ended = f"{result.final_state} {result.seconds_to_failed:.1f} s after the kill"
    return [
        f"reference worker SIGKILLed mid-run (run {result.run_id}, try {result.tries}): {ended}; "
        f"{'yes' if result.ok else 'NO'}",
        f"  its reason: {result.error[:160] or '-'}",
    ]


def _wait_for_state(stack: Stack, run_id: int, states: set[str], *, timeout_seconds: float) -> str:
    deadline = time.monotonic() + timeout_seconds
    with stack.connect() as connection:
        while True:
            state = connection.execute("SELECT state FROM benchmarks_referencerun WHERE id = %s", [run_id]).fetchone()[
                0
            ]
            if state in states or time.monotonic() > deadline:
                return state
            time.sleep(0.05)
