"""What a measurement is asked for: the backend, the options and the price, as plain values.

No torch and no onnxruntime: the command's arguments, the Celery task and `inference.services` name them
without loading the harness, which `inference.job` imports when a measurement starts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from inference.errors import InferenceError, InferenceErrorCode


class Scenario(StrEnum):
    """MLPerf Inference's scenarios, as LoadGen runs them (`inference.loadgen`)."""

    SINGLE_STREAM = "single-stream"  # one query of one item at a time: latency
    OFFLINE = "offline"  # one query of every item, answered in batches: samples per second
    SERVER = "server"  # Poisson arrivals under a latency bound: the highest rate held


class Backend(StrEnum):
    ONNXRUNTIME = "onnxruntime"
    TORCH = "torch"


@dataclass(frozen=True)
class MeasureOptions:
    """What `measure_inference` is asked for. `quick`: LoadGen's quick profile instead of MLPerf's minimums
    (600 s, 1024 single-stream queries); `batch_size`: offline's batch (None: the recipe's training batch);
    `latency_bound_ms`: the server's 99th-percentile bound."""

    task: str
    model: Path
    backend: Backend = Backend.ONNXRUNTIME
    data_dir: Path | None = None
    threads: int = 1
    warmup: int = 10
    limit: int | None = None
    scenario: Scenario = Scenario.SINGLE_STREAM
    quick: bool = False
    batch_size: int | None = None
    latency_bound_ms: float | None = None
    device: str = "cpu"  # onnxruntime's execution provider: cpu, or cuda (onnxruntime-gpu)

    def __post_init__(self):
        """Raises InferenceError (`invalid_setting`) for settings LoadGen cannot run."""
        problem = None
        if self.batch_size is not None and self.batch_size < 1:
            problem = f"--batch-size must be at least 1, not {self.batch_size}."
        elif self.latency_bound_ms is not None and not (0 < self.latency_bound_ms < math.inf):
            problem = f"--latency-bound-ms must be a number of ms above 0, not {self.latency_bound_ms}."
        elif self.scenario is Scenario.SERVER and self.latency_bound_ms is None:
            problem = "The server scenario needs --latency-bound-ms (the bound on its 99th percentile)."
        elif self.device != "cpu" and self.backend is not Backend.ONNXRUNTIME:
            problem = "--device cuda measures on onnxruntime's CUDA execution provider: --backend torch is CPU only."
        if problem:
            raise InferenceError(InferenceErrorCode.INVALID_SETTING, problem)
