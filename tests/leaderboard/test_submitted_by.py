"""Who submitted an entry: the account that sent it is named beside the files' author, on the entry page, on
the board, in the API, the exports and the command; an entry imported from the DAWNBench archive says so."""

from __future__ import annotations

import csv
import io
import json
import re
from io import StringIO

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from leaderboard.models import Entry
from tests.factories import SubmitterFactory, entry_bytes, submit_training_entry
from tests.leaderboard.api.helpers import submit

pytestmark = pytest.mark.django_db

AUTHOR = "Dawnboard reference job"


@pytest.fixture
def my_team_entry() -> Entry:
    """An entry whose files name one author, submitted with the token of the account "my-team"."""
    team = SubmitterFactory(name="my-team")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {team.token}")
    assert submit(api, entry=entry_bytes(author=AUTHOR)).status_code == 201
    return Entry.objects.get()


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


def test_the_entry_page_names_the_submitting_account_beside_the_author(client, my_team_entry):
    html = client.get(f"/entries/{my_team_entry.id}/").content.decode()

    row = html.split('id="submitted-by">')[1].split("</td>")[0]
    assert text_of(row) == "submitted by my-team through the API"
    assert f"By {AUTHOR}; submitted by my-team through the API." in text_of(html)


def test_the_board_names_the_submitting_account_beside_the_team(client, my_team_entry):
    html = client.get("/tasks/cifar10/").content.decode()

    row = html.split(f'data-entry-id="{my_team_entry.id}"')[1].split("</tr>")[0]
    assert f'<bdi>{AUTHOR}</bdi><br><span class="muted submitter">submitted by <bdi>my-team</bdi></span>' in row


def test_the_api_names_the_submitting_account_of_an_entry(client, my_team_entry):
    detail = client.get(f"/api/v1/entries/{my_team_entry.id}/").json()
    listed = client.get("/api/v1/entries/").json()["results"][0]
    board = client.get("/api/v1/leaderboards/cifar10/training-time/").json()["results"][0]

    assert (detail["author"], detail["submitter"], detail["submission_source"]) == (AUTHOR, "my-team", "api")
    assert (listed["submitter"], listed["submission_source"]) == ("my-team", "api")
    assert (board["team"], board["submitter"]) == (AUTHOR, "my-team")


def test_the_exports_and_the_command_name_the_submitting_account(client, my_team_entry):
    rows = list(csv.DictReader(io.StringIO(client.get("/tasks/cifar10/export.csv").getvalue().decode())))
    exported = json.loads(client.get("/tasks/cifar10/export.json").getvalue())["results"]
    out = StringIO()
    call_command("leaderboard", "cifar10", "training-time", stdout=out)

    assert [(row["team"], row["submitter"]) for row in rows] == [(AUTHOR, "my-team")]
    assert [(row["team"], row["submitter"]) for row in exported] == [(AUTHOR, "my-team")]
    assert f"{AUTHOR} (submitted by my-team)" in out.getvalue()


def test_an_imported_entry_says_no_account_submitted_it(client, sample_dir):
    call_command("import_dawnbench", str(sample_dir), stdout=StringIO())
    entry = Entry.objects.get(source_name="basenet")

    html = client.get(f"/entries/{entry.id}/").content.decode()
    detail = client.get(f"/api/v1/entries/{entry.id}/").json()

    assert "imported from the public DAWNBench archive (no account submitted it)" in text_of(html)
    assert (detail["submitter"], detail["submission_source"]) == (None, "import")


def test_an_entry_submitted_by_the_command_without_an_account_says_how_it_came(client, tmp_path):
    entry = submit_training_entry(tmp_path)

    html = client.get(f"/entries/{entry.id}/").content.decode()

    assert "submitted on the site's own machine with manage.py submit, by no account" in text_of(html)
