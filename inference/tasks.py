"""Measuring inference as a Celery task on the reference queue (the settings route it there), so the worker
of the reference jobs, on the machine being measured, takes it."""

import os
from decimal import Decimal
from pathlib import Path

from celery import shared_task

from inference.options import Backend, MeasureOptions, Scenario
from inference.services import MEASURE_TASK, measurement_execute


# Not acknowledged late: a measurement delivered again while the first still runs would share the machine with
# it and skew both latencies.
@shared_task(name=MEASURE_TASK, ignore_result=False, acks_late=False)
def measure_inference_task(
    task: str,
    model: str,
    backend: str = Backend.ONNXRUNTIME.value,
    data_dir: str | None = None,
    threads: int | None = None,
    warmup: int = 10,
    limit: int | None = None,
    instance: str | None = None,
    provider: str | None = None,
    cost_per_hour: str | None = None,
    out: str | None = None,
    submit: bool = False,
    scenario: str = Scenario.SINGLE_STREAM.value,
    quick: bool = False,
    batch_size: int | None = None,
    latency_bound_ms: float | None = None,
    device: str = "cpu",
) -> dict:
    options = MeasureOptions(
        task=task,
        model=Path(model),
        backend=Backend(backend),
        data_dir=Path(data_dir) if data_dir else None,
        threads=threads or os.cpu_count() or 1,
        warmup=warmup,
        limit=limit,
        scenario=Scenario(scenario),
        quick=quick,
        batch_size=batch_size,
        latency_bound_ms=latency_bound_ms,
        device=device,
    )
    outcome = measurement_execute(
        options=options,
        out_dir=Path(out) if out else None,
        instance=instance,
        provider=provider,
        cost_per_hour=Decimal(cost_per_hour) if cost_per_hour is not None else None,
        submit=submit,
    )
    return {"measurement": outcome.document, "errors": outcome.errors, "submission": outcome.submission}
