"""The boards by a catalog price (`?cost_basis=catalog-today`, ...) read costs stored when entries, matches and the
catalog change (leaderboard.services.policy_costs): a price change, a withdrawal, a later match and "today" passing
a quote's end all move the board; a read prices nothing and costs as many queries at any size."""

from __future__ import annotations

import datetime
import importlib
from decimal import Decimal
from unittest import mock

import pytest
from django.apps import apps as django_apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from dawnboard.metrics import INFERENCE_COST, TRAINING_COST
from leaderboard import selectors
from leaderboard.models import Entry, EntryCatalogCost, HardwareMatch
from leaderboard.services import (
    POLICY_COSTS_EXPIRE_TASK,
    catalog_reload,
    entry_policy_costs_expire,
    entry_policy_costs_refresh,
)
from leaderboard.tasks import policy_costs_expire_task
from pricing.domain.cost import AS_SUBMITTED
from pricing.models import InstanceType, PriceQuote
from pricing.services import prices_load
from tests.factories import entry_bytes, inference_document
from tests.leaderboard.api.helpers import json_bytes, submit
from tests.leaderboard.bulk import create_entries
from tests.pricing.catalog_text import BASE, EIGHT_GPU, ONE_GPU, catalog, row

pytestmark = pytest.mark.django_db

BOARD = "/api/v1/leaderboards/cifar10/training-cost/"
ONE_GPU_HARDWARE = "1 V100 (TestCloud [tc.gpu1])"  # 3.00 USD/h on demand in BASE, 0.90 spot
EIGHT_GPU_HARDWARE = "1 tc.gpu8 (TestCloud)"  # 24.00 USD/h on demand, no spot
HOURS = Decimal("0.03")  # the default training log crosses 94 % at 0.03 h


def stored(api_client, *, track: str = "train", **fields) -> Entry:
    document = entry_bytes(**fields) if track == "train" else json_bytes(inference_document(**fields))
    response = submit(api_client, track=track, entry=document)
    assert response.status_code == 201, response.json()
    return Entry.objects.get(id=response.json()["entry_url"].rstrip("/").rsplit("/", 1)[1])


def board(client, cost_basis: str = "catalog-today", url: str = BOARD, **window) -> dict:
    return client.get(url, {"cost_basis": cost_basis, **window}).json()


def board_models(client, cost_basis: str = "catalog-today") -> list[str]:
    return [row["model"] for row in board(client, cost_basis)["results"]]


@pytest.fixture
def testcloud():
    prices_load(text=BASE)


@pytest.fixture
def two_entries(api_client, testcloud) -> tuple[Entry, Entry]:
    """The same run on one tc.gpu1 (3.00 USD/h) and on one tc.gpu8 (24.00 USD/h): the first is cheaper."""
    return (
        stored(api_client, model="One-GPU", hardware=ONE_GPU_HARDWARE),
        stored(api_client, model="Eight-GPU", hardware=EIGHT_GPU_HARDWARE),
    )


def test_a_stored_entry_is_on_the_board_at_the_cost_its_page_shows(client, api_client, testcloud):
    entry = stored(api_client, hardware=ONE_GPU_HARDWARE)

    shown = {cost.policy: cost.usd for cost in selectors.entry_accounting(Entry.objects.get(id=entry.id)).costs}
    for policy in ("catalog-at-submission", "catalog-today", "spot-today"):
        (row,) = board(client, policy)["results"]
        assert (row["entry_id"], row["value"]) == (entry.id, float(shown[policy])), policy
    assert shown["catalog-today"] == HOURS * Decimal("3.00")


def test_a_price_change_reranks_the_board(client, two_entries):
    assert board_models(client) == ["One-GPU", "Eight-GPU"]

    catalog_reload(text=catalog(row(EIGHT_GPU, "on-demand", "1.00", "2020-01-01")))

    assert board_models(client) == ["Eight-GPU", "One-GPU"]
    assert board(client)["results"][0]["value"] == float(HOURS * Decimal("1.00"))
    # The price on the entries' dates (2019) is as it was.
    assert board_models(client, "catalog-at-submission") == ["One-GPU", "Eight-GPU"]


def test_a_quote_edited_by_staff_reprices_the_board(client, two_entries):
    client.force_login(get_user_model().objects.create_superuser("staff", "staff@example.org", "x"))
    quote = PriceQuote.objects.get(instance__name="tc.gpu8", pricing_model="on-demand")
    form = {
        "instance": quote.instance_id,
        "region": quote.region,
        "pricing_model": quote.pricing_model,
        "usd_per_hour": "0.50",
        "valid_from": quote.valid_from.isoformat(),
        "source_url": quote.source_url,
        "currency": quote.currency,
    }

    response = client.post(f"/admin/pricing/pricequote/{quote.id}/change/", form)

    assert response.status_code == 302, response.content.decode()[:2000]
    assert board_models(client) == ["Eight-GPU", "One-GPU"]


def test_a_withdrawn_entry_leaves_the_board(client, two_entries):
    cheap, _ = two_entries
    cheap.status = Entry.Status.WITHDRAWN
    cheap.save(update_fields=["status"])  # as judging withdraws an entry its submitter replaced

    assert board_models(client) == ["Eight-GPU"]
    assert not EntryCatalogCost.objects.filter(entry_id=cheap.id).exists()
    place = selectors.entry_rank(Entry.objects.get(id=cheap.id), metric=TRAINING_COST, cost_basis="catalog-today")
    assert (place.rank, place.not_ranked_because) == (None, "withdrawn")


def test_an_entry_matched_later_joins_the_board(client, api_client):
    entry = stored(api_client, hardware="TestCloud tc.gpu1")  # no such instance in the catalog yet
    assert board(client)["count"] == 0

    catalog_reload(text=BASE)

    assert [row["entry_id"] for row in board(client)["results"]] == [entry.id]
    assert selectors.entry_rank(entry, metric=TRAINING_COST, cost_basis="catalog-today").rank == 1


def test_a_match_set_by_staff_moves_the_entry_on_the_board(client, two_entries):
    cheap, _ = two_entries
    client.force_login(get_user_model().objects.create_superuser("staff", "staff@example.org", "x"))
    match = HardwareMatch.objects.get(entry=cheap)
    eight = InstanceType.objects.get(name="tc.gpu8")

    response = client.post(
        f"/admin/leaderboard/hardwarematch/{match.id}/change/",
        {"instance": eight.id, "instance_count": 2, "parts": "[]", "reason": match.reason},
    )

    assert response.status_code == 302, response.content.decode()[:2000]
    assert board_models(client) == ["Eight-GPU", "One-GPU"]
    assert board(client)["results"][1]["value"] == float(HOURS * Decimal("24.00") * 2)


def test_today_passing_the_day_a_price_changes_reprices_the_entries_on_that_machine(client, two_entries):
    today = timezone.localdate()
    cut = today + datetime.timedelta(days=30)
    prices_load(text=catalog(row(ONE_GPU, "on-demand", "2.00", cut.isoformat())))  # announced, not yet valid
    cheap, dear = two_entries
    assert EntryCatalogCost.objects.get(entry=cheap).prices_hold_until == cut
    assert board(client)["results"][0]["value"] == float(HOURS * Decimal("3.00"))

    assert entry_policy_costs_expire(today=cut - datetime.timedelta(days=1)) == 0
    assert entry_policy_costs_expire(today=cut) == 1  # only the entry on that machine

    costs = EntryCatalogCost.objects.get(entry=cheap)
    assert (costs.catalog_today_usd, costs.priced_on, costs.prices_hold_until) == (HOURS * 2, cut, None)
    assert costs.catalog_at_submission_usd == HOURS * Decimal("3.00")
    assert board(client)["results"][0]["value"] == float(HOURS * Decimal("2.00"))
    assert EntryCatalogCost.objects.get(entry=dear).priced_on == today


def test_celery_beat_runs_the_expiry(two_entries):
    assert POLICY_COSTS_EXPIRE_TASK in {job["task"] for job in settings.CELERY_BEAT_SCHEDULE.values()}
    assert policy_costs_expire_task.apply().get() == 0  # run here, as a worker would: nothing has moved today


def test_an_inference_board_is_priced_per_10000_items(client, api_client, testcloud):
    entry = stored(api_client, track="inference", hardware="TestCloud tc.gpu1")

    (row,) = board(client, url="/api/v1/leaderboards/cifar10/inference-cost/")["results"]

    # 0.0208333...: SQLite keeps a decimal to 15 digits, as it does each entry's own cost.
    assert row["entry_id"] == entry.id
    assert row["value"] == pytest.approx(float(Decimal("2.5") * 10_000 * 3 / 3_600_000), rel=1e-14)
    assert selectors.entry_rank(entry, metric=INFERENCE_COST, cost_basis="catalog-today").rank == 1


def test_the_migration_and_the_command_price_the_entries_stored_before(two_entries):
    fill = importlib.import_module("leaderboard.migrations.0016_entry_catalog_costs")
    EntryCatalogCost.objects.all().delete()

    fill.price_existing_entries(django_apps, None)

    assert EntryCatalogCost.objects.count() == 2
    EntryCatalogCost.objects.all().delete()
    call_command("price_boards", stdout=mock.MagicMock())
    assert EntryCatalogCost.objects.count() == 2


# --- reads ---------------------------------------------------------------------------------------------------


def matched_board(entries_per_task: int) -> None:
    """`entries_per_task` bulk entries per task, matched in turn to a GPU and a TPU of the bundled catalog (the TPU
    has a spot price, and both a price on most of the entries' dates), and priced."""
    create_entries(entries_per_task)
    instances = [
        InstanceType.objects.get(provider__slug="aws", name="p3.2xlarge"),
        InstanceType.objects.get(provider__slug="gcp", name="tpu-v3-8"),
    ]
    HardwareMatch.objects.bulk_create(
        HardwareMatch(entry_id=entry_id, instance=instances[entry_id % 2], reason="bulk")
        for entry_id in Entry.objects.filter(hardware_match__isnull=True).values_list("id", flat=True)
    )
    entry_policy_costs_refresh()


def read_queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


POLICY_READS = [
    f"{BOARD}?cost_basis=catalog-today",
    f"{BOARD}?cost_basis=spot-today&limit=5&offset=7",
    "/api/v1/leaderboards/cifar10/inference-cost/?cost_basis=catalog-at-submission&limit=3",
]


@pytest.mark.parametrize("url", POLICY_READS)
def test_a_policy_board_read_costs_as_many_queries_at_any_size(client, url):
    matched_board(30)
    small, small_count = read_queries(client, url), client.get(url).json()["count"]
    matched_board(150)

    assert read_queries(client, url) == small
    assert client.get(url).json()["count"] > small_count


@pytest.mark.parametrize("url", POLICY_READS)
def test_a_policy_board_read_prices_nothing(client, url):
    matched_board(30)
    expected = client.get(url).json()
    refused = mock.Mock(side_effect=AssertionError("priced during a read"))

    with (
        mock.patch("pricing.selectors.QuoteBook.__init__", refused),
        mock.patch("pricing.selectors.run_costs", refused),
        mock.patch("leaderboard.services.policy_costs.costs_by_policy", refused),
    ):
        assert client.get(url).json() == expected
    assert expected["count"] > 0


@pytest.mark.parametrize("metric", [TRAINING_COST, INFERENCE_COST])
@pytest.mark.parametrize("policy", ["catalog-at-submission", "catalog-today", "spot-today"])
def test_a_policy_board_is_every_entry_the_catalog_prices_as_pricing_each_would_rank_it(client, metric, policy):
    """The board as the entries' own pages price them, one by one, sorted by (cost, date, id)."""
    matched_board(30)
    entries = Entry.objects.filter(task__slug="cifar10", track=metric.track).select_related("hardware_match__instance")
    priced = {entry: selectors.entry_accounting(entry).costs for entry in entries}
    expected = sorted(
        (cost.usd, entry.date, entry.id)
        for entry, costs in priced.items()
        for cost in costs
        if cost.policy == policy and cost.usd is not None
    )

    document = board(client, policy, url=f"/api/v1/leaderboards/cifar10/{metric.slug}/", limit=1000)

    assert document["count"] == len(expected) > 0
    assert [row["entry_id"] for row in document["results"]] == [entry_id for _, _, entry_id in expected]
    assert [row["value"] for row in document["results"]] == pytest.approx([float(usd) for usd, _, _ in expected])


def test_an_entry_is_ranked_as_its_row_on_the_policy_boards(client):
    matched_board(30)
    document = board(client, "spot-today", limit=100)
    entry_id = document["results"][4]["entry_id"]

    ranks = selectors.entry_policy_ranks(Entry.objects.get(id=entry_id))

    assert (ranks["spot-today"].rank, ranks["spot-today"].board_size) == (5, document["count"])


def test_the_board_ranks_at_hand_give_the_as_submitted_cost_rank_without_counting_that_board_again(client):
    matched_board(30)
    entry = Entry.objects.get(id=board(client, "spot-today", limit=100)["results"][4]["entry_id"])
    board_ranks = selectors.entry_board_ranks(entry)
    counted = selectors.entry_policy_ranks(entry)
    with CaptureQueriesContext(connection) as alone:
        selectors.entry_policy_ranks(entry)

    with CaptureQueriesContext(connection) as given:
        ranks = selectors.entry_policy_ranks(entry, board_ranks=board_ranks)

    assert ranks == counted
    assert ranks[AS_SUBMITTED] == next(place for place in board_ranks if place.metric.is_cost)

    def counts_the_entry_board(queries):
        return sum('COUNT("leaderboard_entry"."id")' in query["sql"] for query in queries)

    assert (counts_the_entry_board(alone.captured_queries), counts_the_entry_board(given.captured_queries)) == (1, 0)
    assert len(given.captured_queries) < len(alone.captured_queries)


def test_a_refresh_of_more_ids_than_a_query_holds_prices_each_and_drops_the_unpriceable(client, monkeypatch):
    """A price change can touch every entry of a board: the ids go a few thousand a query (here 3), and an entry
    that lost its match loses its row whichever batch it falls in."""
    matched_board(4)
    ids = sorted(EntryCatalogCost.objects.values_list("entry_id", flat=True))
    unmatched = ids[4]
    HardwareMatch.objects.filter(entry_id=unmatched).delete()
    EntryCatalogCost.objects.exclude(entry_id=unmatched).delete()
    monkeypatch.setattr("leaderboard.services.policy_costs.PRICED_AT_ONCE", 3)

    priced = entry_policy_costs_refresh(entry_ids=ids)

    assert priced == len(ids) - 1
    assert sorted(EntryCatalogCost.objects.values_list("entry_id", flat=True)) == [i for i in ids if i != unmatched]
