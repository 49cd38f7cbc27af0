"""A reference run linked to the seed entry it reproduces, and both pages saying so."""

from __future__ import annotations

import pytest

from leaderboard.models import Entry, Submission
from leaderboard.services import Upload, entry_import, submission_create
from tests.factories import entry_bytes, training_log

pytestmark = pytest.mark.django_db

SEED_NAME = "davidcpage_resnet9_1v100-ec2_pytorch"


def import_seed(name: str = SEED_NAME) -> int:
    outcome = entry_import(
        task_slug="cifar10",
        track="train",
        source_name=name,
        entry=Upload("seed.json", entry_bytes(model="ResNet 9 (seed)")),
        logs=[Upload("seed.tsv", training_log())],  # reaches 94 % at epoch 2
    )
    assert outcome.status == "imported"
    return outcome.entry_id


def submit_reference(record: dict) -> int:
    outcome = submission_create(
        task_slug="cifar10",
        track="train",
        entry=Upload("ref.json", entry_bytes(hardware="2 CPU cores (test CPU)", costPerHour=None)),
        logs=[Upload("ref.tsv", training_log([(1, 0.5, 90.0), (2, 1.0, 93.0), (3, 1.5, 94.2)]))],
        source=Submission.Source.REFERENCE,
        run_record=record,
    )
    assert outcome.status == "accepted", outcome.errors
    return outcome.entry_id


def test_a_reference_run_is_linked_to_the_seed_entry_it_reproduces_and_shown_beside_it(client):
    seed_id = import_seed()
    command = ".venv/bin/python manage.py run_reference cifar10 --recipe resnet9 --seed 7 --device cpu"
    reference_id = submit_reference({"reproduces": SEED_NAME, "command": command, "seed": 7})

    seed_page = client.get(f"/entries/{seed_id}/").content.decode()
    assert (
        'Reproduce this: <code class="reproduce-command">.venv/bin/python manage.py run_reference cifar10 '
        "--recipe resnet9 --data-dir DIR</code> (DIR: the folder holding the task's public dataset;" in seed_page
    )
    section = seed_page[seed_page.index('id="reproductions"') :]
    original = section[section.index('class="original"') :].split("</tr>")[0]
    reproduction = section[section.index(f'data-entry="{reference_id}"') :].split("</tr>")[0]
    assert '<td class="num">2</td>' in original  # the original's epochs to 94 %
    assert (
        '<td class="num">3</td>' in reproduction
        and "2 CPU cores (test CPU)" in reproduction
        and "seed 7" in reproduction
    )
    reference_page = client.get(f"/entries/{reference_id}/").content.decode()
    assert f'reproducing <a href="/entries/{seed_id}/"><bdi>{SEED_NAME}</bdi></a>' in reference_page
    assert command in reference_page


def test_the_first_named_seed_on_the_board_is_the_one_linked():
    follower_id = import_seed("ajay_resnet9_1v100_pytorch")
    reference_id = submit_reference(
        {"reproduces": SEED_NAME, "reproduces_any_of": [SEED_NAME, "ajay_resnet9_1v100_pytorch"]}
    )

    assert Entry.objects.get(id=reference_id).reproduces_id == follower_id


def test_a_run_of_a_seed_not_on_the_board_links_to_nothing_and_a_plain_entry_has_no_command(client):
    reference_id = submit_reference({"reproduces": SEED_NAME})
    plain = entry_import(
        task_slug="cifar10",
        track="train",
        source_name="someone_else",
        entry=Upload("x.json", entry_bytes()),
        logs=[Upload("x.tsv", training_log())],
    )

    assert Entry.objects.get(id=reference_id).reproduces is None
    page = client.get(f"/entries/{plain.entry_id}/").content.decode()
    assert "Reproduce this" not in page and "No reference recipe reproduces this entry." in page
