"""A model driven by MLPerf LoadGen (MLCommons' `mlcommons-loadgen`, the load generator of MLPerf Inference).

LoadGen decides when each query is issued and times it; this module supplies the two things it asks for:

- a query sample library (QSL) over the task's items (`SampleLibrary`): the arrays the backend takes (one item
  each, batch dimension 1), at most `resident` of them in memory at once, loaded when LoadGen asks, before it
  starts timing (a performance test holds `resident` samples; an accuracy test walks the whole set that many at a
  time), so loading costs nothing while LoadGen times and an ImageNet validation set need not fit in memory;
- a system under test (SUT) that answers LoadGen's queries with `answer` (a backend's `run`: an array of a batch
  in, its logits out):
  - single stream: each query is one sample, answered in LoadGen's issuing thread as it arrives;
  - offline: the one query holds every sample; they are answered `batch_size` at a time, each sample's row of
    logits returned as its response;
  - server: queries arrive at LoadGen's Poisson-scheduled times; one worker thread answers them in arrival order,
    so a query waits while the one before it runs, as on a server of one model instance.

The test's figures come from LoadGen's own detail log, read back by the rules package
(`dawnboard.formats.loadgen.read_loadgen_detail`), so what Dawnboard reports is what LoadGen computed. In accuracy
mode LoadGen issues every sample once; the logits are kept here, by sample index, for the task's scoring.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import mlperf_loadgen as lg
import numpy as np

from dawnboard.formats.loadgen import LoadGenTest, read_loadgen_detail

SCENARIOS = {
    "single-stream": lg.TestScenario.SingleStream,
    "offline": lg.TestScenario.Offline,
    "server": lg.TestScenario.Server,
}
SUMMARY_LOG, DETAIL_LOG = "mlperf_log_summary.txt", "mlperf_log_detail.txt"
# MLPerf Inference's minimums as mlcommons/inference's mlperf.conf states them (`*.SingleStream.min_query_count =
# 1024`, `*.*.min_duration = 600000` in later rounds; v0.5's had 60000): a performance run lasts at least 600 s,
# and a single-stream one answers at least 1024 queries.
MLPERF_MIN_DURATION_MS = 600_000
MLPERF_SINGLE_STREAM_MIN_QUERIES = 1024
# The quick profile, for tests and the bundled task: as many queries as items (offline: one query of them all),
# however long that takes.
QUICK_MIN_DURATION_MS = 0
CALIBRATION_QUERIES = 256
CALIBRATION_MARGIN = 2.0
# LoadGen's early stopping needs queries before it can say VALID: 64 for a single stream's 90th percentile, and
# about 460 for a server's 99th with no query over the bound, 662 with one (LoadGen's own count, seen here); a
# quick server test of 2048 tolerates the few slow queries a shared machine throws in. A quick test issues at
# least this many.
EARLY_STOPPING_MIN_QUERIES = {"single-stream": 64, "server": 2048}


@dataclass(frozen=True)
class LoadGenSettings:
    """What a LoadGen test is asked to do; kept in the run record as `as_dict` gives it.

    Attributes:
        min_query_count: queries LoadGen issues at least (single stream, server); offline, which issues one
            query, the fewest samples it holds.
        min_duration_ms: how long the test lasts at least.
        batch_size: offline: samples per backend call.
        expected_latency_ms: single stream: LoadGen's guess, which sizes its schedule (not a bound).
        expected_qps: offline: samples per second expected, which sizes the one query (at least min_duration of
            them); server: the target rate of the Poisson arrivals.
        latency_bound_ms: server: the 99th-percentile latency a VALID test must keep.
        profile: "mlperf" (MLPerf's minimums) or "quick".
    """

    scenario: str
    min_query_count: int
    min_duration_ms: int
    batch_size: int = 1
    expected_latency_ms: float = 1.0
    expected_qps: float = 1000.0
    latency_bound_ms: float | None = None
    profile: str = "mlperf"

    def __post_init__(self):
        if self.scenario not in SCENARIOS:
            raise ValueError(f"No LoadGen scenario {self.scenario!r}: {', '.join(SCENARIOS)}.")
        if self.batch_size < 1 or self.min_query_count < 1 or self.min_duration_ms < 0:
            raise ValueError("The batch size and the query count must be at least 1, the duration at least 0.")
        if self.scenario == "server" and not (self.latency_bound_ms and self.latency_bound_ms > 0):
            raise ValueError("The server scenario needs a latency bound above 0 ms (--latency-bound-ms).")
        if self.expected_qps <= 0 or self.expected_latency_ms <= 0:
            raise ValueError("The expected rate and latency must be above 0.")

    @classmethod
    def of(cls, scenario: str, *, items: int, quick: bool, **chosen: Any) -> LoadGenSettings:
        """MLPerf's minimums, or the quick profile: as many queries as items (offline, one query of them all), or
        as many as LoadGen's early stopping needs where that is more."""
        fewest = EARLY_STOPPING_MIN_QUERIES.get(scenario, 1)
        if quick:
            queries, duration_ms, profile = max(fewest, items), QUICK_MIN_DURATION_MS, "quick"
        else:
            fewest = MLPERF_SINGLE_STREAM_MIN_QUERIES if scenario == "single-stream" else fewest
            queries, duration_ms, profile = max(fewest, items), MLPERF_MIN_DURATION_MS, "mlperf"
        return cls(scenario, min_query_count=queries, min_duration_ms=duration_ms, profile=profile, **chosen)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def test_settings(self, *, accuracy: bool) -> lg.TestSettings:
        settings = lg.TestSettings()
        settings.scenario = SCENARIOS[self.scenario]
        settings.mode = lg.TestMode.AccuracyOnly if accuracy else lg.TestMode.PerformanceOnly
        settings.min_duration_ms = self.min_duration_ms
        if self.scenario == "single-stream":
            settings.min_query_count = self.min_query_count
            settings.single_stream_expected_latency_ns = int(self.expected_latency_ms * 1_000_000)
        elif self.scenario == "offline":
            settings.min_query_count = self.min_query_count  # offline: the fewest samples its one query holds
            settings.offline_expected_qps = self.expected_qps
        else:
            settings.min_query_count = self.min_query_count
            settings.server_target_qps = self.expected_qps
            settings.server_target_latency_ns = int(self.latency_bound_ms * 1_000_000)
        return settings


# MLPerf Inference's performance sample count for ResNet-50 (mlcommons/inference mlperf.conf: resnet50
# performance_sample_count_override = 1024): the samples a performance test draws its queries from.
RESIDENT_SAMPLES = 1024


class SampleLibrary:
    """LoadGen's query sample library: `count` items, read `resident` at most at a time by `read` (positions in,
    one array of batch 1 each out, in the order asked) when LoadGen loads them, dropped when it unloads them."""

    def __init__(self, count: int, read: Callable[[list[int]], Iterable[np.ndarray]], *, resident: int):
        if count < 1 or resident < 1:
            raise ValueError("LoadGen needs at least one item.")
        self.count, self.read, self.resident = count, read, min(resident, count)
        self.loaded: dict[int, np.ndarray] = {}

    @classmethod
    def in_memory(cls, items: Sequence[np.ndarray]) -> SampleLibrary:
        """Items already held, every one resident."""
        return cls(len(items), lambda positions: [items[position] for position in positions], resident=len(items))

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, position: int) -> np.ndarray:
        return self.loaded[position]

    def load(self, positions: list[int]) -> None:
        positions = [int(position) for position in positions]
        self.loaded.update(zip(positions, self.read(positions), strict=True))

    def unload(self, positions: list[int]) -> None:
        for position in positions:
            self.loaded.pop(int(position), None)


@dataclass(frozen=True)
class LoadGenOutcome:
    """A finished test: LoadGen's figures, where its logs are, and (accuracy mode) each sample's logits."""

    test: LoadGenTest
    summary_path: Path
    detail_path: Path
    outputs: dict[int, np.ndarray] | None


def loadgen_run(
    answer: Callable[[np.ndarray], np.ndarray],
    items: SampleLibrary | Sequence[np.ndarray],
    settings: LoadGenSettings,
    out_dir: Path,
    *,
    accuracy: bool = False,
) -> LoadGenOutcome:
    """Run one LoadGen test of `answer` over `items` (a `SampleLibrary`, or arrays of batch 1 held in memory), its
    logs written in `out_dir`.

    Raises:
        RejectedInput: LoadGen's detail log could not be read (it stopped before writing its results).
    """
    if not len(items):
        raise ValueError("LoadGen needs at least one item.")
    library = items if isinstance(items, SampleLibrary) else SampleLibrary.in_memory(items)
    out_dir.mkdir(parents=True, exist_ok=True)
    system = _SystemUnderTest(answer, library, settings, keep_outputs=accuracy)
    sut = lg.ConstructSUT(system.issue_callback(), system.flush)
    qsl = lg.ConstructQSL(len(library), library.resident, library.load, library.unload)
    log_settings = lg.LogSettings()
    log_settings.log_output.outdir = str(out_dir)
    log_settings.log_output.copy_summary_to_stdout = False
    log_settings.enable_trace = False
    try:
        system.start()
        lg.StartTestWithLogSettings(sut, qsl, settings.test_settings(accuracy=accuracy), log_settings)
    finally:
        system.stop()
        lg.DestroyQSL(qsl)
        lg.DestroySUT(sut)
    if system.failure is not None:
        raise system.failure
    detail = out_dir / DETAIL_LOG
    return LoadGenOutcome(
        test=read_loadgen_detail(detail.read_bytes(), file_name=DETAIL_LOG),
        summary_path=out_dir / SUMMARY_LOG,
        detail_path=detail,
        outputs=system.outputs if accuracy else None,
    )


def calibrated(settings: LoadGenSettings, answer, items: Sequence[np.ndarray], out_dir: Path) -> LoadGenSettings:
    """`settings` with LoadGen's guesses measured by a short LoadGen test of the same path, run twice, the first
    a warm-up (their logs kept in `out_dir`): the single stream's expected latency (its mean) and the offline rate
    (its samples per second).

    LoadGen sizes its schedule from them, and a guess far off leaves a long test short of queries (INVALID) or
    far longer than asked; they bound nothing. The quick profile needs none (its length is its query count),
    and the server's rate is the user's target."""
    if settings.scenario == "server" or settings.min_duration_ms == 0:
        return settings
    probe = replace(settings, min_query_count=min(len(items), CALIBRATION_QUERIES), min_duration_ms=0)
    loadgen_run(answer, items, probe, out_dir / "warm-up")  # the first calls pay for cuDNN's autotuning, say
    test = loadgen_run(answer, items, probe, out_dir).test
    # LoadGen schedules duration / expected latency queries (offline: one query of expected rate x duration x 1.1
    # samples); a test running faster than its probe would end before its minimum duration (INVALID), so the guess
    # is twice as fast as the probe: a test may run up to twice its minimum instead.
    if settings.scenario == "single-stream":
        return replace(settings, expected_latency_ms=max(test.mean_ms or 0.0, 1e-3) / CALIBRATION_MARGIN)
    return replace(settings, expected_qps=max(test.samples_per_second or 0.0, 1.0) * CALIBRATION_MARGIN)


class _SystemUnderTest:
    """LoadGen's callbacks: `issue` answers (or, for the server, queues) each query's samples; `flush` does nothing
    (every query is answered as soon as it can be)."""

    def __init__(self, answer, items, settings: LoadGenSettings, *, keep_outputs: bool):
        self.answer, self.items, self.settings = answer, items, settings
        self.outputs: dict[int, np.ndarray] = {}
        self.keep_outputs = keep_outputs
        self.failure: BaseException | None = None
        self.pending: queue.Queue | None = queue.Queue() if settings.scenario == "server" else None
        self.worker: threading.Thread | None = None
        self.reusable: list = []

    def start(self) -> None:
        if self.pending is not None:
            self.worker = threading.Thread(target=self._serve, name="loadgen-server", daemon=True)
            self.worker.start()

    def stop(self) -> None:
        if self.worker is not None:
            self.pending.put(None)
            self.worker.join()

    def issue_callback(self) -> Callable[[list], None]:
        """What LoadGen calls with each query: `issue`, or, for a single stream's performance test, the shortest
        path there is (LoadGen's own bookkeeping is about 1.3 us a query with an empty callback here, and each
        attribute looked up and call made in Python adds to a query of a model answering in 40 us)."""
        if self.settings.scenario != "single-stream" or self.keep_outputs:
            return self.issue
        # The library's dict of loaded samples itself: LoadGen loads them before it times, and a dict lookup is
        # cheaper than a method call a query.
        answer, items, complete, response = (
            self.answer,
            self.items.loaded,
            lg.QuerySamplesComplete,
            lg.QuerySampleResponse,
        )

        def answer_one(samples: list) -> None:
            sample = samples[0]
            try:
                answer(items[sample.index])
            except Exception as error:  # reported after the test: LoadGen's thread must not die with it
                self.failure = self.failure or error
            complete([response(sample.id, 0, 0)])

        return answer_one

    def issue(self, samples: list) -> None:
        if self.pending is not None:
            for sample in samples:
                self.pending.put(sample)
            return
        batch_size = self.settings.batch_size if self.settings.scenario == "offline" else 1
        for start in range(0, len(samples), batch_size):
            self._answer(samples[start : start + batch_size])

    def flush(self) -> None:
        pass

    def _responses(self, count: int) -> list:
        """`count` reusable empty responses (a performance test's carry no data)."""
        if len(self.reusable) < count:
            self.reusable += [lg.QuerySampleResponse(0, 0, 0) for _ in range(count - len(self.reusable))]
        return self.reusable[:count] if count < len(self.reusable) else self.reusable

    def _serve(self) -> None:
        while (sample := self.pending.get()) is not None:
            self._answer([sample])

    def _answer(self, samples: list) -> None:
        """Answer these samples in one backend call and tell LoadGen; a failure is kept and every sample still
        answered (LoadGen would otherwise wait for them forever), so the test ends and the failure is raised.

        A performance test's responses carry no data (LoadGen reads a response's bytes only to log an accuracy
        test's answers): no copy, no pointer taken, between two timed queries. A single stream's performance
        test takes a shorter path still (`issue_callback`)."""
        try:
            inputs = (
                self.items[samples[0].index]
                if len(samples) == 1
                else np.concatenate([self.items[s.index] for s in samples])
            )
            logits = self.answer(inputs)
            if self.keep_outputs:
                logits = np.ascontiguousarray(logits, dtype=np.float32)
        except Exception as error:  # reported after the test: LoadGen's thread must not die with it
            self.failure = self.failure or error
            logits = np.zeros((len(samples), 1), dtype=np.float32)
        if not self.keep_outputs:
            # LoadGen copies the responses it is given (pybind11 converts the list to a vector): the same response
            # objects serve every batch, relabelled, at under a third of the cost of new ones (13 against 46 us for 64).
            responses = self._responses(len(samples))
            for response, sample in zip(responses, samples, strict=True):
                response.id = sample.id
            lg.QuerySamplesComplete(responses)
            return
        rows = [logits[index : index + 1] for index in range(len(samples))]
        responses = [
            lg.QuerySampleResponse(s.id, row.ctypes.data, row.nbytes) for s, row in zip(samples, rows, strict=True)
        ]
        lg.QuerySamplesComplete(responses)
        for sample, row in zip(samples, rows, strict=True):
            self.outputs[sample.index] = row[0].copy()
