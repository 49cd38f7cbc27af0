"""Loading the catalog (idempotent, all or nothing, history kept) and the price command."""

import datetime
import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from pricing.domain.catalog import CatalogError
from pricing.models import PriceQuote
from pricing.services import prices_load
from tests.pricing.catalog_text import BASE, ONE_GPU, catalog, row

pytestmark = pytest.mark.django_db


@pytest.fixture
def testcloud():
    prices_load(text=BASE)


def test_loading_the_same_catalog_twice_changes_nothing(testcloud):
    count = PriceQuote.objects.count()

    summary = prices_load(text=BASE)

    assert (summary.created, summary.updated, summary.unchanged) == (0, 0, 4)
    assert PriceQuote.objects.count() == count


def test_a_new_price_closes_the_previous_one(testcloud):
    prices_load(text=catalog(row(ONE_GPU, "on-demand", "2.50", "2020-01-01")))

    quotes = PriceQuote.objects.filter(instance__name="tc.gpu1", pricing_model="on-demand").order_by("valid_from")
    assert [(q.usd_per_hour, q.valid_from, q.valid_to) for q in quotes] == [
        (Decimal("3.00"), datetime.date(2017, 1, 1), datetime.date(2020, 1, 1)),
        (Decimal("2.50"), datetime.date(2020, 1, 1), None),
    ]


def test_a_bad_row_loads_nothing_and_names_its_line(testcloud, tmp_path):
    count = PriceQuote.objects.count()
    path = tmp_path / "prices.csv"
    path.write_text(
        catalog(row(ONE_GPU, "on-demand", "2.50", "2020-01-01"), row(ONE_GPU, "on-demand", "x", "2021-01-01"))
    )

    with pytest.raises(CommandError, match="line 3, usd_per_hour"):
        call_command("load_prices", str(path), stdout=StringIO())

    assert PriceQuote.objects.count() == count


def test_prices_load_raises_with_every_problem():
    with pytest.raises(CatalogError) as caught:
        prices_load(text=catalog(row(ONE_GPU, "nope", "1", "2020-01-01"), row(ONE_GPU, "on-demand", "1", "2020")))

    assert [(problem.line, problem.field) for problem in caught.value.problems] == [
        (2, "pricing_model"),
        (3, "valid_from"),
    ]


def test_price_command_prints_the_quote_of_a_day(testcloud):
    prices_load(text=catalog(row(ONE_GPU, "on-demand", "2.50", "2020-01-01")))

    out = StringIO()
    call_command("price", "tc.gpu1", "--on", "2018-06-01", "--json", stdout=out)

    assert json.loads(out.getvalue()) == {
        "provider": "testcloud",
        "instance": "tc.gpu1",
        "region": "test-1",
        "pricing_model": "on-demand",
        "usd_per_hour": "3.000000",
        "valid_from": "2017-01-01",
        "valid_to": "2020-01-01",
        "source": "https://example.org/testcloud/pricing",
    }


def test_price_command_refuses_an_unknown_instance(db):
    with pytest.raises(CommandError, match="No instance type"):
        call_command("price", "no-such-instance", stdout=StringIO())
