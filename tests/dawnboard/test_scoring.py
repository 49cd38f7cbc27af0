"""The DAWNBench arithmetic: time to accuracy, training and inference cost."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest

from dawnboard.errors import ErrorCode
from dawnboard.scoring import (
    SECONDS_PER_HOUR,
    first_crossing,
    hours_of,
    inference_cost_usd_per_10k,
    inference_cost_usd_per_10k_at_throughput,
    inference_cost_usd_per_item,
    seconds_of,
    shortest_decimal,
    throughput_cost_of_single_stream_cost,
    training_cost_usd,
)

# Time to accuracy -----------------------------------------------------------------------------------------


def test_time_to_accuracy_is_the_first_row_reaching_the_threshold_not_the_best(submit, training_log):
    rows = [(0, 0.1, 90.0), (1, 0.2, 94.1), (2, 0.3, 96.0), (3, 0.4, 95.0)]

    result = submit(log=training_log(rows))

    assert result.results.time_to_accuracy_seconds == pytest.approx(0.2 * 3600)
    assert result.results.time_to_accuracy_epoch == 1
    assert result.results.time_to_accuracy_line == 3
    assert result.results.accuracy == 94.1


def test_time_to_accuracy_is_the_first_crossing_even_if_accuracy_dips_later(submit, training_log):
    rows = [(0, 0.1, 90.0), (1, 0.2, 94.2), (2, 0.3, 93.1), (3, 0.4, 94.9)]

    result = submit(log=training_log(rows))

    assert result.results.time_to_accuracy_seconds == pytest.approx(0.2 * 3600)
    assert result.results.time_to_accuracy_line == 3


@pytest.mark.parametrize("cell", ["94", "94.0", "94.000", "9.4e1"])
def test_a_metric_exactly_at_the_threshold_counts(submit, training_log, cell):
    rows = [(0, 0.1, 93.99), (1, 0.2, cell), (2, 0.3, 95.0)]

    result = submit(log=training_log(rows))

    assert result.results.time_to_accuracy_line == 3
    assert result.results.accuracy == 94.0


def test_a_metric_just_below_the_threshold_does_not_count(submit, training_log):
    rows = [(0, 0.1, 93.999999), (1, 0.2, 94.0)]

    result = submit(log=training_log(rows))

    assert result.results.time_to_accuracy_line == 3


def test_time_to_accuracy_is_stored_in_seconds_with_its_epoch(submit, training_log):
    rows = [(0, 0.05, 80.0), (7, "0.0946198488606347", 94.03)]

    result = submit(log=training_log(rows))

    assert result.results.time_to_accuracy_seconds == float(Decimal("0.0946198488606347") * 3600)
    assert result.results.time_to_accuracy_epoch == 7


def test_a_squad_fraction_exactly_at_the_threshold_counts(submit, training_log):
    rows = [(0, 0.5, 0.7499), (1, 1.0, 0.75)]

    result = submit(task="squad", log=training_log(rows, columns=("epoch", "hours", "f1Score")))

    assert result.results.time_to_accuracy_seconds == 3600.0


# Costs ----------------------------------------------------------------------------------------------------


def test_training_cost_is_hours_times_price_as_an_exact_decimal(submit, entry_json, training_log):
    hours, price = "0.0946198488606347", "3.06"
    rows = [(0, 0.05, 80.0), (1, hours, 94.5)]

    result = submit(entry=entry_json(costPerHour=float(price)), log=training_log(rows))

    assert result.results.training_cost_usd == Decimal(hours) * Decimal(price)
    assert result.results.training_cost_usd == Decimal("0.289536737513542182")


def test_training_cost_with_an_integer_price(submit, entry_json, training_log):
    result = submit(entry=entry_json(costPerHour=8), log=training_log([(0, 2.5, 95.0)]))

    assert result.results.training_cost_usd == Decimal("20.0")


def test_training_cost_is_zero_on_free_hardware(submit, entry_json):
    result = submit(entry=entry_json(costPerHour=0))

    assert result.results.training_cost_usd == 0


def test_training_cost_is_absent_without_a_price(submit, entry_json):
    result = submit(entry=entry_json(without=["costPerHour"]))

    assert result.accepted
    assert result.results.training_cost_usd is None


def test_inference_cost_is_given_per_10k_items(submit, entry_json):
    entry = entry_json(track="inference", without=["costPerHour"], latency=0.683, cost=2.078e-07)

    result = submit(track="inference", entry=entry)

    assert result.results.inference_cost_usd_per_10k == Decimal("2.078E-7") * 10_000
    assert result.results.inference_cost_usd_per_10k == Decimal("0.002078")
    assert result.results.latency_ms == 0.683


def test_inference_cost_per_item_is_price_times_latency():
    cost = inference_cost_usd_per_item(latency_ms=Decimal("10"), usd_per_hour=Decimal("3.06"))

    assert cost == Decimal("0.0000085")


def test_rejects_a_price_too_large_for_exact_cost_arithmetic(submit, entry_json, training_log):
    entry = entry_json(costPerHour=1.5).replace(b"1.5", b"1e999999")

    result = submit(entry=entry, log=training_log([(0, 20, 95.0)]))

    assert [(issue.code, issue.field) for issue in result.errors] == [(ErrorCode.NUMBER_OUT_OF_RANGE, "costPerHour")]


# Scoring helpers --------------------------------------------------------------------------------------------


def test_first_crossing_is_none_when_never_reached():
    assert first_crossing(np.array([90.0, 93.9]), 94.0) is None


def test_first_crossing_finds_the_first_index():
    assert first_crossing(np.array([90.0, 94.0, 95.0, 94.0]), 94.0) == 1


@pytest.mark.parametrize("text", ["0.1", "0.0946198488606347", "2136.1788", "1e-05"])
def test_hours_read_back_as_the_decimal_the_log_wrote(text):
    assert shortest_decimal(float(text)) == Decimal(text)


def test_training_cost_is_hours_times_price_times_machines():
    # 1,800 s on two machines at 3.06 USD/h: 0.5 h x 3.06 x 2.
    assert training_cost_usd(hours=hours_of(Decimal(1800)), usd_per_hour=Decimal("3.06"), machines=2) == Decimal("3.06")


def test_inference_cost_per_10k_is_latency_times_items_times_price_per_second():
    # 9 ms per item at 0.90 USD/h: 90 s for 10,000 items = 0.025 h x 0.90 = 0.0225 USD.
    per_item = inference_cost_usd_per_item(latency_ms=Decimal(9), usd_per_hour=Decimal("0.90"))

    assert inference_cost_usd_per_10k(cost_usd_per_item=per_item) == Decimal("0.0225")


def test_cost_at_throughput_is_the_machine_time_of_10k_items_at_the_measured_rate():
    # 400 samples/s: 25 s for 10,000 items = 25/3600 h x 0.90 USD/h = 0.00625 USD; one at a time at 9 ms each
    # (111 items/s) the same machine costs 0.0225 USD: the batch's advantage is the rate's.
    at_throughput = inference_cost_usd_per_10k_at_throughput(
        samples_per_second=Decimal(400), usd_per_hour=Decimal("0.90")
    )

    assert at_throughput == Decimal("0.00625")
    assert inference_cost_usd_per_10k_at_throughput(
        samples_per_second=Decimal(400), usd_per_hour=Decimal("0.90"), machines=2
    ) == Decimal("0.0125")
    with pytest.raises(ValueError, match="above 0"):
        inference_cost_usd_per_10k_at_throughput(samples_per_second=Decimal(0), usd_per_hour=Decimal(1))


def test_the_cost_at_throughput_follows_from_a_single_stream_cost_at_the_same_price():
    per_item = inference_cost_usd_per_item(latency_ms=Decimal(9), usd_per_hour=Decimal("0.90"))
    single_stream = inference_cost_usd_per_10k(cost_usd_per_item=per_item)

    derived = throughput_cost_of_single_stream_cost(
        cost_usd_per_10k=single_stream, latency_ms=Decimal(9), samples_per_second=Decimal(400)
    )

    assert derived == inference_cost_usd_per_10k_at_throughput(
        samples_per_second=Decimal(400), usd_per_hour=Decimal("0.90")
    )


def test_seconds_and_hours_convert_by_one_constant():
    assert SECONDS_PER_HOUR == 3600
    assert seconds_of(Decimal("0.0035")) == Decimal("12.6000")
    assert hours_of(Decimal("12.6")) == Decimal("0.0035")
