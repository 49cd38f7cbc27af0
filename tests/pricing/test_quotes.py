"""Prices quoted in another currency or by the month: the conversion, exact, and the rows that cannot be read."""

from decimal import Decimal

import pytest

from pricing.domain.catalog import PRICE_COLUMNS, QUOTE_COLUMNS, CatalogError, Quote, parse_prices

HEADER = ",".join(PRICE_COLUMNS + QUOTE_COLUMNS)
RATE_SOURCE = "https://example.org/rate"


def quoted_row(*, usd_per_hour="", currency="CNY", price="5129", per="month", rate="6.70", rate_source=RATE_SOURCE):
    cells = ["baidu", "v100x1", "V100", "1", "12", "56", "cn", "monthly", usd_per_hour, "2019-05-07"]
    cells += ["https://example.org/prices", "note", currency, price, per, rate, "", rate_source]
    return ",".join(cells)


def test_a_monthly_price_in_cny_is_converted_at_its_rate_and_spread_over_720_hours():
    quote = Quote(
        currency="CNY", amount=Decimal(5129), per="month", currency_per_usd=Decimal("6.70"), exchange_rate_source=""
    )

    assert quote.usd_per_hour == Decimal("1.0632255390")  # 5129 / 6.70 / 720, to the catalog's 10 places
    assert quote.text == "5129 CNY per month at 6.70 CNY per USD / 720 h"


def test_an_hourly_price_in_cny_is_converted_at_its_rate():
    quote = Quote(
        currency="CNY", amount=Decimal("142.12"), per="hour", currency_per_usd=Decimal("6.899"), exchange_rate_source=""
    )

    assert quote.usd_per_hour == Decimal("20.6000869691")


def test_a_usd_price_by_the_month_needs_no_rate():
    quote = Quote(currency="USD", amount=Decimal(720), per="month", currency_per_usd=None, exchange_rate_source="")

    assert quote.usd_per_hour == Decimal(1)


def test_a_quoted_row_keeps_its_figures_and_works_out_its_usd_per_hour():
    (row,) = parse_prices(f"{HEADER}\n{quoted_row()}\n")

    assert row.usd_per_hour == Decimal("1.0632255390")
    assert (row.quote.currency, row.quote.amount, row.quote.per, row.quote.currency_per_usd) == (
        "CNY",
        Decimal(5129),
        "month",
        Decimal("6.70"),
    )


@pytest.mark.parametrize(
    ("row", "field"),
    [
        (quoted_row(rate_source=""), "exchange_rate_source"),
        (quoted_row(rate=""), "currency_per_usd"),
        (quoted_row(usd_per_hour="1.06"), "usd_per_hour"),
        (quoted_row(per="week"), "quoted_per"),
        (quoted_row(currency="yuan"), "currency"),
    ],
)
def test_a_quoted_row_that_cannot_be_converted_is_refused_by_its_field(row, field):
    with pytest.raises(CatalogError) as caught:
        parse_prices(f"{HEADER}\n{row}\n")

    assert [(problem.line, problem.field) for problem in caught.value.problems] == [(2, field)]


def test_a_rate_stated_as_usd_per_unit_is_kept_that_way_round():
    """Alibaba's 12.6 CNY an hour at '0.14' USD per CNY (dawn-bench-entries#117): exactly 1.764 USD an hour."""
    quote = Quote(
        currency="CNY",
        amount=Decimal("12.6"),
        per="hour",
        currency_per_usd=None,
        usd_per_currency=Decimal("0.14"),
        exchange_rate_source="",
    )

    assert quote.usd_per_hour == Decimal("1.764")
    assert quote.text == "12.6 CNY per hour at 0.14 USD per CNY"


def test_a_rate_given_both_ways_round_or_neither_is_refused():
    both = quoted_row(rate="6.70").replace(",6.70,,", ",6.70,0.14,")
    neither = quoted_row(rate="")

    for row in (both, neither):
        with pytest.raises(CatalogError) as caught:
            parse_prices(f"{HEADER}\n{row}\n")
        assert [(problem.line, problem.field) for problem in caught.value.problems] == [(2, "currency_per_usd")]
