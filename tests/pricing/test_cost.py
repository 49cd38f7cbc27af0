"""Cost policies and footprints on worked examples, with exact Decimal results."""

from decimal import Decimal

from pricing.domain.cost import (
    catalog_price,
    claimed_price_differs,
    inference_policy_cost,
    training_policy_cost,
    usd_per_hour_text,
    usd_text,
)
from pricing.domain.footprint import training_footprint


def test_training_cost_is_hours_times_price_times_instances():
    # 1,800 s on two instances at 3.06 USD/h: 0.5 h x 3.06 x 2.
    cost = training_policy_cost(
        "catalog-today", seconds=Decimal(1800), usd_per_hour=Decimal("3.06"), count=2, source="test"
    )

    assert cost.usd == Decimal("3.06")
    assert cost.arithmetic == "0.5 h x 3.060000 USD/h (test) x 2 instances = 3.06 USD"


def test_training_cost_of_a_dawnbench_run():
    # basenet: 340.6314558982849 s on a p3.2xlarge at 3.06 USD/h.
    cost = training_policy_cost(
        "catalog-today", seconds=Decimal("340.6314558982849"), usd_per_hour=Decimal("3.06"), count=1, source="test"
    ).usd

    assert cost == Decimal("0.289536737513542165")  # 340.6314558982849 / 3600 x 3.06, exactly
    assert round(cost, 10) == Decimal("0.2895367375")


def test_inference_cost_per_10k_is_latency_times_items_times_price_per_second():
    # 9 ms per item at 0.90 USD/h: 90 s for 10,000 items = 0.025 h x 0.90 = 0.0225 USD.
    cost = inference_policy_cost(
        "catalog-today", latency_ms=Decimal(9), usd_per_hour=Decimal("0.90"), count=1, source="test"
    )

    assert cost.usd == Decimal("0.0225")
    assert (
        cost.arithmetic == "9 ms x 10,000 items x 0.900000 USD/h (test) / 3,600,000 ms/h = 0.0225 USD per 10,000 items"
    )


def test_a_price_is_shown_with_six_decimals_or_every_decimal_the_catalog_gives():
    assert usd_per_hour_text(Decimal("3.0600000000")) == "3.060000"
    assert usd_per_hour_text(Decimal("5.0687978900")) == "5.06879789"
    assert usd_per_hour_text(Decimal("0.0000001")) == "0.0000001"
    assert catalog_price(Decimal("24.0000000000")) == Decimal("24.000000")
    assert str(catalog_price(Decimal("24.0000000000"))) == "24.000000"


def test_a_claimed_price_more_than_ten_percent_off_is_flagged():
    assert claimed_price_differs(claimed_usd_per_hour=Decimal("3.40"), catalog_usd_per_hour=Decimal("3.06"))
    assert not claimed_price_differs(claimed_usd_per_hour=Decimal("3.30"), catalog_usd_per_hour=Decimal("3.06"))


def test_training_footprint_adds_accelerators_and_host_and_applies_pue_and_grid():
    footprint = training_footprint(
        seconds=Decimal(3600),
        board_power_watts=Decimal(300),
        accelerator_count=8,
        vcpus=64,
        memory_gib=Decimal(488),
        instance_count=1,
        pue=Decimal("1.1"),
        grams_co2e_per_kwh=Decimal(400),
    )

    host_watts = Decimal("3.5") * 64 + Decimal("0.392") * 488  # 224 + 191.296
    assert footprint.host_watts == host_watts
    assert footprint.energy_kwh == (Decimal(2400) + host_watts) * Decimal("1.1") / 1000
    assert footprint.carbon_kg == footprint.energy_kwh * 400 / 1000


def test_a_cost_keeps_the_places_an_entry_stores_not_a_division_s_28_digit_tail():
    # diux_cifar_p3 is stored as 4075.0 s (its log's 1.1319444444444444 h); 4075 / 3600 recurs, and x 3.06
    # read 3.463749999999999999999999999 before the cost was held to the 20 places an entry stores.
    cost = training_policy_cost(
        "catalog-today", seconds=Decimal("4075.0"), usd_per_hour=Decimal("3.06"), count=1, source="t"
    )

    assert str(cost.usd) == "3.46375"


def test_an_inference_cost_carries_no_padding_zeros():
    # dawn_resnet164_b_1k80-ec2_tensorflow states 38.58259999999999 ms; the product is exact and shown as it is,
    # without the zeros the arithmetic used to pad it with (0.09645649999999997500000).
    cost = inference_policy_cost(
        "catalog-today", latency_ms=Decimal("38.58259999999999"), usd_per_hour=Decimal("0.9"), count=1, source="t"
    )

    assert str(cost.usd) == "0.096456499999999975"


def test_money_text_is_plain_notation_without_trailing_zeros():
    assert usd_text(Decimal("0.04243876500000000000")) == "0.042438765"  # a stored cost, as the database pads it
    assert usd_text(Decimal("20.000")) == "20"
    assert usd_text(Decimal("0.00000020780000")) == "0.0000002078"
    assert usd_text(Decimal("0.12345678901234567890123")) == "0.1234567890123456789"
