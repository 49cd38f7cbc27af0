"""The reference job as a Celery task on the `reference` queue (CELERY_REFERENCE_QUEUE; the settings route
it there), so a worker on a GPU machine can take it:

    celery -A config worker -Q reference --concurrency 1

Its progress (epoch, step, latest quality) is the task's state (`PROGRESS`, with those as its meta) and
the run's row, which `GET /api/v1/reference-runs/{id}/` reads.
"""

from celery import shared_task

from benchmarks.services import REFERENCE_RUN_TASK, reference_run_execute

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
