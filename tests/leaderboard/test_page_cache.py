"""Whole pages are cached until the board changes: a new or withdrawn entry, or a new price, shows at once.

Generations move after the change commits; the tests run inside a transaction that never commits, so each
change is made under `committed()`, which runs the on-commit callbacks as a commit would.
"""

import time
from contextlib import contextmanager
from decimal import Decimal

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.signals import request_finished, request_started
from django.db import transaction
from django.test import TestCase

from leaderboard.models import Entry
from leaderboard.page_cache import (
    GENERATIONS_KEY,
    board_generations,
    boards_changed,
    cache_key,
    cached_value,
    generations_publish,
)
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


def committed():
    """Run what is deferred to a commit (the generation bump) when the block ends, as a commit would."""
    return TestCase.captureOnCommitCallbacks(execute=True)


def board_generation(task_slug: str | None = None) -> int:
    return board_generations().get(task_slug, 0)


def post(api_client, task="cifar10", **fields):
    files = {
        "entry": SimpleUploadedFile("e.json", entry_bytes(**fields)),
        "log": SimpleUploadedFile("l.tsv", training_log()),
    }
    with committed():
        return api_client.post("/api/v1/submissions/", {"task": task, "track": "train", **files})


def test_a_cached_page_costs_no_query(client, api_client, django_assert_num_queries):
    post(api_client, model="cached-model")
    client.get("/tasks/cifar10/")

    with django_assert_num_queries(0):  # the page and the generations come in one cache read
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
    with committed():
        entry.save()

    assert b"doomed-model" not in client.get("/tasks/cifar10/").content


def test_a_rejected_submission_leaves_the_generation_alone(api_client):
    before = board_generations()

    response = post(api_client, timestamp="not a date")

    assert response.status_code == 400
    assert board_generations() == before


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
    with committed():
        catalog_reload(text=BASE)
    before = board_generation()

    with committed():
        catalog_reload(text=catalog(row(ONE_GPU, "on-demand", "2.50", "2020-01-01")))

    assert board_generation() > before


def test_reloading_an_unchanged_catalog_leaves_the_generation_alone():
    with committed():
        catalog_reload(text=BASE)
    before = board_generation()

    with committed():
        catalog_reload(text=BASE)

    assert board_generation() == before


def test_a_price_edited_by_staff_retires_the_cached_pages():
    with committed():
        catalog_reload(text=BASE)
    quote = PriceQuote.objects.get(instance__name="tc.gpu1", pricing_model="on-demand")
    before = board_generation()

    quote.usd_per_hour = Decimal("2.75")
    with committed():
        quote.save()  # what the admin does

    assert board_generation() > before


# --- what a key holds: the path and the parameters the page reads, as parsed ----------------------------------


@pytest.fixture
def keys_set(monkeypatch) -> list[str]:
    """Every key the page cache sets a page or a document under, in order (not the copy of the generations)."""
    keys = []
    real_set = cache.set

    def spy(key, value, *args, **kwargs):
        if key != GENERATIONS_KEY:
            keys.append(key)
        return real_set(key, value, *args, **kwargs)

    monkeypatch.setattr(cache, "set", spy)
    return keys


@pytest.mark.parametrize("url", ["/", "/tasks/cifar10/", "/tasks/cifar10/charts/"])
def test_fifty_junk_parameters_make_one_cache_entry(client, api_client, keys_set, url):
    post(api_client, model="utm-model")

    responses = [client.get(url, {"utm_source": f"campaign-{n}", "fbclid": n}) for n in range(50)]

    assert len(keys_set) == 1
    assert all(response.status_code == 200 and b"utm-model" in response.content for response in responses)
    assert not any(b"campaign-" in response.content for response in responses)  # no link carries them on


def test_an_entry_page_is_one_cache_entry_whatever_the_query(client, api_client, keys_set):
    post(api_client, model="utm-model")
    url = f"/entries/{Entry.objects.get().id}/"

    responses = [client.get(url, {"utm_source": f"campaign-{n}"}) for n in range(50)]

    assert len(keys_set) == 1
    assert all(b"utm-model" in response.content and b"campaign-" not in response.content for response in responses)


def test_parameters_are_keyed_sorted_and_as_parsed(client, api_client, keys_set):
    post(api_client, model="k80-model", hardware="1 K80")

    pages = [
        client.get("/tasks/cifar10/?hardware=k80&sort=date&order=desc&page=1").content,
        client.get("/tasks/cifar10/?order=desc&sort=date&hardware=%20k80%20&page=01").content,
        client.get("/tasks/cifar10/?page=1&hardware=k80&order=desc&sort=date&junk=1").content,
    ]

    assert len(keys_set) == 1
    assert pages[0] == pages[1] == pages[2] and b"k80-model" in pages[0]


def test_the_compare_page_is_keyed_by_the_ids_it_read(client, api_client, keys_set):
    post(api_client, model="compared-model")
    entry_id = Entry.objects.get().id

    for entries in (f"{entry_id}", f" {entry_id} ,", f"{entry_id},{entry_id}", f"0{entry_id},x"):
        assert b"compared-model" in client.get("/compare/", {"entries": entries}).content

    assert len(keys_set) == 1


def test_a_query_the_page_does_not_understand_is_answered_but_not_kept(client, api_client, keys_set):
    post(api_client)

    responses = [client.get("/tasks/cifar10/", {"date_from": f"junk-{n}"}) for n in range(5)]

    assert keys_set == []
    assert all(b"junk-" in response.content and b"were not understood" in response.content for response in responses)


# --- the leaderboard API: cached like the pages ---------------------------------------------------------------

BOARD = "/api/v1/leaderboards/cifar10/training-time/"


def test_a_cached_leaderboard_costs_no_query(client, api_client, django_assert_num_queries):
    post(api_client, model="cached-model")
    client.get(BOARD)

    with django_assert_num_queries(0):
        response = client.get(BOARD)

    assert [row["model"] for row in response.json()["results"]] == ["cached-model"]


def test_a_new_entry_retires_the_cached_leaderboard(client, api_client):
    post(api_client, model="first-model")
    assert len(client.get(BOARD).json()["results"]) == 1

    post(api_client, model="second-model")

    assert len(client.get(BOARD).json()["results"]) == 2


def test_the_leaderboard_is_keyed_by_the_parameters_that_change_it(client, api_client, keys_set):
    post(api_client)

    for query in ({}, {"limit": "100"}, {"limit": "0100", "utm_source": "x"}, {"format": "json"}):
        assert client.get(BOARD, query).status_code == 200
    assert len(keys_set) == 1

    client.get(BOARD, {"limit": "5"})
    client.get("/api/v1/leaderboards/cifar10/training-cost/", {"cost_basis": "catalog-today"})
    assert len(set(keys_set)) == 3


def test_a_bad_leaderboard_parameter_is_not_kept(client, api_client, keys_set):
    post(api_client)

    for basis in ("cheapest", "dearest"):
        assert client.get(BOARD, {"cost_basis": basis}).status_code == 400

    assert keys_set == []


def test_pages_past_the_end_of_a_board_are_answered_but_not_kept(client, api_client, keys_set):
    post(api_client, model="only-model")

    responses = [client.get("/tasks/cifar10/", {"page": page}) for page in range(2, 12)]

    assert keys_set == []
    assert all(b"only-model" in response.content for response in responses)  # the last page, which is the first


# --- generations per task, moved once after commit; the previous copy served while one request re-renders ------


def test_a_change_to_one_task_keeps_the_other_tasks_pages(client, api_client, django_assert_num_queries):
    client.get("/tasks/imagenet/")
    client.get("/tasks/cifar10/")

    post(api_client, model="cifar-only-model")

    with django_assert_num_queries(0):  # imagenet's page is still the cached one
        client.get("/tasks/imagenet/")
    assert b"cifar-only-model" in client.get("/tasks/cifar10/").content


def test_a_change_moves_its_task_once_and_only_after_it_commits(api_client):
    post(api_client)
    entry = Entry.objects.get()
    before = board_generations()

    with committed():
        with transaction.atomic():
            entry.model = "renamed"
            entry.save()
            entry.save()
            assert board_generations() == before  # not while the change can still roll back

    after = board_generations()
    assert after["cifar10"] == before["cifar10"] + 1
    assert {slug: value for slug, value in after.items() if slug != "cifar10"} == {
        slug: value for slug, value in before.items() if slug != "cifar10"
    }


def test_a_rolled_back_change_moves_nothing(api_client):
    post(api_client)
    entry = Entry.objects.get()
    before = board_generations()

    with committed():
        try:
            with transaction.atomic():
                entry.save()
                raise RuntimeError("the judging failed")
        except RuntimeError:
            pass

    assert board_generations() == before


def test_the_previous_copy_is_served_while_another_request_renders_the_new_one(client, api_client):
    post(api_client, model="first-model")
    client.get("/tasks/cifar10/")
    post(api_client, model="second-model")
    key = cache_key("page", "http://testserver/tasks/cifar10/?")
    generation = f"{board_generation()}.{board_generation('cifar10')}"
    cache.add(f"{key}:rendering:{generation}", 1, 30)  # another worker is rendering this generation

    stale = client.get("/tasks/cifar10/").content
    cache.delete(f"{key}:rendering:{generation}")  # that render ended without storing a page
    fresh = client.get("/tasks/cifar10/").content

    assert b"first-model" in stale and b"second-model" not in stale
    assert b"second-model" in fresh


def test_a_missing_copy_of_the_generations_is_read_from_the_database(client, api_client, django_assert_num_queries):
    post(api_client, model="first-model")
    client.get("/tasks/cifar10/")
    cache.delete(GENERATIONS_KEY)  # expired, or the cache restarted

    with django_assert_num_queries(1):  # the generations, then the cached page
        assert b"first-model" in client.get("/tasks/cifar10/").content
    assert cache.get(GENERATIONS_KEY) == board_generations()


def test_a_copy_written_out_of_order_is_corrected_by_its_writer(api_client, monkeypatch):
    """Two bumps publish at once and the older copy lands last: its writer sees the database moved on."""
    post(api_client)
    stale = board_generations()
    newer = {**stale, "cifar10": stale["cifar10"] + 1}
    reads = iter([stale, newer, newer, newer])
    monkeypatch.setattr("leaderboard.page_cache.board_generations", lambda: next(reads))

    generations_publish()

    assert cache.get(GENERATIONS_KEY) == newer


# --- the previous copy served, the new one rendered after the response -------------------------------------------


@contextmanager
def a_request():
    """What a request's life signals around a view: its start, and its end once the response has been sent."""
    request_started.send(sender=None)
    yield
    request_finished.send(sender=None)


def value_of(compute, *, parameters=None) -> str:
    return cached_value(kind="test", parameters=parameters or {}, compute=compute, task_slug="cifar10")


def computed(text: str, calls: list):
    def compute():
        calls.append(text)
        return text

    return compute


@pytest.fixture
def stale_seconds(settings):
    settings.PAGE_CACHE_STALE_SECONDS = 10


def board_change():
    with committed():
        boards_changed("cifar10")


def test_a_recent_copy_is_served_and_the_new_value_computed_after_the_response(stale_seconds):
    calls = []
    with a_request():
        value_of(computed("old", calls))
    board_change()

    with a_request():
        assert value_of(computed("new", calls)) == "old"
        assert calls == ["old"]  # nothing computed while this reader waits
    assert calls == ["old", "new"]  # computed once the response went
    with a_request():
        assert value_of(computed("newer", calls)) == "new"
    assert calls == ["old", "new"]


def test_a_copy_older_than_the_stale_seconds_is_not_served(stale_seconds, monkeypatch):
    calls = []
    with a_request():
        value_of(computed("old", calls))
    board_change()
    later = time.time() + 11
    monkeypatch.setattr("leaderboard.page_cache.time.time", lambda: later)

    with a_request():
        assert value_of(computed("new", calls)) == "new"


def test_outside_a_request_the_new_value_is_computed_at_once(stale_seconds):
    calls = []
    value_of(computed("old", calls))
    board_change()

    assert value_of(computed("new", calls)) == "new"


def test_a_render_after_the_response_that_fails_is_logged_and_the_next_reader_renders_again(stale_seconds, caplog):
    calls = []
    with a_request():
        value_of(computed("old", calls))
    board_change()

    def broken():
        raise RuntimeError("the database went away")

    with a_request():
        assert value_of(broken) == "old"
    assert "rendering a page after its response failed" in caplog.text
    with a_request():
        assert value_of(computed("new", calls)) == "old"  # the lock was given up: this reader renders it
    assert calls == ["old", "new"]


def test_a_reader_is_served_the_previous_page_and_the_next_one_the_new_page_without_a_query(
    client, api_client, stale_seconds, django_assert_num_queries
):
    post(api_client, model="first-model")
    client.get("/tasks/cifar10/")
    post(api_client, model="second-model")

    stale = client.get("/tasks/cifar10/").content  # the test client closes the response, as gunicorn does
    with django_assert_num_queries(0):
        fresh = client.get("/tasks/cifar10/").content

    assert b"first-model" in stale and b"second-model" not in stale
    assert b"second-model" in fresh
