"""What each command tells its user: what happened, why, and what to do next; a failure is a non-zero exit.

A `CommandError` is what `manage.py` turns into exit status 1, so a test that it is raised is a test of the exit.
"""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from leaderboard.management.commands.submit import describe
from leaderboard.models import Entry, Submitter
from leaderboard.services import SubmissionOutcome, SubmitterExists, submitter_create
from tests.factories import entry_bytes, inference_document, training_log

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.fixture
def write(tmp_path):
    def write_file(name: str, content: bytes) -> str:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        return str(path)

    return write_file


def submit(write, name: str = "entry", *, log: bytes | None = None, **fields) -> str:
    files = [write(f"{name}.json", entry_bytes(model=name, **fields)), write(f"{name}.tsv", log or training_log())]
    return run("submit", "--task", "cifar10", "--track", "train", *files)


def status_with(token: str) -> int:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client.get("/api/v1/submissions/999999/").status_code


# --- tokens ------------------------------------------------------------------------------------------------------


def test_rotate_token_issues_a_working_token_and_revokes_the_old_one(db):
    _, old = submitter_create(name="fast-team", email="fast@example.org")

    document = json.loads(run("rotate_token", "fast-team", "--json"))

    assert document == {"name": "fast-team", "token": document["token"], "expires_at": document["expires_at"]}
    assert document["token"] != old
    assert status_with(old) == 401
    assert status_with(document["token"]) == 404  # authenticated; there is no such submission


def test_rotate_token_json_has_the_shape_of_create_submitter_json(db):
    created = json.loads(run("create_submitter", "fast-team", "--email", "fast@example.org", "--json"))
    rotated = json.loads(run("rotate_token", "fast-team", "--json"))

    assert set(created) == set(rotated) == {"name", "token", "expires_at"}
    assert created["name"] == rotated["name"] == "fast-team"


def test_rotate_token_of_an_unknown_name_says_how_to_create_one(db):
    with pytest.raises(CommandError, match="create_submitter nobody --email"):
        run("rotate_token", "nobody")


def test_create_submitter_on_a_taken_name_says_how_to_rotate_its_token(db):
    run("create_submitter", "fast-team", "--email", "fast@example.org")

    with pytest.raises(CommandError, match="rotate_token fast-team"):
        run("create_submitter", "fast-team", "--email", "other@example.org")
    assert Submitter.objects.count() == 1


def test_submitter_create_refuses_a_name_a_plain_user_already_has(django_user_model):
    django_user_model.objects.create_user(username="admin", password="x")

    with pytest.raises(SubmitterExists):
        submitter_create(name="admin", email="admin@example.org")
    assert Submitter.objects.count() == 0


# --- submit ------------------------------------------------------------------------------------------------------


def test_submit_rejected_prints_each_error_and_names_the_codes_in_the_failure(db, write):
    out = StringIO()
    with pytest.raises(CommandError, match="rejected: threshold_not_reached"):
        call_command(
            "submit", "--task", "cifar10", "--track", "train",
            write("e.json", entry_bytes()), write("l.tsv", training_log([(0, 0.1, 50.0)])),
            stdout=out,
        )  # fmt: skip

    text = out.getvalue()
    assert "None" not in text
    assert text.splitlines()[0] == "rejected: 1 error (nothing stored)"
    assert "  error threshold_not_reached" in text


def test_a_threshold_is_written_as_the_task_states_it_not_as_the_database_stores_it(db, write):
    """The database keeps thresholds to 4 places (98.0000); a message says 98 %."""
    out = StringIO()
    with pytest.raises(CommandError):
        call_command(
            "submit", "--task", "digits", "--track", "train",
            write("e.json", entry_bytes()), write("l.tsv", training_log([(0, 0.1, 97.3333333)])),
            stdout=out,
        )  # fmt: skip
    inference = StringIO()
    with pytest.raises(CommandError):
        call_command(
            "submit", "--task", "digits", "--track", "inference",
            write("i.json", json.dumps(inference_document(top1Accuracy=97.5)).encode()),
            stdout=inference,
        )  # fmt: skip

    assert "threshold, top1Accuracy of 98\u00a0% (best: 97.3333)" in out.getvalue()
    assert "threshold of 98\u00a0%." in inference.getvalue()
    assert "98.0000" not in out.getvalue() + inference.getvalue()


def test_submit_names_the_field_of_an_error(db, write):
    out = StringIO()
    with pytest.raises(CommandError, match="missing_log"):
        call_command("submit", "--task", "cifar10", "--track", "train", write("e.json", entry_bytes()), stdout=out)

    assert "  error missing_log (field log): " in out.getvalue()


def test_submit_accepted_prints_the_entry_and_each_warning_code(db, write):
    text = submit(write, log=training_log(header="epoch\thours\ttop1Accuracy\tloss", rows=[(0, 0.03, 94.1, 0.2)]))

    entry = Entry.objects.get()
    assert (
        text.splitlines()[0]
        == f"accepted: submission {entry.submission_id}, entry {entry.id} (its page: /entries/{entry.id}/)"
    )
    assert "  warning extra_columns" in text


def test_a_pending_submission_says_where_its_verdict_will_be():
    submitter = Submitter(name="fast-team")

    lines = describe(SubmissionOutcome(status="pending", submission_id=7), submitter=submitter)

    assert "queued" in lines[0]
    assert "GET /api/v1/submissions/7/ with fast-team's token" in lines[0]
    assert "/admin/leaderboard/submission/7/change/" in lines[0]


def test_an_unknown_task_lists_the_known_ones_in_submit_and_leaderboard(db, write):
    with pytest.raises(CommandError):
        out = StringIO()
        call_command("submit", "--task", "mnist", "--track", "train", write("e.json", entry_bytes()), stdout=out)
    assert "known tasks: bert, cifar10, deepseekv3_671b, digits" in out.getvalue()

    with pytest.raises(CommandError, match="known tasks: bert, cifar10, deepseekv3_671b, digits"):
        run("leaderboard", "mnist", "training-time")


# --- import_dawnbench --------------------------------------------------------------------------------------------


def test_import_dawnbench_names_the_warning_codes(write, tmp_path):
    write("CIFAR10/train/team.json", entry_bytes(usedBlacklist=False))
    write("CIFAR10/train/team.tsv", training_log())

    text = run("import_dawnbench", str(tmp_path))

    assert "(1 warning: unknown_fields)" in text


def test_import_dawnbench_of_a_folder_without_entries_lists_the_task_folders(tmp_path):
    with pytest.raises(CommandError, match="CIFAR10, Digits, ImageNet, SQuAD"):
        run("import_dawnbench", str(tmp_path))


# --- leaderboard -------------------------------------------------------------------------------------------------


@pytest.fixture
def priced_and_unpriced(write):
    """Three cifar10 training entries: one on a catalog instance, one on hardware the catalog lacks, one unpriced."""
    submit(write, "catalog", hardware="1 V100 (AWS p3.2xlarge)", costPerHour=3.06)
    submit(write, "cluster", hardware="DAWN Internal Cluster", costPerHour=2.0)
    submit(write, "no-price", hardware="DAWN Internal Cluster", costPerHour=None)


def test_the_cost_board_heading_names_its_basis(priced_and_unpriced):
    as_submitted = run("leaderboard", "cifar10", "training-cost").splitlines()[0]
    catalog_today = run("leaderboard", "cifar10", "training-cost", "--cost-basis", "catalog-today").splitlines()[0]

    assert "cost basis as-submitted: the entry's own costPerHour" in as_submitted
    assert "cost basis catalog-today: the catalog's on-demand price for the same hardware today" in catalog_today


def test_the_cost_board_says_how_many_entries_it_leaves_out_and_how_to_see_them(priced_and_unpriced):
    as_submitted = run("leaderboard", "cifar10", "training-cost", "--limit", "1")
    catalog_today = run("leaderboard", "cifar10", "training-cost", "--cost-basis", "catalog-today")

    assert "1 entry of the training-time board left out: they state no costPerHour" in as_submitted
    assert "2 entries of the training-time board left out: no catalog-today price" in catalog_today
    assert ".venv/bin/python manage.py leaderboard cifar10 training-time" in catalog_today
    assert len([line for line in as_submitted.splitlines() if line.startswith("   1  ")]) == 1  # --limit still holds


def test_the_board_text_writes_each_value_in_its_unit_as_the_pages_do(write):
    submit(write, "catalog", hardware="1 V100 (AWS p3.2xlarge)", costPerHour=3.06)
    inference = json.dumps(inference_document(latency=0.0574, cost=1.59565724116162e-09)).encode()
    call_command("submit", "--task", "cifar10", "--track", "inference", write("i.json", inference), stdout=StringIO())

    time_line = run("leaderboard", "cifar10", "training-time").splitlines()[1]
    cost_line = run("leaderboard", "cifar10", "training-cost").splitlines()[1]
    latency_line = run("leaderboard", "cifar10", "inference-latency").splitlines()[1]
    inference_cost_line = run("leaderboard", "cifar10", "inference-cost").splitlines()[1]

    assert re.match(r" +1 +0:01:48  catalog / ", time_line)  # 0.03 h
    assert re.match(r" +1 +\$0\.09180  catalog / ", cost_line)  # 0.03 h x 3.06
    assert re.match(r" +1 +0\.0574\u00a0ms  ResNet 9 / ", latency_line)
    assert re.match(r" +1 +\$0\.00001596  ResNet 9 / ", inference_cost_line)
    assert "e-0" not in time_line + cost_line + latency_line + inference_cost_line


def test_a_board_with_every_entry_priced_says_nothing_is_left_out(write):
    submit(write, "catalog", costPerHour=3.06)

    assert "left out" not in run("leaderboard", "cifar10", "training-cost")


# --- entry_footprint ---------------------------------------------------------------------------------------------


def test_entry_footprint_says_the_hardware_matched_no_catalog_instance(write):
    submit(write, "cluster", hardware="DAWN Internal Cluster")
    entry = Entry.objects.get()

    with pytest.raises(CommandError, match="resolves to no catalog instance"):
        run("entry_footprint", str(entry.id))


def test_entry_footprint_says_an_inference_entry_has_none(write):
    files = [write("i.json", json.dumps(inference_document()).encode())]
    run("submit", "--task", "cifar10", "--track", "inference", *files)
    entry = Entry.objects.get()

    with pytest.raises(CommandError, match="only a training run has one"):
        run("entry_footprint", str(entry.id))


# --- reference runs ----------------------------------------------------------------------------------------------


def test_run_reference_with_an_unknown_recipe_lists_the_task_s_recipes(db):
    with pytest.raises(CommandError, match="its recipes: cnn"):
        run("run_reference", "digits", "--recipe", "resnet")
