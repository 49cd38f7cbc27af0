"""A withdrawn entry keeps its page, which says it is withdrawn and unranked, and leaves every board and list."""

from __future__ import annotations

import json

import pytest

from dawnboard.metrics import LEADERBOARD_METRICS
from leaderboard.models import Entry
from pricing.domain.cost import COST_POLICIES
from tests.factories import entry_bytes, inference_document
from tests.leaderboard.api.helpers import json_bytes, submit

pytestmark = pytest.mark.django_db

WITHDRAWN_MODEL = "Withdrawn-Net"
WITHDRAWN_FRAMEWORK = "WithdrawnTorch"


def submit_entry(api_client, *, track: str, **fields) -> Entry:
    document = json.loads(entry_bytes(**fields)) if track == "train" else inference_document(**fields)
    response = submit(api_client, track=track, entry=json_bytes(document))
    assert response.status_code == 201, response.json()
    return Entry.objects.get(id=response.json()["entry_url"].rstrip("/").rsplit("/", 1)[1])


@pytest.fixture
def withdrawn(api_client) -> list[Entry]:
    """A training and an inference entry, withdrawn (as staff do in the admin), beside one accepted of each."""
    for track in ("train", "inference"):
        submit_entry(api_client, track=track, model="Kept-Net")
    entries = [
        submit_entry(api_client, track=track, model=WITHDRAWN_MODEL, framework=WITHDRAWN_FRAMEWORK)
        for track in ("train", "inference")
    ]
    for entry in entries:
        entry.status = Entry.Status.WITHDRAWN
        entry.save()
    return entries


def test_the_entry_page_says_the_entry_is_withdrawn_and_unranked(client, withdrawn):
    html = client.get(f"/entries/{withdrawn[0].id}/").content.decode()

    assert 'id="withdrawn"' in html
    assert "not ranked on any board" in html
    assert WITHDRAWN_MODEL in html


def test_an_accepted_entry_page_has_no_withdrawn_notice(client, withdrawn):
    kept = Entry.objects.get(model="Kept-Net", track="train")

    assert 'id="withdrawn"' not in client.get(f"/entries/{kept.id}/").content.decode()


def test_the_api_detail_says_withdrawn(client, withdrawn):
    assert client.get(f"/api/v1/entries/{withdrawn[1].id}/").json()["status"] == "withdrawn"


def test_its_files_are_not_served_nor_linked(client, withdrawn):
    entry = withdrawn[0]

    assert client.get(f"/entries/{entry.id}/files/entry/").status_code == 404
    assert f"/entries/{entry.id}/files/" not in client.get(f"/entries/{entry.id}/").content.decode()


BOARD_URLS = [
    "/",
    "/api/v1/entries/",
    "/api/v1/entries/?framework=withdrawn",
    *(f"/api/v1/leaderboards/cifar10/{metric}/" for metric in LEADERBOARD_METRICS),
    *(f"/api/v1/leaderboards/cifar10/inference-cost/?cost_basis={basis}" for basis in COST_POLICIES),
    *(f"/api/v1/leaderboards/cifar10/training-cost/?cost_basis={basis}" for basis in COST_POLICIES),
    *(f"/tasks/cifar10/?metric={metric}" for metric in LEADERBOARD_METRICS),
    "/tasks/cifar10/?sort=date&order=desc",
    *(f"/tasks/cifar10/export.csv?metric={metric}" for metric in LEADERBOARD_METRICS),
    *(f"/tasks/cifar10/export.json?metric={metric}" for metric in LEADERBOARD_METRICS),
    "/tasks/cifar10/charts/",
]


@pytest.mark.parametrize("url", BOARD_URLS)
def test_it_is_on_no_board_and_in_no_list(client, withdrawn, url):
    response = client.get(url)

    assert response.status_code == 200
    assert WITHDRAWN_MODEL not in response.getvalue().decode()  # getvalue(): exports are streamed
    assert WITHDRAWN_FRAMEWORK not in response.getvalue().decode()  # nor among the task page's framework suggestions


def test_it_cannot_be_compared(client, withdrawn):
    ids = ",".join(str(entry.id) for entry in withdrawn)

    assert WITHDRAWN_MODEL not in client.get(f"/compare/?entries={ids}").content.decode()


def test_the_boards_still_rank_the_accepted_entries(client, withdrawn):
    for metric in LEADERBOARD_METRICS:
        models = [row["model"] for row in client.get(f"/api/v1/leaderboards/cifar10/{metric}/").json()["results"]]
        assert models == ["Kept-Net"], metric
