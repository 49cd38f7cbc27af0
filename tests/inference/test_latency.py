import pytest

from inference.domain.latency import LatencySummary


def test_percentiles_are_nearest_rank_latencies_some_item_had():
    # 1..100 ms: p50 is the 50th smallest (50 ms), p90 the 90th, p99 the 99th; the mean is 50.5 ms.
    summary = LatencySummary.of([ms * 1_000_000 for ms in range(100, 0, -1)])

    assert (summary.items, summary.mean_ms) == (100, 50.5)
    assert (summary.p50_ms, summary.p90_ms, summary.p99_ms, summary.max_ms) == (50.0, 90.0, 99.0, 100.0)
    assert sum(summary.histogram_counts) == 100
    assert len(summary.histogram_edges_ms) == len(summary.histogram_counts) + 1
    assert summary.histogram_edges_ms[0] == 1.0 and summary.histogram_edges_ms[-1] == 100.0


def test_one_slow_item_moves_the_mean_and_the_max_but_not_the_median():
    summary = LatencySummary.of([1_000_000] * 99 + [101_000_000])

    assert summary.mean_ms == pytest.approx(2.0)
    assert (summary.p50_ms, summary.p90_ms, summary.p99_ms, summary.max_ms) == (1.0, 1.0, 1.0, 101.0)


def test_no_item_is_an_error():
    with pytest.raises(ValueError, match="No item"):
        LatencySummary.of([])


def test_items_all_as_fast_as_each_other_get_one_narrow_histogram_range():
    summary = LatencySummary.of([40_000] * 20)  # 0.04 ms each

    assert summary.histogram_edges_ms[0] == 0.04 and summary.histogram_edges_ms[-1] > 0.04
    assert min(summary.histogram_edges_ms) >= 0 and sum(summary.histogram_counts) == 20
