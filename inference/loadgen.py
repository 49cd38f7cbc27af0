"""A model driven by MLPerf LoadGen (MLCommons' `mlcommons-loadgen`, the load generator of MLPerf Inference).

LoadGen decides when each query is issued and times it; this module supplies the two things it asks for:

- a query sample library (QSL) over the task's items (`SampleLibrary`): what the backend takes (one item each,
  batch dimension 1: an array, or a tuple of arrays for SQuAD's four inputs), at most `resident` of them in memory
  at once, loaded when LoadGen asks, before it starts timing (a performance test holds `resident` samples; an
  accuracy test walks the whole set that many at a time), so loading costs nothing while LoadGen times and an
  ImageNet validation set need not fit in memory; and how its items batch (`Batching`: stacked, or padded);
- a system under test (SUT) that answers LoadGen's queries with `answer` (a backend's `run`: a batch in, its
  outputs out), on LoadGen's fast SUT (each query's sample ids and indices as plain ints):
  - single stream: each query is one sample, answered in LoadGen's issuing thread as it arrives;
  - offline: the one query holds every sample; they are answered `batch_size` at a time, each sample's part of
    the outputs (`Batching.part`) its answer;
  - server: queries arrive at LoadGen's Poisson-scheduled times; one worker thread answers them in arrival order,
    so a query waits while the one before it runs, as on a server of one model instance.

The test's figures come from LoadGen's own detail log, read back by the rules package
(`dawnboard.formats.loadgen.read_loadgen_detail`), so what Dawnboard reports is what LoadGen computed. In accuracy
mode LoadGen issues every sample once; the answers are kept here, by sample index, for the task's scoring.
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


Item = Any  # one sample as the backend takes it, batch dimension 1: an array, or a tuple of arrays (SQuAD's four)
Output = Any  # one sample's answer: a row of logits, or a tuple of rows (a reader's start and end logits)


@dataclass(frozen=True)
class Batching:
    """How samples make one backend call (offline's batches) and how its outputs part into each sample's answer.

    Attributes:
        join: the samples (each of batch 1) as one batch.
        part: the backend's outputs for a joined batch and the samples it joined -> each sample's answer, in order.
    """

    join: Callable[[list[Item]], Item]
    part: Callable[[Any, list[Item]], list[Output]]


def _rows(outputs: np.ndarray, items: list[Item]) -> list[np.ndarray]:
    return [outputs[index] for index in range(len(items))]


# Items of one tensor of the same shape (an image model's): stacked along the batch, the logits a row a sample.
ONE_TENSOR = Batching(join=np.concatenate, part=_rows)


# MLPerf Inference's performance sample count for ResNet-50 (mlcommons/inference mlperf.conf: resnet50
# performance_sample_count_override = 1024): the samples a performance test draws its queries from.
RESIDENT_SAMPLES = 1024


class SampleLibrary:
    """LoadGen's query sample library: `count` items, read `resident` at most at a time by `read` (positions in,
    one item of batch 1 each out, in the order asked) when LoadGen loads them, dropped when it unloads them; and
    how they batch (`batching`)."""

    def __init__(
        self,
        count: int,
        read: Callable[[list[int]], Iterable[Item]],
        *,
        resident: int,
        batching: Batching = ONE_TENSOR,
    ):
        if count < 1 or resident < 1:
            raise ValueError("LoadGen needs at least one item.")
        self.count, self.read, self.resident, self.batching = count, read, min(resident, count), batching
        self.loaded: dict[int, Item] = {}

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
    sut = lg.ConstructFastSUT(system.issue_callback(), system.flush)
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
        lg.DestroyFastSUT(sut)
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
    """LoadGen's callbacks, on its fast SUT (`ConstructFastSUT`: each query's sample ids and indices come as plain
    lists of ints, not as a Python object a sample; half the cost a batch of 64 here, 21 against 45 us with a model
    answering nothing): `issue` answers (or, for the server, queues) each query's samples; `flush` does nothing
    (every query is answered as soon as it can be)."""

    def __init__(self, answer, items, settings: LoadGenSettings, *, keep_outputs: bool):
        self.answer, self.items, self.settings = answer, items, settings
        self.outputs: dict[int, Output] = {}
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

    def issue_callback(self) -> Callable[[list[int], list[int]], None]:
        """What LoadGen calls with each query's sample ids and indices: `issue`, or, for a single stream's performance
        test, the shortest path there is (LoadGen's own bookkeeping is about 1.3 us a query with an empty callback
        here, and each attribute looked up and call made in Python adds to a query of a model answering in 40 us)."""
        if self.settings.scenario != "single-stream" or self.keep_outputs:
            return self.issue
        # The library's dict of loaded samples itself (LoadGen loads them before it times: a dict lookup is cheaper
        # than a method call a query), and one response, relabelled each query (LoadGen copies it).
        answer, items, complete = self.answer, self.items.loaded, lg.QuerySamplesComplete
        responses = self._responses(1)
        response = responses[0]

        def answer_one(ids: list[int], indices: list[int]) -> None:
            try:
                answer(items[indices[0]])
            except Exception as error:  # reported after the test: LoadGen's thread must not die with it
                self.failure = self.failure or error
            response.id = ids[0]
            complete(responses)

        return answer_one

    def issue(self, ids: list[int], indices: list[int]) -> None:
        if self.pending is not None:
            for pair in zip(ids, indices, strict=True):
                self.pending.put(pair)
            return
        batch_size = self.settings.batch_size if self.settings.scenario == "offline" else 1
        for start in range(0, len(ids), batch_size):
            self._answer(ids[start : start + batch_size], indices[start : start + batch_size])

    def flush(self) -> None:
        pass

    def _responses(self, count: int) -> list:
        """`count` reusable empty responses (a performance test's carry no data)."""
        if len(self.reusable) < count:
            self.reusable += [lg.QuerySampleResponse(0, 0, 0) for _ in range(count - len(self.reusable))]
        return self.reusable[:count] if count < len(self.reusable) else self.reusable

    def _serve(self) -> None:
        while (pair := self.pending.get()) is not None:
            self._answer([pair[0]], [pair[1]])

    def _answer(self, ids: list[int], indices: list[int]) -> None:
        """Answer these samples in one backend call and tell LoadGen; a failure is kept and every sample still
        answered (LoadGen would otherwise wait for them forever), so the test ends and the failure is raised.

        A performance test's responses carry no data (LoadGen reads a response's bytes only to log an accuracy
        test's answers): no copy, no pointer taken, between two timed queries. A single stream's performance
        test takes a shorter path still (`issue_callback`)."""
        loaded = self.items.loaded
        items = [loaded[index] for index in indices]
        try:
            outputs = self.answer(items[0] if len(items) == 1 else self.items.batching.join(items))
            answers = self.items.batching.part(outputs, items) if self.keep_outputs else None
        except Exception as error:  # reported after the test: LoadGen's thread must not die with it
            self.failure = self.failure or error
            answers = None
        if answers is None:
            # LoadGen copies the responses it is given (pybind11 converts the list to a vector): the same response
            # objects serve every batch, relabelled, at under a third of the cost of new ones (13 against 46 us for 64).
            responses = self._responses(len(ids))
            for response, sample_id in zip(responses, ids, strict=True):
                response.id = sample_id
            lg.QuerySamplesComplete(responses)
            return
        logged = [_response_bytes(answer) for answer in answers]
        responses = [
            lg.QuerySampleResponse(sample_id, data.ctypes.data, data.nbytes)
            for sample_id, data in zip(ids, logged, strict=True)
        ]
        lg.QuerySamplesComplete(responses)
        for index, answer in zip(indices, answers, strict=True):
            self.outputs[index] = _copied(answer)


def _response_bytes(answer: Output) -> np.ndarray:
    """What LoadGen's accuracy log records of an answer: its array (or its arrays, one after the other) as float32."""
    parts = answer if isinstance(answer, tuple) else (answer,)
    return np.ascontiguousarray(np.concatenate([np.ravel(part) for part in parts]), dtype=np.float32)


def _copied(answer: Output) -> Output:
    """The answer, in arrays of its own (a row of a batch's outputs would keep the whole batch alive)."""
    return tuple(np.array(part) for part in answer) if isinstance(answer, tuple) else np.array(answer)
