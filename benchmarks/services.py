"""Writes for reference runs: submitting a finished run to the board, and queueing and running one for the API.

A run enters the board through `leaderboard.services.submission_create`, the API's own path, with the
source `reference` and its run record kept; nothing here stores an entry itself.

The training stack (torch) is imported by `reference_run_execute` alone, when a run starts: the API views import
this module, and every `manage.py` command imports them through the system checks' URLconf.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from celery import current_app
from django.conf import settings
from django.db import DatabaseError, close_old_connections, connection, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from benchmarks.models import ReferenceRun, Study
from benchmarks.runner.config import Device, EchoStage, RunConfig
from dawnboard.algorithms.bundles import bundle_archive
from dawnboard.rules import Track
from leaderboard.models import Submission
from leaderboard.services import QueueUnavailable, SubmissionOutcome, Upload, submission_create
from leaderboard.services.algorithms import BundleRejected, algorithm_bundle_submit

if TYPE_CHECKING:
    from benchmarks.runner.job import RunReport
    from benchmarks.runner.loop import Progress
    from benchmarks.runner.record import WrittenRun

logger = logging.getLogger(__name__)

REFERENCE_RUN_TASK = "benchmarks.reference_run"  # queued by name; benchmarks/tasks.py defines it
REFERENCE_RUNS_SWEEP_TASK = "benchmarks.reference_runs_sweep"  # Celery beat's (settings)
PROGRESS_INTERVAL_SECONDS = 1.0  # a progress write at most this often, and at every evaluation


def reference_run_submit(*, written: WrittenRun) -> SubmissionOutcome:
    """Enter a finished run's entry and log into the board, marked `reference`, its run record kept."""
    return reference_runs_submit(written=[written])


def algorithm_bundle_send(*, bundle_dir: Path) -> dict:
    """Enter a results bundle `run_algorithm` wrote into its board, through the API's own path (the folder zipped as
    a submitter would send it): what `run_algorithm --submit` reports, `{"status": "accepted", "id", "url", ...}`
    or `{"status": "rejected", "errors": [...]}`."""
    files = {
        path.relative_to(bundle_dir).as_posix(): path.read_bytes() for path in bundle_dir.rglob("*") if path.is_file()
    }
    upload = Upload(name=f"{bundle_dir.name}.zip", content=bundle_archive(files))
    try:
        result = algorithm_bundle_submit(bundle=upload, submitter=None)
    except BundleRejected as rejected:
        return {"status": "rejected", "errors": [issue.as_dict() for issue in rejected.issues]}
    return {
        "status": "accepted", "id": result.id, "url": reverse("leaderboard:algorithm", args=[result.id]),
        "suite": result.suite, "ruleset": result.ruleset, "score_vs_reference": result.score_vs_reference,
        "geomean_speedup_vs_reference": result.geomean_speedup, "bundle_sha256": result.bundle_sha256,
        "warnings": result.warnings,
    }  # fmt: skip


def reference_runs_submit(*, written: list[WrittenRun]) -> SubmissionOutcome:
    """Enter finished runs into the board as one entry of several runs, marked `reference`: the first run's entry
    JSON, every run's log in order (a run that missed the threshold counts as failed), their records kept
    (`{"runs": [...]}`; one run keeps its record as it is)."""
    first = written[0]
    return submission_create(
        task_slug=first.record["task"],
        track=Track.TRAIN,
        entry=Upload(name=f"{first.name}.json", content=first.entry_bytes),
        logs=[Upload(name=f"{run.name}.tsv", content=run.log_bytes) for run in written],
        source=Submission.Source.REFERENCE,
        run_record=first.record if len(written) == 1 else {"runs": [run.record for run in written]},
    )


class NoReferenceWorker(Exception):
    """No broker is configured and runs may not train inside the request (REFERENCE_RUNS_IN_REQUEST)."""


def reference_run_request(*, requested_by=None, **options) -> ReferenceRun:
    """Store a requested run and queue it on the reference queue.

    Without a broker it runs in this process, after the request's transaction, where REFERENCE_RUNS_IN_REQUEST
    allows it (the local site and the tests); otherwise NoReferenceWorker is raised and nothing is stored.
    """
    if settings.CELERY_TASK_ALWAYS_EAGER and not settings.REFERENCE_RUNS_IN_REQUEST:
        raise NoReferenceWorker(
            "No worker takes reference runs here (no CELERY_BROKER_URL): run "
            "`.venv/bin/python manage.py run_reference`."
        )
    with transaction.atomic():
        if settings.CELERY_TASK_ALWAYS_EAGER:
            run = ReferenceRun.objects.create(requested_by=requested_by, **options)
            transaction.on_commit(lambda: reference_run_execute(run_id=run.id))
        else:
            run = ReferenceRun.objects.create(requested_by=requested_by, task_id=str(uuid.uuid4()), **options)
            transaction.on_commit(lambda: _reference_run_queue(run))
    return run


def _reference_run_queue(run: ReferenceRun) -> None:
    """Queue a stored run; a broker that refuses it ends the run `failed`, saying so, rather than `queued` forever."""
    try:
        current_app.send_task(
            REFERENCE_RUN_TASK, args=[run.id], queue=settings.CELERY_REFERENCE_QUEUE, task_id=run.task_id
        )
    except Exception as error:  # kombu's OperationalError, or anything else that kept the message off the queue
        logger.warning("The broker did not take reference run %s: %s", run.id, error)
        _finish(
            run.id,
            ReferenceRun.State.FAILED,
            error=f"The queue was unreachable; nothing ran. Start it again. ({error})",
        )
        run.refresh_from_db()


def reference_run_execute(*, run_id: int, report: Callable[[dict], None] | None = None) -> str:
    """Run a queued reference job, writing its progress and its outcome to its row. Returns the final state.

    `report` also receives every progress write (the Celery task passes its state update).
    """
    from benchmarks.runner.job import reference_run  # torch: loaded where a run trains, never by the API's import
    from benchmarks.workloads.base import DatasetMissing

    now = timezone.now()
    claimed = ReferenceRun.objects.filter(id=run_id, state=ReferenceRun.State.QUEUED).update(
        state=ReferenceRun.State.RUNNING, started_at=now, lease_until=now + _lease()
    )
    run = ReferenceRun.objects.get(id=run_id)
    if not claimed:
        return run.state  # delivered twice: the delivery that claimed it runs it
    out_dir = Path(settings.REFERENCE_RUNS_DIR) / run_folder(run)
    try:
        with _heartbeat(run_id):
            result = reference_run(
                reference_run_config(run, data_dir=_data_dir(run.task_slug)),
                out_dir,
                progress=_progress_writer(run_id, report),
            )
            outcome = _outcome_of(result, submit=run.submit)
    except DatasetMissing as error:
        return _finish(run_id, ReferenceRun.State.FAILED, error=str(error))
    except Exception as error:  # a run never stays "running": its row says how it ended (a time limit included)
        logger.exception("Reference run %s failed", run_id)
        return _finish(run_id, ReferenceRun.State.FAILED, error=f"{type(error).__name__}: {error}")
    return _finish(run_id, ReferenceRun.State.SUCCEEDED, outcome=outcome)


def _lease() -> timedelta:
    return timedelta(seconds=settings.REFERENCE_RUN_LEASE_SECONDS)


@contextmanager
def _heartbeat(run_id: int):
    """While the block runs, a thread renews the run's lease every REFERENCE_RUN_HEARTBEAT_SECONDS: a run whose
    worker was killed outright (SIGKILL, the machine lost) stops renewing it, and the sweep ends it `failed`."""
    stop = threading.Event()

    def beat() -> None:
        try:
            while not stop.wait(settings.REFERENCE_RUN_HEARTBEAT_SECONDS):
                try:
                    ReferenceRun.objects.filter(id=run_id, state=ReferenceRun.State.RUNNING).update(
                        lease_until=timezone.now() + _lease()
                    )
                except DatabaseError as error:  # a database restarting: beat again with a new connection
                    logger.warning("Reference run %s: its lease was not renewed this time: %s", run_id, error)
                    close_old_connections()
                    connection.close()
        finally:
            connection.close()  # this thread's own connection

    thread = threading.Thread(target=beat, name=f"reference-run-{run_id}-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def reference_runs_sweep() -> int:
    """End `failed` every run still `running` past its lease: its worker stopped renewing it (killed outright, the
    machine lost), so nothing will finish it. Returns how many were ended. Called by Celery beat."""
    close_old_connections()
    now = timezone.now()
    # A run started before leases existed has none: lost once it has run a whole lease without one.
    past_lease = Q(lease_until__lt=now) | Q(lease_until__isnull=True, started_at__lt=now - _lease())
    lost = ReferenceRun.objects.filter(past_lease, state=ReferenceRun.State.RUNNING)
    ended = 0
    for run_id, lease_until in lost.values_list("id", "lease_until"):
        since = (
            f"its lease ran out at {lease_until.isoformat(timespec='seconds')}" if lease_until else "it held no lease"
        )
        reason = (
            f"The worker running it was lost: {since}, with no heartbeat since (the worker was killed, or its "
            "machine lost). Start it again."
        )
        ended += ReferenceRun.objects.filter(past_lease, id=run_id, state=ReferenceRun.State.RUNNING).update(
            state=ReferenceRun.State.FAILED, error=reason, finished_at=now, lease_until=None
        )
        logger.warning("Reference run %s ended failed: %s", run_id, reason)
    return ended


def reference_run_config(run: ReferenceRun, *, data_dir: Path | None = None) -> RunConfig:
    """The run as the job takes it; `data_dir` matters to training only (its command leaves it out)."""
    return RunConfig(
        task=run.task_slug,
        recipe=run.recipe,
        data_dir=data_dir,
        device=Device(run.device),
        seed=run.seed,
        max_epochs=run.max_epochs,
        echo_factor=run.echo_factor,
        echo_stage=EchoStage(run.echo_stage),
    )


def run_folder(run: ReferenceRun) -> str:
    """The run's folder under REFERENCE_RUNS_DIR (the API shows file names relative to it, never server paths)."""
    return f"{run.task_slug}-{run.recipe}-run{run.id}"


def _data_dir(task_slug: str) -> Path | None:
    directory = Path(settings.REFERENCE_DATA_DIR) / task_slug
    return directory if directory.exists() else None


def _progress_writer(run_id: int, report: Callable[[dict], None] | None) -> Callable[[Progress], None]:
    last_write = 0.0

    def write(progress: Progress) -> None:
        nonlocal last_write
        now = time.monotonic()
        if not progress.evaluated and now - last_write < PROGRESS_INTERVAL_SECONDS:
            return
        last_write = now
        state = {
            "epoch": progress.epoch,
            "epochs": progress.epochs,
            "step": progress.step,
            "steps_per_epoch": progress.steps_per_epoch,
            "training_seconds": round(progress.training_seconds, 3),
            "quality": progress.quality,
        }
        ReferenceRun.objects.filter(id=run_id).update(progress=state)
        if report is not None:
            report(state)

    return write


def _outcome_of(report: RunReport, *, submit: bool) -> dict:
    outcome = report.as_dict()
    outcome.pop("record", None)  # the files keep it; the submission keeps it too
    outcome["files"] = {role: Path(path).name for role, path in outcome.pop("paths").items()}
    if submit and report.submittable:
        try:
            outcome["submission"] = reference_run_submit(written=report.written).summary()
        except QueueUnavailable as unavailable:  # hours of training are not lost with the broker: say so
            outcome["submission"] = {
                "status": "not_submitted",
                "errors": [{"code": "queue_unavailable", "message": f"{unavailable} Submit the files written."}],
            }
    return outcome


def _finish(run_id: int, state: str, *, outcome: dict | None = None, error: str = "") -> str:
    """End a queued or running run; one the sweep ended already (its lease lapsed) keeps that ending."""
    ended = ReferenceRun.objects.filter(
        id=run_id, state__in=[ReferenceRun.State.QUEUED, ReferenceRun.State.RUNNING]
    ).update(state=state, outcome=outcome, error=error, finished_at=timezone.now(), lease_until=None)
    if not ended:
        final = ReferenceRun.objects.values_list("state", flat=True).get(id=run_id)
        logger.warning("Reference run %s finished %s after it was ended %s; it stays %s", run_id, state, final, final)
        return final
    return state


ALGORITHM_TRIAL_TASK = "benchmarks.algorithm_trial"  # queued by name; benchmarks/tasks.py defines it
# A trial lasts at most its workload's budget x 1.5 (self-tuning) plus its evaluations: minutes on the CPU suite.
ALGORITHM_TRIAL_WAIT_SECONDS = 30 * 60


class NoResultBackend(Exception):
    """`--on-queue` needs a result backend to collect the trials' results, and the settings name none."""


def algorithm_trial_execute(*, spec: dict, baseline: str | None, source: str | None, threads: int | None) -> dict:
    """Run one trial of the algorithm (a shipped baseline by name, or a module's source text, which is the
    submitter's own code run on the submitter's own workers) on this machine; its result, with this machine's facts,
    as plain values for the result backend."""
    import tempfile
    from dataclasses import asdict

    import torch

    from benchmarks.algorithms.runner import algorithm_module, run_trial
    from benchmarks.algorithms.suite import TrialSpec
    from benchmarks.algorithms.workloads import workload_class
    from benchmarks.runner.record import machine_facts

    trial = TrialSpec(**spec)
    with tempfile.TemporaryDirectory() as folder:
        if baseline is not None:
            module = algorithm_module(baseline)
        else:
            path = Path(folder) / "submission.py"
            path.write_text(source or "", encoding="utf-8")
            module = algorithm_module(str(path))
        result = run_trial(
            workload_class(trial.workload)(), module, trial.point, seed=trial.seed,
            budget_factor=trial.budget_factor, threads=threads,
        )  # fmt: skip
    machine = machine_facts("cpu") | {"threads": torch.get_num_threads() if threads is None else threads}
    return asdict(result) | {"machine": machine}


def queue_executor(*, threads: int | None = None):
    """An executor (`benchmarks.algorithms.suite.Executor`) sending every trial to the reference workers at once, one
    task a trial (a worker takes one at a time: `--concurrency 1`), and collecting their results in order; without
    a broker (`CELERY_TASK_ALWAYS_EAGER`), the tasks' work in this process, as the other reference tasks do.

    Raises:
        NoResultBackend: with a broker but no result backend to read the results from.
    """
    from benchmarks.algorithms.runner import TrialResult

    if not settings.CELERY_TASK_ALWAYS_EAGER and not settings.CELERY_RESULT_BACKEND:
        raise NoResultBackend(
            "--on-queue collects each trial's result from Celery's result backend, and CELERY_RESULT_BACKEND is not "
            "set: set it (a Redis URL), or run without --on-queue."
        )

    def execute(contender, specs) -> list[TrialResult]:
        import json
        from dataclasses import asdict

        source = None if contender.baseline else contender.source
        calls = [
            {"spec": asdict(spec), "baseline": contender.baseline, "source": source, "threads": threads}
            for spec in specs
        ]
        if settings.CELERY_TASK_ALWAYS_EAGER:  # no broker: the task's work here, its result through JSON as a worker's
            return [TrialResult(**json.loads(json.dumps(algorithm_trial_execute(**call)))) for call in calls]
        sent = [
            current_app.send_task(ALGORITHM_TRIAL_TASK, kwargs=call, queue=settings.CELERY_REFERENCE_QUEUE)
            for call in calls
        ]
        return [TrialResult(**result.get(timeout=ALGORITHM_TRIAL_WAIT_SECONDS)) for result in sent]

    return execute


def study_create(
    *,
    workload: str,
    setting: str,
    values: list,
    algorithm: str,
    runs_per_value: int,
    target: dict,
    runs: list[dict],
    machine: dict,
) -> Study:
    """Store a finished study (`benchmarks.algorithms.study`): its plan, its workload's target and every run."""
    with transaction.atomic():
        study = Study(
            workload=workload, setting=setting, values=values, algorithm=algorithm, runs_per_value=runs_per_value,
            target=target, runs=runs, machine=machine,
        )  # fmt: skip
        study.full_clean()
        study.save()
    return study
