"""wrk, the load generator: 16 connections from two threads, its result printed as one line of JSON by a Lua
`done()` hook, so nothing is read off its human-readable summary."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

THREADS, CONNECTIONS = 2, 16
MARKER = "WRK_JSON "  # starts the line DONE_SCRIPT prints
DONE_SCRIPT = """
done = function(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests": %d, "duration_us": %d, "bytes": %d, "p50_us": %d, "p99_us": %d, "status_errors": %d, '
    .. '"socket_errors": %d}\\n',
    summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(99),
    errors.status, errors.connect + errors.read + errors.write + errors.timeout))
end
"""
CYCLE_SCRIPT = """
paths = {%s}
counter = 0
request = function()
  counter = counter + 1
  return wrk.format(nil, paths[(counter %% #paths) + 1])
end
"""


class WrkError(RuntimeError):
    """wrk printed no result."""


@dataclass(frozen=True)
class WrkResult:
    requests: int
    duration_us: int
    bytes: int
    p50_us: int
    p99_us: int
    status_errors: int  # answers of 4xx or 5xx
    socket_errors: int  # connect, read and write errors, and timeouts

    @property
    def requests_per_second(self) -> float:
        return self.requests / (self.duration_us / 1e6) if self.duration_us else 0.0

    @property
    def p50_ms(self) -> float:
        return self.p50_us / 1000

    @property
    def p99_ms(self) -> float:
        return self.p99_us / 1000

    @property
    def errors(self) -> int:
        return self.status_errors + self.socket_errors


def parse(output: str) -> WrkResult:
    """The result DONE_SCRIPT printed among wrk's own lines."""
    for line in output.splitlines():
        if line.startswith(MARKER):
            return WrkResult(**json.loads(line.removeprefix(MARKER)))
    raise WrkError(f"wrk printed no result:\n{output[-2000:]}")


def requests_per_second(runs: list[WrkResult]) -> float:
    """Over several runs together: all their requests over all their time."""
    seconds = sum(run.duration_us for run in runs) / 1e6
    return sum(run.requests for run in runs) / seconds if seconds else 0.0


def script(paths: list[str]) -> str:
    """The Lua script: print the result as JSON; with several paths, send them in turn."""
    if len(paths) == 1:
        return DONE_SCRIPT
    return CYCLE_SCRIPT % ", ".join(json.dumps(path) for path in paths) + DONE_SCRIPT


def command(base_url: str, paths: list[str], *, seconds: float, script_path: Path) -> list[str]:
    """wrk's command line, its script written to `script_path`. A slow answer waits up to 30 s rather than
    counting as an error after wrk's default 2 s, so that it shows in the latencies."""
    script_path.write_text(script(paths))
    return [
        "wrk",
        *("-t", str(THREADS), "-c", str(CONNECTIONS), "-d", f"{seconds:g}s"),
        *("--timeout", "30s", "-s", str(script_path)),
        base_url + paths[0],
    ]


def run(base_url: str, path: str, *, seconds: float, workdir: Path) -> WrkResult:
    arguments = command(base_url, [path], seconds=seconds, script_path=workdir / "wrk.lua")
    completed = subprocess.run(arguments, capture_output=True, text=True, timeout=seconds + 60)
    return parse(completed.stdout + completed.stderr)
