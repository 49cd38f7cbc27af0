"""Cost policies and footprints on worked examples, with exact Decimal results."""

from decimal import Decimal

from pricing.domain.cost import claimed_price_differs, inference_cost_per_10k, training_cost
from pricing.domain.footprint import training_footprint


def test_training_cost_is_hours_times_price_times_instances():
    # 1,800 s on two instances at 3.06 USD/h: 0.5 h x 3.06 x 2.
    assert training_cost(seconds=Decimal(1800), usd_per_hour=Decimal("3.06"), count=2) == Decimal("3.06")


def test_training_cost_of_a_dawnbench_run():
    # basenet: 340.6314558982849 s on a p3.2xlarge at 3.06 USD/h.
    cost = training_cost(seconds=Decimal("340.6314558982849"), usd_per_hour=Decimal("3.06"))

    assert cost == Decimal("340.6314558982849") / 3600 * Decimal("3.06")
    assert round(cost, 10) == Decimal("0.2895367375")


def test_inference_cost_per_10k_is_latency_times_items_times_price_per_second():
    # 9 ms per item at 0.90 USD/h: 90 s for 10,000 items = 0.025 h x 0.90 = 0.0225 USD.
    assert inference_cost_per_10k(latency_ms=Decimal(9), usd_per_hour=Decimal("0.90")) == Decimal("0.0225")


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
