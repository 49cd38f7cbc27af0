"""The Django side of a measurement: the hourly price from the catalog, and entering the entry on the board
through `leaderboard.services.submission_create` (the API's own path), marked `measured`, its record kept.

The harness (torch, onnxruntime) is imported by `measurement_execute` alone, when a measurement starts: the Celery
worker imports this module through `inference.tasks` whatever queue it serves."""

from __future__ import annotations

import datetime
import os
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from django.conf import settings

from dawnboard.scoring import HourlyPrice
from inference.errors import InferenceError, InferenceErrorCode
from inference.options import MeasureOptions
from leaderboard.models import Submission
from leaderboard.services import SubmissionOutcome, Upload, submission_create
from pricing.selectors import PriceLookupError, on_demand_price

if TYPE_CHECKING:
    from inference.job import MeasurementReport

MEASURE_TASK = "inference.measure"  # queued by name, on the reference queue; inference/tasks.py defines it


def inference_price(
    *,
    instance: str | None,
    provider: str | None,
    cost_per_hour: Decimal | None,
    day: datetime.date | None = None,
    vcpus: int | None = None,
) -> HourlyPrice | None:
    """The price to cost a measurement at: the catalog's on-demand price of `provider`/`instance` on `day`
    (today by default; `instance` "auto": the provider's CPU instance of `vcpus` vCPUs), or the given hourly price;
    None when neither is asked for.

    Raises:
        InferenceError: `unknown_instance`, or `no_price` when the catalog has none that day.
    """
    if cost_per_hour is not None:
        return HourlyPrice(usd_per_hour=cost_per_hour, source="--cost-per-hour, as given")
    if instance is None:
        return None
    try:
        return on_demand_price(instance=instance, provider=provider, day=day or datetime.date.today(), vcpus=vcpus)
    except PriceLookupError as error:
        raise InferenceError(InferenceErrorCode(error.code), error.message) from None


def measurement_submit(*, report: MeasurementReport) -> SubmissionOutcome:
    """Enter a measurement's entry on the board, marked `measured`, with LoadGen's summary and detail logs of its
    performance test (which the board reads and checks, as it does an API submission's), its record (percentiles,
    histogram) kept."""
    outcome = report.measurement.performance
    return submission_create(
        task_slug=report.options.task,
        track="inference",
        entry=Upload(name=report.entry_path.name, content=report.entry_bytes),
        logs=[
            Upload(name=outcome.summary_path.name, content=outcome.summary_path.read_bytes()),
            Upload(name=outcome.detail_path.name, content=outcome.detail_path.read_bytes()),
        ],
        source=Submission.Source.MEASURED,
        run_record=report.record,
    )


@dataclass(frozen=True)
class MeasurementOutcome:
    """The `--json` document (exactly its keys), the board's codes when the entry would be refused, and the
    submission's verdict when one was made."""

    document: dict
    errors: list[dict] = field(default_factory=list)
    submission: dict | None = None
    loadgen: dict = field(default_factory=dict)  # the record's account of the LoadGen test
    scores: dict = field(default_factory=dict)  # what the accuracy comes from (SQuAD's exact match and F1)


def measurement_execute(
    *,
    options: MeasureOptions,
    out_dir: Path | None = None,
    instance: str | None = None,
    provider: str | None = None,
    cost_per_hour: Decimal | None = None,
    submit: bool = False,
    progress=None,
) -> MeasurementOutcome:
    """Price, measure, and (if asked, the model meets the threshold and LoadGen judged the test VALID) submit: what
    the command and the Celery task both run.

    Raises:
        InferenceError: with its code, before anything is written.
        ValueError: `--submit` with `--limit` (an entry answers the whole test set).
    """
    from inference.job import measurement_run  # torch and onnxruntime: loaded where a measurement runs

    if submit and options.limit is not None:
        raise ValueError("--submit enters a measurement of the whole test set: drop --limit.")
    now = datetime.datetime.now(datetime.UTC)
    price = inference_price(
        instance=instance, provider=provider, cost_per_hour=cost_per_hour, day=now.date(), vcpus=os.cpu_count()
    )
    out_dir = out_dir or Path(settings.REFERENCE_RUNS_DIR) / (
        f"inference-{options.task}-{options.backend}-{now:%Y%m%dT%H%M%SZ}"
    )
    report = measurement_run(options, out_dir, price=price, progress=progress)
    # The board's verdict on the entry and LoadGen's logs together: an INVALID test is refused there.
    errors = [] if report.verdict.accepted else [issue.as_dict() for issue in report.verdict.errors]
    submission = None
    if submit and not errors:
        submission = measurement_submit(report=report).summary()
    return MeasurementOutcome(
        document=report.as_dict(),
        errors=errors,
        submission=submission,
        loadgen=report.record["loadgen"],
        scores=report.record["scores"],
    )
