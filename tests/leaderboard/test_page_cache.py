"""Whole pages are cached until the board changes: a new or withdrawn entry, or a new price, shows at once."""

from decimal import Decimal

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.models import Entry
from leaderboard.page_cache import board_generation
from leaderboard.services import catalog_reload
from pricing.models import PriceQuote
from tests.factories import entry_bytes, training_log
from tests.pricing.catalog_text import BASE, ONE_GPU, catalog, row

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


def test_a_price_reload_that_changes_a_price_retires_the_cached_pages():
    catalog_reload(text=BASE)
    before = board_generation()

    catalog_reload(text=catalog(row(ONE_GPU, "on-demand", "2.50", "2020-01-01")))

    assert board_generation() > before


def test_reloading_an_unchanged_catalog_leaves_the_generation_alone():
    catalog_reload(text=BASE)
    before = board_generation()

    catalog_reload(text=BASE)

    assert board_generation() == before


def test_a_price_edited_by_staff_retires_the_cached_pages():
    catalog_reload(text=BASE)
    quote = PriceQuote.objects.get(instance__name="tc.gpu1", pricing_model="on-demand")
    before = board_generation()

    quote.usd_per_hour = Decimal("2.75")
    quote.save()  # what the admin does

    assert board_generation() > before
