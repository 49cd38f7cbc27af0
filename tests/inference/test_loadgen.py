"""A model driven by MLPerf LoadGen itself (`mlcommons-loadgen`): each scenario answered, LoadGen's figures read
from its own logs, the accuracy pass answering every item once, an unmet latency bound judged INVALID."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np
import pytest

from dawnboard.errors import ErrorCode
from inference.loadgen import EARLY_STOPPING_MIN_QUERIES, LoadGenSettings, SampleLibrary, calibrated, loadgen_run

ITEMS = 60  # fewer than LoadGen's early stopping needs in a single stream: the quick profile issues 64 queries
rng = np.random.default_rng(0)
WEIGHTS = rng.standard_normal((16, 10)).astype(np.float32)
INPUTS = [rng.standard_normal((1, 16)).astype(np.float32) for _ in range(ITEMS)]


class Model:
    """A linear map that records the batch size of every call."""

    def __init__(self, seconds: float = 0.0):
        self.seconds, self.batch_sizes = seconds, []

    def __call__(self, batch: np.ndarray) -> np.ndarray:
        self.batch_sizes.append(len(batch))
        if self.seconds:
            time.sleep(self.seconds)
        return batch @ WEIGHTS


def quick(scenario: str, **chosen) -> LoadGenSettings:
    return LoadGenSettings.of(scenario, items=ITEMS, quick=True, **chosen)


def test_single_stream_answers_one_sample_per_query_and_reads_loadgen_s_percentiles(tmp_path):
    model = Model()

    outcome = loadgen_run(model, INPUTS, quick("single-stream"), tmp_path)

    test = outcome.test
    queries = EARLY_STOPPING_MIN_QUERIES["single-stream"]
    assert (test.scenario, test.mode, test.valid, test.query_count) == (
        "single-stream",
        "PerformanceOnly",
        True,
        queries,
    )
    assert set(model.batch_sizes) == {1} and len(model.batch_sizes) == queries
    assert 0 < test.min_ms <= test.p90_ms <= test.max_ms and test.early_stopping_p90_ms >= test.p90_ms
    assert test.problems(scenario="single-stream") == []
    assert outcome.summary_path.read_text().count("Result is : VALID") == 1
    assert outcome.detail_path.name == "mlperf_log_detail.txt" and outcome.outputs is None


def test_offline_answers_its_one_query_in_batches(tmp_path):
    model = Model()

    outcome = loadgen_run(model, INPUTS, quick("offline", batch_size=16), tmp_path)

    assert (outcome.test.scenario, outcome.test.valid, outcome.test.query_count) == ("offline", True, 1)
    assert model.batch_sizes == [16, 16, 16, 12]
    assert outcome.test.samples_per_second > 0


@pytest.mark.parametrize(
    ("scenario", "chosen"),
    [
        ("single-stream", {}),
        ("offline", {"batch_size": 7}),
        ("server", {"latency_bound_ms": 50.0, "expected_qps": 2000}),
    ],
)
def test_the_accuracy_pass_answers_every_item_once_with_its_own_logits(tmp_path, scenario, chosen):
    outcome = loadgen_run(Model(), INPUTS, quick(scenario, **chosen), tmp_path, accuracy=True)

    assert outcome.test.mode == "AccuracyOnly"
    assert sorted(outcome.outputs) == list(range(ITEMS))
    answered = np.stack([outcome.outputs[index] for index in range(ITEMS)])
    np.testing.assert_allclose(answered, np.concatenate(INPUTS) @ WEIGHTS, rtol=1e-5, atol=1e-5)


def test_a_server_keeping_its_bound_is_valid_and_one_missing_it_invalid(tmp_path):
    kept = loadgen_run(Model(), INPUTS, quick("server", latency_bound_ms=50.0, expected_qps=2000), tmp_path / "kept")
    missed = loadgen_run(
        Model(seconds=0.002), INPUTS, quick("server", latency_bound_ms=0.5, expected_qps=2000), tmp_path / "missed"
    )

    assert (kept.test.valid, kept.test.query_count) == (True, EARLY_STOPPING_MIN_QUERIES["server"])
    assert kept.test.scheduled_queries_per_second == pytest.approx(2000, rel=0.25)
    assert missed.test.valid is False
    assert [issue.code for issue in missed.test.problems(scenario="server")] == [ErrorCode.LOADGEN_INVALID]


def test_calibration_measures_the_path_so_a_test_of_a_minimum_duration_is_valid(tmp_path):
    for scenario in ("single-stream", "offline"):
        asked = replace(LoadGenSettings.of(scenario, items=ITEMS, quick=False), min_duration_ms=300)
        # A model of a steady 0.5 ms a call: a matmul of microseconds runs two or three times faster or slower from
        # one moment to the next on a shared machine (seen under `make test`), more than calibration's margin.
        settings = calibrated(asked, Model(seconds=0.0005), INPUTS, tmp_path / f"{scenario}-probe")

        outcome = loadgen_run(Model(seconds=0.0005), INPUTS, settings, tmp_path / scenario)

        assert outcome.test.valid and outcome.test.min_duration_met, scenario
        assert settings.as_dict()["min_duration_ms"] == 300 and settings.profile == "mlperf"


def test_a_failing_model_is_raised_after_loadgen_ends(tmp_path):
    def broken(batch):
        raise RuntimeError("out of memory")

    with pytest.raises(RuntimeError, match="out of memory"):
        loadgen_run(broken, INPUTS, quick("single-stream"), tmp_path)


@pytest.mark.parametrize(
    "chosen",
    [
        {"scenario": "multi-stream"},
        {"scenario": "server"},  # no latency bound
        {"scenario": "server", "latency_bound_ms": 0.0},
        {"scenario": "offline", "batch_size": 0},
    ],
)
def test_settings_that_cannot_run_are_refused(chosen):
    with pytest.raises(ValueError):
        LoadGenSettings(min_query_count=1, min_duration_ms=0, **chosen)


def test_the_mlperf_profile_keeps_mlperf_s_minimums():
    single = LoadGenSettings.of("single-stream", items=ITEMS, quick=False)
    offline = LoadGenSettings.of("offline", items=ITEMS, quick=False)

    assert (single.min_query_count, single.min_duration_ms, single.profile) == (1024, 600_000, "mlperf")
    assert (offline.min_query_count, offline.min_duration_ms) == (ITEMS, 600_000)
    assert LoadGenSettings.of("single-stream", items=ITEMS, quick=True).as_dict() == {
        "scenario": "single-stream",
        "min_query_count": 64,
        "min_duration_ms": 0,
        "batch_size": 1,
        "expected_latency_ms": 1.0,
        "expected_qps": 1000.0,
        "latency_bound_ms": None,
        "profile": "quick",
    }


class CountingReader:
    """Reads INPUTS by position for a SampleLibrary, and records the most held in memory at once."""

    def __init__(self):
        self.library = None
        self.most_held = 0

    def __call__(self, positions: list[int]) -> list[np.ndarray]:
        held = len(self.library.loaded) + len(positions)
        self.most_held = max(self.most_held, held)
        return [INPUTS[position] for position in positions]


@pytest.mark.parametrize("scenario", ["single-stream", "offline"])
def test_a_library_holding_a_few_samples_at_a_time_still_answers_every_item_once_in_accuracy_mode(tmp_path, scenario):
    reader = CountingReader()
    library = SampleLibrary(ITEMS, reader, resident=16)
    reader.library = library

    outcome = loadgen_run(Model(), library, quick(scenario, batch_size=8), tmp_path, accuracy=True)

    assert sorted(outcome.outputs) == list(range(ITEMS))
    # A row of a batch of 8 and the same row alone may round differently (the BLAS kernel's order of sums).
    assert all(np.allclose(outcome.outputs[i], (INPUTS[i] @ WEIGHTS)[0], atol=1e-5) for i in range(ITEMS))
    assert reader.most_held <= 16 and library.loaded == {}  # loaded as LoadGen asked, and let go


def test_a_performance_test_answers_from_the_samples_loaded(tmp_path):
    reader = CountingReader()
    library = SampleLibrary(ITEMS, reader, resident=16)
    reader.library = library

    outcome = loadgen_run(Model(), library, quick("single-stream"), tmp_path)

    assert outcome.test.valid and reader.most_held <= 16
