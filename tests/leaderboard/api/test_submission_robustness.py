"""No submission lost, doubled or stuck: idempotent retries, duplicates, the queue down, lost workers, the sweep.

With a broker the API stores a submission and queues its judging; these tests use a broker that refuses
connections (nothing listens on its port) or record what would have been queued, and run the worker's
task function themselves. The real worker, killed and restarted, is `make soak`'s business.
"""

from __future__ import annotations

import socket
from datetime import timedelta

import pytest
from celery import current_app
from celery.exceptions import SoftTimeLimitExceeded
from django.utils import timezone

from leaderboard import services
from leaderboard.models import Entry, Submission
from leaderboard.tasks import submission_judge_task, submissions_sweep_task
from tests.factories import SubmitterFactory, entry_bytes, training_log
from tests.leaderboard.api.helpers import DEFAULT_LOG, SUBMISSIONS_URL, submit

pytestmark = pytest.mark.django_db


def submit_with_key(client, key: str, **kwargs):
    client.credentials(HTTP_AUTHORIZATION=client._credentials["HTTP_AUTHORIZATION"], HTTP_IDEMPOTENCY_KEY=key)
    try:
        return submit(client, **{"log": DEFAULT_LOG, **kwargs})  # a retry sends the same files
    finally:
        client.credentials(HTTP_AUTHORIZATION=client._credentials["HTTP_AUTHORIZATION"])


# --- idempotent retries ------------------------------------------------------------------------------------


def test_a_retried_request_with_its_idempotency_key_answers_the_first_submission(api_client):
    first = submit_with_key(api_client, "retry-1")
    again = submit_with_key(api_client, "retry-1")
    assert first.status_code == 201
    assert again.status_code == 200
    assert again.json()["id"] == first.json()["id"]
    assert again.json()["status"] == "accepted"
    assert again["Idempotent-Replayed"] == "true"
    assert Submission.objects.count() == 1 and Entry.objects.count() == 1


def test_the_same_key_with_other_files_is_refused_and_stores_nothing(api_client):
    first = submit_with_key(api_client, "retry-2")
    other = submit_with_key(api_client, "retry-2", entry=entry_bytes(model="Another model"))
    assert other.status_code == 422
    assert other.json()["errors"][0]["code"] == "idempotency_key_reused"
    assert other.json()["id"] == first.json()["id"]
    assert Submission.objects.count() == 1


def test_keys_belong_to_their_submitter(api_client):
    submit_with_key(api_client, "shared-key")
    other_client = type(api_client)()
    other_client.credentials(HTTP_AUTHORIZATION=f"Token {SubmitterFactory().token}")
    response = submit_with_key(other_client, "shared-key", entry=entry_bytes(model="Theirs"), log=training_log())
    assert response.status_code == 201
    assert Submission.objects.count() == 2


def test_a_key_older_than_a_day_is_forgotten(api_client):
    first = submit_with_key(api_client, "old-key")
    Submission.objects.filter(id=first.json()["id"]).update(created_at=timezone.now() - timedelta(hours=25))
    response = submit_with_key(api_client, "old-key", entry=entry_bytes(model="A new run"))
    assert response.status_code == 201
    assert response.json()["id"] != first.json()["id"]


@pytest.mark.parametrize("key", ["has space", "x" * 201, "é"])
def test_an_unusable_key_is_refused_by_name(api_client, key):
    response = submit_with_key(api_client, key)
    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "invalid_idempotency_key"
    assert not Submission.objects.exists()


# --- duplicates ----------------------------------------------------------------------------------------------


def test_byte_identical_files_are_ranked_once(api_client):
    first = submit(api_client, log=DEFAULT_LOG)
    again = submit(api_client, log=DEFAULT_LOG)
    assert first.status_code == 201
    assert again.status_code == 400
    [error] = again.json()["errors"]
    assert error["code"] == "duplicate_submission"
    assert error["entry_id"] == Entry.objects.get().id
    assert Entry.objects.count() == 1


def test_the_same_entry_with_another_log_is_another_run(api_client):
    submit(api_client)
    changed_log = submit(api_client, log=training_log([(0, 0.01, 80.0), (1, 0.025, 94.2)]))
    assert changed_log.status_code == 201
    assert Entry.objects.count() == 2


def test_a_task_or_track_sent_as_a_file_is_a_400_not_a_500(api_client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = api_client.post(
        SUBMISSIONS_URL,
        {"task": SimpleUploadedFile("task", b"cifar10"), "track": "train", "entry": SimpleUploadedFile("e", b"{}")},
        format="multipart",
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "missing_field"


def test_the_database_refuses_a_second_accepted_copy_whoever_judges_it():
    """The constraint that holds when two workers judge two copies at the same moment."""
    from django.db import IntegrityError, transaction

    submitter = SubmitterFactory()
    fields = {"submitter": submitter, "source": "api", "task_slug": "cifar10", "track": "train", "files_digest": "d"}
    Submission.objects.create(status="accepted", **fields)
    with pytest.raises(IntegrityError), transaction.atomic():
        Submission.objects.create(status="accepted", **fields)
    Submission.objects.create(status="rejected", **fields)  # rejected copies may be many


def test_an_entry_over_its_limit_is_refused_from_its_size_before_it_is_stored(api_client, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False  # with a broker, nothing may be stored or queued for it either
    response = submit(api_client, entry=b"{" + b" " * (1024 * 1024) + b"}")
    assert response.status_code == 400
    assert [(error["code"], error["field"]) for error in response.json()["errors"]] == [("entry_too_large", "entry")]
    assert not Submission.objects.exists()


# --- with a broker: queued, judged by a worker, never lost -----------------------------------------------


@pytest.fixture
def queued(settings, monkeypatch):
    """Broker mode, with the messages recorded instead of sent."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    sent: list[dict] = []
    monkeypatch.setattr(
        current_app,
        "send_task",
        lambda name, args, kwargs, **options: sent.append({"name": name, "args": args, **kwargs, **options}),
    )
    return sent


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # closed again when the block ends: connections to it are refused


@pytest.fixture
def unreachable_broker(settings):
    """Broker mode with a real Redis URL on which nothing listens."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    original = current_app.conf.broker_url
    current_app.conf.broker_url = f"redis://127.0.0.1:{_closed_port()}/0"
    current_app.pool.force_close_all()
    current_app._pool = None
    yield
    current_app.conf.broker_url = original
    current_app._pool = None


def test_with_the_broker_down_the_client_gets_503_and_nothing_is_stored(api_client, unreachable_broker):
    response = submit_with_key(api_client, "when-down")
    assert response.status_code == 503
    assert response.json()["errors"][0]["code"] == "queue_unavailable"
    assert int(response["Retry-After"]) > 0
    assert not Submission.objects.exists()


def test_the_message_names_the_submission_and_its_files_and_a_worker_judges_it(api_client, queued):
    response = submit(api_client)
    assert response.status_code == 202
    [message] = queued
    submission = Submission.objects.get(id=response.json()["id"])
    assert message["args"] == [submission.id]
    assert message["files_digest"] == submission.files_digest != ""
    # No result is asked for: with one, a broker down holds the request on the result backend for seconds.
    assert message["ignore_result"] is True
    assert submission.times_queued == 1 and submission.queued_at is not None

    assert submission_judge_task(submission.id, files_digest=message["files_digest"]) == "accepted"
    assert submission_judge_task(submission.id, files_digest=message["files_digest"]) == "accepted"  # redelivered
    assert Entry.objects.filter(submission=submission).count() == 1


def test_a_message_for_other_files_is_refused(api_client, queued):
    submission_id = submit(api_client).json()["id"]
    assert submission_judge_task(submission_id, files_digest="0" * 64) == "refused"
    assert Submission.objects.get(id=submission_id).status == "pending"


def test_a_message_for_a_submission_not_stored_yet_is_retried_not_dropped(api_client, queued):
    """The message goes out inside the storing transaction, so it can arrive before the row commits."""
    submission_id = submit(api_client).json()["id"]
    with pytest.raises(services.SubmissionNotVisible):
        submission_judge_task(submission_id + 1000, files_digest=queued[0]["files_digest"])
    assert submission_judge_task.autoretry_for and services.SubmissionNotVisible in submission_judge_task.autoretry_for


def test_a_second_delivery_leaves_a_leased_submission_to_the_worker_judging_it(api_client, queued):
    submission_id = submit(api_client).json()["id"]
    Submission.objects.filter(id=submission_id).update(
        judging_starts=1, judging_lease_until=timezone.now() + timedelta(minutes=1)
    )
    assert submission_judge_task(submission_id, files_digest=queued[0]["files_digest"]) == "pending"
    assert Submission.objects.get(id=submission_id).judging_starts == 1  # not counted as a start
    Submission.objects.filter(id=submission_id).update(judging_lease_until=timezone.now() - timedelta(seconds=1))
    assert submission_judge_task(submission_id, files_digest=queued[0]["files_digest"]) == "accepted"
    assert Submission.objects.get(id=submission_id).judging_starts == 2


def test_a_retry_while_pending_answers_the_pending_submission(api_client, queued):
    first = submit_with_key(api_client, "pending-retry")
    again = submit_with_key(api_client, "pending-retry")
    assert (first.status_code, again.status_code) == (202, 200)
    assert again.json()["status"] == "pending" and again.json()["id"] == first.json()["id"]
    assert len(queued) == 1


def test_two_pending_copies_of_the_same_files_end_one_accepted_one_duplicate(api_client, queued):
    first, second = (submit(api_client, log=DEFAULT_LOG).json()["id"] for _ in range(2))
    digest = queued[0]["files_digest"]
    assert submission_judge_task(second, files_digest=digest) == "accepted"
    assert submission_judge_task(first, files_digest=digest) == "rejected"
    assert Submission.objects.get(id=first).errors[0]["code"] == "duplicate_submission"
    assert Entry.objects.count() == 1


def test_a_file_that_keeps_killing_its_worker_ends_failed(api_client, queued, settings):
    submission_id = submit(api_client).json()["id"]
    Submission.objects.filter(id=submission_id).update(judging_starts=settings.SUBMISSION_JUDGE_MAX_TRIES)
    assert submission_judge_task(submission_id, files_digest=queued[0]["files_digest"]) == "failed"
    verdict = api_client.get(f"{SUBMISSIONS_URL}{submission_id}/").json()
    assert verdict["status"] == "failed"
    assert verdict["errors"][0]["code"] == "judging_failed"


def test_a_failed_submission_releases_its_key_so_a_retry_is_a_new_try(api_client, queued, settings):
    first = submit_with_key(api_client, "after-failure").json()["id"]
    services.submission_judging_fail(submission_id=first, reason="Lost.")
    again = submit_with_key(api_client, "after-failure")
    assert again.status_code == 202 and again.json()["id"] != first


def test_judging_past_its_soft_time_limit_ends_failed_not_pending(api_client, queued, monkeypatch):
    submission_id = submit(api_client).json()["id"]

    def too_slow(**kwargs):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr("leaderboard.services.queueing.submission_judge", too_slow)
    assert submission_judge_task(submission_id, files_digest=queued[0]["files_digest"]) == "failed"
    assert Submission.objects.get(id=submission_id).errors[0]["code"] == "judging_failed"


def test_the_judging_task_survives_a_lost_worker_by_configuration():
    """A child killed mid-judging hands its message back; Redis redelivers a dead worker's message soon."""
    from django.conf import settings as django_settings

    assert submission_judge_task.acks_late and submission_judge_task.reject_on_worker_lost
    transport = django_settings.CELERY_BROKER_TRANSPORT_OPTIONS
    assert transport["visibility_timeout"] < django_settings.SUBMISSION_JUDGE_TIME_LIMIT_SECONDS
    assert "submissions-sweep" in django_settings.CELERY_BEAT_SCHEDULE


# --- the sweep -----------------------------------------------------------------------------------------------


def test_the_sweep_queues_again_what_is_pending_past_the_deadline_and_fails_what_is_out_of_tries(
    api_client, queued, settings
):
    stale, fresh, spent, leased, backlogged = (
        submit(api_client, entry=entry_bytes(model=name)).json()["id"] for name in "ABCDE"
    )
    long_ago = timezone.now() - timedelta(seconds=settings.SUBMISSION_JUDGE_DEADLINE_SECONDS + 1)
    Submission.objects.filter(id__in=[stale, spent, leased, backlogged]).update(queued_at=long_ago)
    Submission.objects.filter(id=spent).update(judging_starts=settings.SUBMISSION_JUDGE_MAX_TRIES)
    Submission.objects.filter(id=leased).update(judging_lease_until=timezone.now() + timedelta(minutes=1))
    Submission.objects.filter(id=backlogged).update(times_queued=10)  # queued often, never started: waiting
    queued.clear()

    summary = submissions_sweep_task()

    assert summary["requeued"] == [stale, backlogged] and summary["failed"] == [spent]
    assert [message["args"] for message in queued] == [[stale], [backlogged]]
    assert queued[0]["files_digest"] == Submission.objects.get(id=stale).files_digest
    assert Submission.objects.get(id=stale).times_queued == 2
    assert Submission.objects.get(id=fresh).times_queued == 1
    assert Submission.objects.get(id=spent).status == "failed"
    assert Submission.objects.get(id=leased).times_queued == 1


def test_a_row_stored_but_never_queued_is_queued_by_the_sweep(api_client, settings, monkeypatch):
    """A process that died between storing and queueing: the sweep is the backstop."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    sent = []
    monkeypatch.setattr(current_app, "send_task", lambda name, args, kwargs, **options: sent.append(args))
    submission = services.submission_store(
        task_slug="cifar10", track="train", entry=services.Upload("e.json", entry_bytes()), logs=[],
        source="api", submitter=None,
    )  # fmt: skip
    Submission.objects.filter(id=submission.id).update(created_at=timezone.now() - timedelta(days=1))
    services.submissions_sweep()
    assert sent == [[submission.id]]


def test_the_sweep_forgets_keys_older_than_a_day(api_client):
    first = submit_with_key(api_client, "to-forget")
    Submission.objects.filter(id=first.json()["id"]).update(created_at=timezone.now() - timedelta(hours=25))
    assert services.submissions_sweep().keys_forgotten == 1
    assert Submission.objects.get().idempotency_key == ""


# --- the submitter's own list --------------------------------------------------------------------------------


def test_submitters_list_their_own_submissions_newest_first_by_status(api_client, queued):
    ids = [submit(api_client, entry=entry_bytes(model=name)).json()["id"] for name in "ABC"]
    submission_judge_task(ids[0], files_digest=Submission.objects.get(id=ids[0]).files_digest)
    other = type(api_client)()
    other.credentials(HTTP_AUTHORIZATION=f"Token {SubmitterFactory().token}")
    submit(other, entry=entry_bytes(model="not mine"))

    listing = api_client.get(SUBMISSIONS_URL).json()
    assert listing["count"] == 3
    assert [row["id"] for row in listing["results"]] == ids[::-1]
    pending = api_client.get(SUBMISSIONS_URL, {"status": "pending"}).json()
    assert [row["id"] for row in pending["results"]] == ids[:0:-1]
    accepted = api_client.get(SUBMISSIONS_URL, {"status": "accepted"}).json()["results"]
    assert accepted[0]["entry_url"].endswith(f"/api/v1/entries/{Entry.objects.get().id}/")


def test_an_unknown_status_filter_is_a_400_with_its_code(api_client):
    response = api_client.get(SUBMISSIONS_URL, {"status": "lost"})
    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "invalid_status"


def test_the_list_needs_a_token(anonymous_client):
    assert anonymous_client.get(SUBMISSIONS_URL).status_code == 401
