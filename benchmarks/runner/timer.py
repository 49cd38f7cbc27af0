"""The training clock: wall-clock time from the first touch of the data, paused while the model is evaluated.

DAWNBench excludes validation time from time to accuracy; AlgoPerf accumulates submission time the same
way. Work queued on a GPU is only done when the device says so, so CUDA is synchronised at every clock
read (and only then, and only when the run is on CUDA): a read never undercounts queued training.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import torch


class TrainingClock:
    def __init__(self, device: torch.device, now: Callable[[], float] = time.perf_counter):
        self._synchronize = torch.cuda.synchronize if device.type == "cuda" else None
        self._now = now
        self._accumulated = 0.0
        self._started_at: float | None = None
        self.paused_seconds = 0.0  # time spent outside training (evaluation), for the run record
        self._paused_at: float | None = None

    def _read(self) -> float:
        if self._synchronize is not None:
            self._synchronize()
        return self._now()

    def start(self) -> None:
        self._started_at = self._read()

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
