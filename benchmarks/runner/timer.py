"""The training clock: wall-clock time from the first touch of the data, paused while the model is evaluated.

DAWNBench excludes validation time from time to accuracy; AlgoPerf accumulates submission time the same
way. Work queued on a GPU is only done when the device says so, so CUDA is synchronised at every clock
read (and only then, and only when the run is on CUDA): a read never undercounts queued training.

MLPerf's phases frame the clock: between `init_start` and `init_stop` the job builds and warms up what
needs no data (off the clock); `run_start` is the clock's start, at the first touch of the training data.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Phases:
    """When a run's phases began and ended, in Unix milliseconds (wall time, as MLPerf logs it).

    Attributes:
        warm_up_steps: training steps run during initialisation on made-up data, their effect discarded.
    """

    init_start_unix_ms: float
    init_stop_unix_ms: float
    run_start_unix_ms: float
    warm_up_steps: int = 0

    @property
    def init_seconds(self) -> float:
        return (self.init_stop_unix_ms - self.init_start_unix_ms) / 1000.0

    def log_time_ms(self, training_seconds: float) -> int:
        """The MLLOG time of a moment `training_seconds` into training: run_start's wall time plus the
        training clock's reading, so the time stands still while the model is evaluated and a log's
        run_stop - run_start is the evaluation-free time to accuracy (within half a millisecond)."""
        return round(self.run_start_unix_ms) + round(training_seconds * 1000.0)


def unix_ms() -> float:
    return time.time() * 1000.0


class TrainingClock:
    def __init__(
        self,
        device: torch.device,
        now: Callable[[], float] = time.perf_counter,
        wall_ms: Callable[[], float] = unix_ms,
    ):
        self._synchronize = torch.cuda.synchronize if device.type == "cuda" else None
        self._now = now
        self._wall_ms = wall_ms
        self._accumulated = 0.0
        self._started_at: float | None = None
        self.started_unix_ms: float | None = None  # run_start: when the clock first started
        self.paused_seconds = 0.0  # time spent outside training (evaluation), for the run record
        self._paused_at: float | None = None

    def _read(self) -> float:
        if self._synchronize is not None:
            self._synchronize()
        return self._now()

    def start(self) -> None:
        self._started_at = self._read()
        if self.started_unix_ms is None:
            self.started_unix_ms = self._wall_ms()

    def pause(self) -> float:
        """Stop counting; returns the training seconds so far."""
        now = self._read()
        if self._started_at is None:
            raise RuntimeError("The clock is not running.")
        self._accumulated += now - self._started_at
        self._started_at, self._paused_at = None, now
        return self._accumulated

    def resume(self) -> None:
        now = self._read()
        if self._paused_at is not None:
            self.paused_seconds += now - self._paused_at
        self._started_at, self._paused_at = now, None

    @property
    def seconds(self) -> float:
        """Training seconds so far (without a device sync when running: a progress figure, not a measurement)."""
        running = self._now() - self._started_at if self._started_at is not None else 0.0
        return self._accumulated + running
