"""The reference job as a Celery task on the `reference` queue (CELERY_REFERENCE_QUEUE; the settings route
it there), so a worker on a GPU machine can take it:

    celery -A config worker -Q reference --concurrency 1

Its progress (epoch, step, latest quality) is the task's state (`PROGRESS`, with those as its meta) and
the run's row, which `GET /api/v1/reference-runs/{id}/` reads.
"""

from celery import shared_task

from benchmarks.services import (
    ALGORITHM_TRIAL_TASK,
    ALGORITHM_TRIAL_WAIT_SECONDS,
    REFERENCE_RUN_TASK,
    REFERENCE_RUNS_SWEEP_TASK,
    algorithm_trial_execute,
    reference_run_execute,
    reference_runs_sweep,
)

# A reference job trains for minutes (digits) to days (ImageNet on one GPU): the settings' ten-minute limit,
# meant for judging a submission, does not apply.
TIME_LIMIT_SECONDS = 7 * 24 * 3600


@shared_task(
    bind=True,
    name=REFERENCE_RUN_TASK,
    ignore_result=False,  # its final state joins the PROGRESS states in the result backend
    acks_late=False,  # a job of hours is not run twice because a worker died; its row says it failed to finish
    soft_time_limit=TIME_LIMIT_SECONDS - 60,
    time_limit=TIME_LIMIT_SECONDS,
)
def reference_run_task(self, run_id: int) -> str:
    def report(progress: dict) -> None:
        if self.request.id is not None and not self.request.is_eager:
            self.update_state(state="PROGRESS", meta=progress)

    return reference_run_execute(run_id=run_id, report=report)


@shared_task(
    name=ALGORITHM_TRIAL_TASK,
    ignore_result=False,  # the command collects the trial's result from the result backend
    acks_late=False,  # a trial is not run twice because a worker died: the command's wait ends in an error instead
    soft_time_limit=ALGORITHM_TRIAL_WAIT_SECONDS - 60,
    time_limit=ALGORITHM_TRIAL_WAIT_SECONDS,
)
def algorithm_trial_task(*, spec: dict, baseline: str | None, source: str | None, threads: int | None) -> dict:
    """One trial of `run_algorithm --on-queue` on this worker: its result and the machine that ran it."""
    return algorithm_trial_execute(spec=spec, baseline=baseline, source=source, threads=threads)


@shared_task(name=REFERENCE_RUNS_SWEEP_TASK)
def reference_runs_sweep_task() -> int:
    """Celery beat's: the runs whose worker was lost (past their lease) end `failed`."""
    return reference_runs_sweep()
