"""Lists, boards and exports never load an entry's submitted JSON (misc, claimed, extra_fields) nor a file's
content: one entry with a huge `misc` once made every list slow for everyone."""

from __future__ import annotations

import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from dawnboard.metrics import LEADERBOARD_METRICS
from leaderboard.api.serializers import EntrySerializer
from leaderboard.models import Entry
from leaderboard.selectors.entries import SUBMITTED_BY
from pricing.domain.cost import COST_POLICIES
from tests.factories import entry_bytes, inference_document
from tests.leaderboard.api.helpers import json_bytes, submit

pytestmark = pytest.mark.django_db

BIG_COLUMN = re.compile(r'"(misc|claimed|extra_fields|content)"')
BIG_MISC = {f"key-{n}": n for n in range(2000)}


@pytest.fixture
def entry_ids(api_client) -> list[int]:
    """A training and an inference entry, each with a large misc and a field DAWNBench does not define."""
    ids = []
    for track, document in (
        ("train", json.loads(entry_bytes(misc=BIG_MISC, gpuCount=8))),
        ("inference", inference_document(misc=BIG_MISC, gpuCount=8)),
    ):
        response = submit(api_client, track=track, entry=json_bytes(document))
        assert response.status_code == 201, response.json()
        ids.append(int(response.json()["entry_url"].rstrip("/").rsplit("/", 1)[1]))
    return ids


def big_columns_read(client, url: str) -> list[str]:
    """The big columns named in the SQL that answering `url` ran."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, url
    return [column for query in queries.captured_queries for column in BIG_COLUMN.findall(query["sql"])]


BOARD_URLS = [
    *(f"/api/v1/leaderboards/cifar10/{metric}/" for metric in LEADERBOARD_METRICS),
    *(
        f"/api/v1/leaderboards/cifar10/{metric}/?cost_basis={basis}"
        for metric in ("training-cost", "inference-cost")
        for basis in COST_POLICIES
    ),
    "/api/v1/entries/",
    "/api/v1/entries/?task=cifar10&track=inference",
    "/",
    "/tasks/cifar10/",
    "/tasks/cifar10/?metric=inference-cost&sort=date&hardware=v100",
    "/tasks/cifar10/export.csv",
    "/tasks/cifar10/export.json?metric=training-cost",
    "/tasks/cifar10/charts/",
]


@pytest.mark.parametrize("url", BOARD_URLS)
def test_lists_and_boards_read_no_submitted_document(client, entry_ids, url):
    assert big_columns_read(client, url) == []


def test_the_compare_page_reads_no_submitted_document(client, entry_ids):
    assert big_columns_read(client, f"/compare/?entries={entry_ids[0]},{entry_ids[1]}") == []


@pytest.mark.parametrize("url", ["/entries/{id}/", "/api/v1/entries/{id}/"])
def test_an_entry_reads_its_own_documents_and_no_file_content(client, entry_ids, url):
    columns = big_columns_read(client, url.format(id=entry_ids[0]))

    # Its own misc, claimed and extra_fields once each: not those of the entry it reproduces, nor its files'.
    assert sorted(columns) == ["claimed", "extra_fields", "misc"]


def test_the_entries_list_answers_as_it_did_with_every_column(client, entry_ids):
    request = Request(APIRequestFactory().get("/api/v1/entries/"))
    everything = Entry.objects.select_related("task", "task_version").annotate(**SUBMITTED_BY).order_by("-date", "-id")
    expected = json.loads(
        JSONRenderer().render(EntrySerializer(everything, many=True, context={"request": request}).data)
    )

    results = client.get("/api/v1/entries/").json()["results"]

    assert results == expected
    assert {warning["code"] for entry in results for warning in entry["warnings"]} >= {"unknown_fields"}


def test_a_board_by_catalog_price_ranks_as_before(client, entry_ids):
    document = client.get("/api/v1/leaderboards/cifar10/inference-cost/?cost_basis=catalog-today").json()

    assert [row["entry_id"] for row in document["results"]] == [entry_ids[1]]
    assert document["results"][0]["value"] > 0
