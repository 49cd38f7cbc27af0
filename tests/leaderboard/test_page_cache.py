"""Whole pages are cached until the board changes: a new or withdrawn entry shows at once."""

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.models import Entry
from leaderboard.page_cache import board_generation
from tests.factories import entry_bytes, training_log

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def page_cache_on(settings):
    settings.PAGE_CACHE_SECONDS = 600
    cache.clear()
    yield
    cache.clear()


def post(api_client, **fields):
    files = {
        "entry": SimpleUploadedFile("e.json", entry_bytes(**fields)),
        "log": SimpleUploadedFile("l.tsv", training_log()),
    }
    return api_client.post("/api/v1/submissions/", {"task": "cifar10", "track": "train", **files})


def test_a_cached_page_costs_one_query(client, api_client, django_assert_num_queries):
    post(api_client, model="cached-model")
    client.get("/tasks/cifar10/")

    with django_assert_num_queries(1):  # the board generation
        response = client.get("/tasks/cifar10/")

    assert b"cached-model" in response.content


def test_a_new_entry_retires_the_cached_pages(client, api_client):
    assert b"new-model" not in client.get("/").content

    post(api_client, model="new-model")

    assert b"new-model" in client.get("/").content


def test_withdrawing_an_entry_retires_the_cached_pages(client, api_client):
    entry_id = post(api_client, model="doomed-model").json()["entry_url"].rstrip("/").rsplit("/", 1)[1]
    assert b"doomed-model" in client.get("/tasks/cifar10/").content

    entry = Entry.objects.get(id=entry_id)
    entry.status = Entry.Status.WITHDRAWN
    entry.save()

    assert b"doomed-model" not in client.get("/tasks/cifar10/").content


def test_a_rejected_submission_leaves_the_generation_alone(api_client):
    before = board_generation()

    response = post(api_client, timestamp="not a date")

    assert response.status_code == 400
    assert board_generation() == before


def test_query_strings_are_cached_apart(client, api_client):
    post(api_client, model="k80-model", hardware="1 K80")
    post(api_client, model="v100-model", hardware="1 V100")

    k80 = client.get("/tasks/cifar10/?hardware=k80").content
    v100 = client.get("/tasks/cifar10/?hardware=v100").content

    assert b"k80-model" in k80 and b"v100-model" not in k80
    assert b"v100-model" in v100 and b"k80-model" not in v100


def test_not_found_pages_are_not_cached(client, api_client):
    assert client.get("/entries/1/").status_code == 404

    post(api_client)

    assert client.get(f"/entries/{Entry.objects.get().id}/").status_code == 200
