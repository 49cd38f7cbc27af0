"""Two requests or two workers at the same moment, on PostgreSQL: still one submission, one entry.

Real concurrency needs a database that locks rows and checks unique indexes across connections, so these run
in the PostgreSQL pass of `make test` and are skipped, saying so, on SQLite.
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

from leaderboard import services
from leaderboard.models import Entry, Submission
from tests.factories import SubmitterFactory, entry_bytes, training_log
from tests.leaderboard.api.helpers import DEFAULT_LOG, DEFAULT_ROWS

# serialized_rollback: the flush between tests would otherwise drop the tasks and prices the migrations load.
pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


@pytest.fixture(autouse=True)
def postgresql_only():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL's row locks and unique indexes across connections (the PostgreSQL pass)")


def at_once(*calls):
    """Run each call in its own thread (its own connection), released together; return results or errors."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(index, call):
        try:
            barrier.wait()
            results[index] = call()
        except Exception as error:  # reported to the test, which asserts on it
            results[index] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(index, call)) for index, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def upload(content: bytes, name: str) -> services.Upload:
    return services.Upload(name=name, content=content)


def create(submitter, *, key: str = "", model: str = "Same run", log: bytes = DEFAULT_LOG):
    return lambda: services.submission_create(
        task_slug="cifar10",
        track="train",
        entry=upload(entry_bytes(model=model), "entry.json"),
        logs=[upload(log, "log.tsv")],
        source="api",
        submitter=submitter,
        idempotency_key=key,
    )


@pytest.mark.parametrize("attempt", range(3))
def test_two_requests_with_one_key_at_once_make_one_submission(attempt):
    submitter = SubmitterFactory()
    first, second = at_once(create(submitter, key="same"), create(submitter, key="same"))
    assert not isinstance(first, Exception) and not isinstance(second, Exception), (first, second)
    assert first.submission_id == second.submission_id, (first, second)
    assert sorted([first.replayed, second.replayed]) == [False, True], (first, second)
    assert Submission.objects.count() == 1 and Entry.objects.count() == 1


@pytest.mark.parametrize("attempt", range(3))
def test_two_workers_judging_two_copies_at_once_rank_one(settings, monkeypatch, attempt):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    monkeypatch.setattr(services.queueing, "_judging_queue", lambda submission, **kwargs: None)
    submitter = SubmitterFactory()
    first = create(submitter)().submission_id
    second = create(submitter)().submission_id
    digest = Submission.objects.get(id=first).files_digest

    verdicts = at_once(
        lambda: services.submission_judge_queued(submission_id=first, files_digest=digest),
        lambda: services.submission_judge_queued(submission_id=second, files_digest=digest),
    )

    assert sorted(verdicts) == ["accepted", "rejected"], verdicts
    assert Entry.objects.count() == 1
    rejected = Submission.objects.get(status="rejected")
    assert rejected.errors[0]["code"] == "duplicate_submission"
    assert rejected.errors[0]["entry_id"] == Entry.objects.get().id


@pytest.mark.parametrize("attempt", range(3))
def test_two_submitters_copies_of_one_log_judged_at_once_rank_one(settings, monkeypatch, attempt):
    """Each worker finds the log free; the database's constraint lets one store it, and the other is told whose
    it is."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    monkeypatch.setattr(services.queueing, "_judging_queue", lambda submission, **kwargs: None)
    first = create(SubmitterFactory(), model="Mine")().submission_id
    second = create(SubmitterFactory(), model="Theirs", log=training_log(DEFAULT_ROWS, newline="\r\n"))()
    digests = dict(Submission.objects.values_list("id", "files_digest"))

    verdicts = at_once(
        lambda: services.submission_judge_queued(submission_id=first, files_digest=digests[first]),
        lambda: services.submission_judge_queued(
            submission_id=second.submission_id, files_digest=digests[second.submission_id]
        ),
    )

    assert sorted(verdicts) == ["accepted", "rejected"], verdicts
    rejected = Submission.objects.get(status="rejected")
    assert rejected.errors[0]["code"] == "log_already_submitted"
    assert rejected.errors[0]["entry_id"] == Entry.objects.get().id
