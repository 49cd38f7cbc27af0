"""A log is on a board once: another submitter's copy is refused with `log_already_submitted`, naming the entry it
belongs to, whether sent as it is or rewritten; the submitter's own log sent again with corrected metadata
replaces their entry in the same verdict."""

from __future__ import annotations

from io import StringIO

import pytest
from celery import current_app
from django.core.management import call_command
from rest_framework.test import APIClient

from leaderboard.models import Entry, Submission
from leaderboard.services import judging
from leaderboard.tasks import submission_judge_task
from tests.factories import SubmitterFactory, entry_bytes, training_log
from tests.leaderboard.api.helpers import DEFAULT_LOG, DEFAULT_ROWS, submit

pytestmark = pytest.mark.django_db

# The same run as DEFAULT_LOG, written otherwise: each is still that run.
REWRITTEN = {
    "crlf": training_log(DEFAULT_ROWS, newline="\r\n"),
    "numbers written otherwise": (
        b"epoch\thours\ttop1Accuracy\n0\t0.010\t80\n1\t2e-2\t90.50\n2\t.03\t94.10\n3\t0.04\t94.5\n"
    ),
    "an extra column": training_log([(*row, 0.5) for row in DEFAULT_ROWS], header="epoch\thours\ttop1Accuracy\tloss"),
    "columns reordered": training_log([(m, e, h) for e, h, m in DEFAULT_ROWS], header="top1Accuracy\tepoch\thours"),
    "rows added after the crossing": training_log([*DEFAULT_ROWS, (4, 0.05, 95.0)]),
}


def other_client() -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {SubmitterFactory().token}")
    return client


@pytest.fixture
def original(api_client) -> Entry:
    response = submit(api_client, entry=entry_bytes(model="Original-Net"), log=DEFAULT_LOG)
    assert response.status_code == 201, response.json()
    return Entry.objects.get()


def assert_refused_as_a_copy_of(response, entry: Entry, *, how: str) -> None:
    assert response.status_code == 400, response.json()
    [error] = response.json()["errors"]
    assert (error["code"], error["field"], error["entry_id"]) == ("log_already_submitted", "log", entry.id)
    assert f"entry {entry.id}" in error["message"] and how in error["message"]


def test_another_submitters_copy_of_a_log_is_refused_naming_the_entry(original):
    response = submit(other_client(), entry=entry_bytes(author="Someone Else", model="Copy-Net"), log=DEFAULT_LOG)

    assert_refused_as_a_copy_of(response, original, how="byte-identical")
    assert list(Entry.objects.accepted()) == [original]


@pytest.mark.parametrize("log", REWRITTEN.values(), ids=REWRITTEN.keys())
def test_a_rewritten_copy_is_refused_too(original, log):
    response = submit(other_client(), entry=entry_bytes(model="Copy-Net"), log=log)

    assert_refused_as_a_copy_of(response, original, how="same rows")
    assert list(Entry.objects.accepted()) == [original]


def test_a_dry_run_answers_as_the_real_submission_would(original):
    client = other_client()

    dry = submit(client, entry=entry_bytes(model="Copy-Net"), log=DEFAULT_LOG, query="?dry_run=1")
    real = submit(client, entry=entry_bytes(model="Copy-Net"), log=DEFAULT_LOG)

    assert_refused_as_a_copy_of(dry, original, how="byte-identical")
    assert dry.json()["errors"] == real.json()["errors"]


def test_another_run_is_not_a_copy(original):
    """The same rows but one: a different run (here one a hundredth of an hour slower to the threshold)."""
    rows = [*DEFAULT_ROWS[:2], (2, 0.04, 94.1), (3, 0.05, 94.5)]

    response = submit(other_client(), entry=entry_bytes(model="Other-Net"), log=training_log(rows))

    assert response.status_code == 201, response.json()
    assert Entry.objects.accepted().count() == 2


def test_the_submitters_own_log_with_corrected_metadata_replaces_their_entry(api_client, original):
    response = submit(
        api_client, entry=entry_bytes(model="Original-Net", hardware="8 V100 (p3.16xlarge)"), log=DEFAULT_LOG
    )

    assert response.status_code == 201, response.json()
    [replaces] = [warning for warning in response.json()["warnings"] if warning["code"] == "replaces_entry"]
    assert f"entry {original.id}" in replaces["message"]
    original.refresh_from_db()
    corrected = Entry.objects.accepted().get()
    assert original.status == Entry.Status.WITHDRAWN
    assert corrected.hardware == "8 V100 (p3.16xlarge)" and corrected.id != original.id
    assert "replaces_entry" in [warning["code"] for warning in corrected.warnings]


def test_the_submitters_own_dry_run_says_it_would_replace_their_entry(api_client, original):
    response = submit(api_client, entry=entry_bytes(hardware="corrected"), log=DEFAULT_LOG, query="?dry_run=1")

    assert response.json()["status"] == "valid"
    assert "replaces_entry" in [warning["code"] for warning in response.json()["warnings"]]
    original.refresh_from_db()
    assert original.status == Entry.Status.ACCEPTED


def test_a_withdrawn_entrys_log_may_be_sent_again(api_client, original):
    original.status = Entry.Status.WITHDRAWN
    original.save()

    assert submit(other_client(), entry=entry_bytes(model="Copy-Net"), log=DEFAULT_LOG).status_code == 201


def test_a_public_dawnbench_log_is_refused_under_a_submitters_entry(sample_dir, api_client):
    """The probe's case: another team's public log, with an entry file of one's own."""
    call_command("import_dawnbench", str(sample_dir), stdout=StringIO())
    imported = Entry.objects.get(source_name="KRes34_1GTX1080Ti_pytorch")
    log = (sample_dir / "CIFAR10" / "train" / "KRes34_1GTX1080Ti_pytorch.tsv").read_bytes()

    response = submit(api_client, entry=entry_bytes(model="My ResNet"), log=log)

    assert_refused_as_a_copy_of(response, imported, how="byte-identical")


@pytest.fixture
def queued(settings, monkeypatch) -> list[dict]:
    """Broker mode, with the messages recorded instead of sent."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    sent: list[dict] = []
    monkeypatch.setattr(current_app, "send_task", lambda name, args, kwargs, **options: sent.append(kwargs))
    return sent


def test_two_pending_copies_end_one_accepted_one_refused(queued):
    first = submit(other_client(), entry=entry_bytes(model="A"), log=DEFAULT_LOG).json()["id"]
    second = submit(other_client(), entry=entry_bytes(model="B"), log=REWRITTEN["crlf"]).json()["id"]

    assert submission_judge_task(second, files_digest=queued[1]["files_digest"]) == "accepted"
    assert submission_judge_task(first, files_digest=queued[0]["files_digest"]) == "rejected"
    assert Entry.objects.accepted().count() == 1


def test_a_copy_accepted_meanwhile_is_caught_by_the_database(queued, monkeypatch):
    """Two workers both find the log free, then both store it: the constraint refuses the second, which is told
    whose it is."""
    first = submit(other_client(), entry=entry_bytes(model="A"), log=DEFAULT_LOG).json()["id"]
    second = submit(other_client(), entry=entry_bytes(model="B"), log=REWRITTEN["crlf"]).json()["id"]
    assert submission_judge_task(first, files_digest=queued[0]["files_digest"]) == "accepted"
    checks = []
    real_claim = judging.log_claim

    def claim_missing_the_first_look(**arguments):
        checks.append(arguments)
        return judging.LogClaim() if len(checks) == 1 else real_claim(**arguments)

    monkeypatch.setattr(judging, "log_claim", claim_missing_the_first_look)

    assert submission_judge_task(second, files_digest=queued[1]["files_digest"]) == "rejected"
    assert len(checks) == 2
    assert Submission.objects.get(id=second).errors[0]["code"] == "log_already_submitted"
    assert Entry.objects.accepted().count() == 1
