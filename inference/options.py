"""What a measurement is asked for: the backend, the options and the price, as plain values.

No torch and no onnxruntime: the command's arguments, the Celery task and `inference.services` name them
without loading the harness, which `inference.job` imports when a measurement starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from pathlib import Path
from typing import Any


class Backend(StrEnum):
    ONNXRUNTIME = "onnxruntime"
    TORCH = "torch"


@dataclass(frozen=True)
class Price:
    """The hourly price a measurement is costed at, and where it comes from."""

    usd_per_hour: Decimal
    source: str
    instance: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"usd_per_hour": float(self.usd_per_hour), "source": self.source, "instance": self.instance}


@dataclass(frozen=True)
class MeasureOptions:
    task: str
    model: Path
    backend: Backend = Backend.ONNXRUNTIME
    data_dir: Path | None = None
    threads: int = 1
    warmup: int = 10
    limit: int | None = None
