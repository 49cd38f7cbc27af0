"""Parsing the catalog CSV: every bad row is named by its line; good rows come out typed."""

import datetime
from decimal import Decimal

import pytest

from pricing.domain.catalog import CatalogError, parse_prices
from tests.pricing.catalog_text import BASE, P3_2X, catalog, row


def problems(text: str) -> list[tuple[int, str | None]]:
    with pytest.raises(CatalogError) as caught:
        parse_prices(text)
    return [(problem.line, problem.field) for problem in caught.value.problems]


def test_parses_rows_into_typed_quotes():
    rows = parse_prices(BASE)

    assert len(rows) == 4
    first = rows[0]
    assert (first.provider, first.instance, first.accelerator, first.accelerator_count) == (
        "testcloud",
        "tc.gpu1",
        "V100",
        1,
    )
    assert first.usd_per_hour == Decimal("3.00")
    assert first.valid_from == datetime.date(2017, 1, 1)
    assert first.line == 2


@pytest.mark.parametrize(
    ("bad_row", "field"),
    [
        (row(P3_2X, "reserved", "3.06", "2017-10-25"), "pricing_model"),
        (row(P3_2X, "on-demand", "free", "2017-10-25"), "usd_per_hour"),
        (row(P3_2X, "on-demand", "0", "2017-10-25"), "usd_per_hour"),
        (row(P3_2X, "on-demand", "-1", "2017-10-25"), "usd_per_hour"),
        (row(P3_2X, "on-demand", "3.06", "25/10/2017"), "valid_from"),
        (row("AWS,p3.2xlarge,V100,1,8,61,us-east-1", "on-demand", "3.06", "2017-10-25"), "provider"),
        (row("aws,p3.2xlarge,V100,one,8,61,us-east-1", "on-demand", "3.06", "2017-10-25"), "accelerator_count"),
        ("aws,p3.2xlarge,V100,1,8,61,us-east-1,on-demand,3.06,2017-10-25,not a url,note", "source_url"),
    ],
)
def test_names_the_line_and_field_of_a_bad_row(bad_row, field):
    assert problems(catalog(row(P3_2X, "on-demand", "3.06", "2017-10-25"), bad_row)) == [(3, field)]


def test_rejects_a_wrong_header():
    assert problems("provider,instance,price\naws,p3.2xlarge,3.06\n") == [(1, None)]


def test_rejects_a_row_with_missing_cells():
    assert problems(catalog("aws,p3.2xlarge,V100")) == [(2, None)]


def test_rejects_the_same_quote_twice():
    quote = row(P3_2X, "on-demand", "3.06", "2017-10-25")

    assert problems(catalog(quote, quote)) == [(3, "valid_from")]


def test_rejects_an_instance_described_two_ways():
    assert problems(
        catalog(
            row(P3_2X, "on-demand", "3.06", "2017-10-25"),
            row("aws,p3.2xlarge,V100,2,8,61,us-east-1", "spot", "1.0", "2024-01-01"),
        )
    ) == [(3, "instance")]
