"""The harness's three passes (`inference.harness.measure`): a single stream's timed pass measured again while its
mean lies outside the range of LoadGen's queries, every pass's mean kept."""

from __future__ import annotations

import time
from types import SimpleNamespace

import numpy as np
import pytest

from inference import harness
from inference.harness import TIMED_PASSES, measure
from inference.items import ClassifiedItems
from inference.loadgen import LoadGenSettings

ITEMS = 12
rng = np.random.default_rng(0)
WEIGHTS = rng.standard_normal((16, 10)).astype(np.float32)
INPUTS = [rng.standard_normal((1, 16)).astype(np.float32) for _ in range(ITEMS)]
LABELS = [int(np.argmax(batch @ WEIGHTS)) for batch in INPUTS]


class Stalling:
    """A linear map taking 1 ms on the even items and 3 ms on the odd ones (so that a mean lies well within the
    range of any pass's calls, LoadGen's own microseconds a query lost in them) that stalls `stall` seconds on the
    last item of its first `stalled_passes` passes over the set in order (the timed pass's order), as a busy machine
    stalls a call; LoadGen's queries, in its own random order, never stall."""

    def __init__(self, *, stalled_passes: int, stall: float = 0.2):
        self.stalled_passes, self.stall, self.calls_in_order = stalled_passes, stall, 0

    def __call__(self, batch: np.ndarray) -> np.ndarray:
        if self.stalled_passes and batch is INPUTS[self.calls_in_order % ITEMS]:
            self.calls_in_order += 1
            if self.calls_in_order % ITEMS == 0:
                self.stalled_passes -= 1
                time.sleep(self.stall)
        else:
            self.calls_in_order = 0
        time.sleep(0.001 if any(batch is INPUTS[even] for even in range(0, ITEMS, 2)) else 0.003)
        return batch @ WEIGHTS


def measured(model, tmp_path, scenario="single-stream"):
    settings = LoadGenSettings.of(scenario, items=ITEMS, quick=True)
    return measure(model, ClassifiedItems.in_memory(INPUTS, LABELS), settings, tmp_path, warmup=1)


def test_a_timed_pass_whose_mean_lies_above_every_loadgen_query_is_measured_again(tmp_path):
    measurement = measured(Stalling(stalled_passes=1), tmp_path)

    test = measurement.performance.test
    first, last = measurement.timed_pass_means_ms
    assert first > test.max_ms  # the stalled pass's mean: no query of LoadGen's took as long
    assert test.min_ms <= last <= test.max_ms and measurement.latency.mean_ms == last
    assert measurement.accuracy == 100.0 and measurement.valid


def test_a_single_stream_still_disturbed_after_every_pass_keeps_its_last_mean_outside_the_range(tmp_path):
    measurement = measured(Stalling(stalled_passes=TIMED_PASSES), tmp_path)

    means = measurement.timed_pass_means_ms
    assert len(means) == TIMED_PASSES and all(mean > measurement.performance.test.max_ms for mean in means)
    assert measurement.latency.mean_ms == means[-1]


def test_an_offline_measurement_is_timed_once_however_its_mean_falls(tmp_path):
    # Offline's queries are batches, no per-item latency to agree with: one timed pass, the stalled one.
    measurement = measured(Stalling(stalled_passes=1), tmp_path, "offline")

    assert len(measurement.timed_pass_means_ms) == 1 and measurement.latency.mean_ms > 0.003 * 1000


def rates_tried(monkeypatch, *, highest_held: float) -> list[float]:
    """LoadGen replaced by its verdict alone: a rate up to `highest_held` holds (p99 1 ms), any higher misses (90 ms).
    Returns the list each test's rate is appended to."""
    tried: list[float] = []

    def verdict(answer, items, settings, out_dir):
        tried.append(settings.expected_qps)
        valid = settings.expected_qps <= highest_held
        return SimpleNamespace(test=SimpleNamespace(valid=valid, percentiles_ms={"99.00": 1.0 if valid else 90.0}))

    monkeypatch.setattr(harness, "loadgen_run", verdict)
    return tried


def test_the_server_search_doubles_while_valid_then_bisects_to_the_highest_rate_held(monkeypatch, tmp_path):
    """Rates up to 700 queries/s hold. From 100: 200, 400 hold, 800 does not,
    then the geometric midpoints until the highest VALID and lowest INVALID rates lie within 1.1x."""
    tried = rates_tried(monkeypatch, highest_held=700.0)
    settings = LoadGenSettings.of("server", items=8, quick=True, latency_bound_ms=50.0)

    chosen, outcome, tries = harness.server_search(None, None, settings, tmp_path, first_rate=100.0)

    assert tried[:4] == [100.0, 200.0, 400.0, 800.0]
    assert tried[4] == pytest.approx((400 * 800) ** 0.5)  # 565.7 holds, then 672.7 holds, 733.6 does not
    assert [round(rate, 1) for rate in tried[4:]] == [565.7, 672.7, 733.6]
    assert chosen.expected_qps == pytest.approx(672.7, abs=0.1) and outcome.test.valid
    assert [attempt.valid for attempt in tries] == [True, True, True, False, True, True, False]
    assert len(tried) <= harness.SERVER_SEARCH_TESTS


def test_a_server_search_where_no_rate_holds_halves_and_returns_the_last_test_tried(monkeypatch, tmp_path):
    tried = rates_tried(monkeypatch, highest_held=0.0)
    settings = LoadGenSettings.of("server", items=8, quick=True, latency_bound_ms=50.0)

    chosen, outcome, tries = harness.server_search(None, None, settings, tmp_path, first_rate=64.0, tests=4)

    assert tried == [64.0, 32.0, 16.0, 8.0]
    assert chosen.expected_qps == 8.0 and not outcome.test.valid and not any(attempt.valid for attempt in tries)
