"""Inference measured in three passes over the same items, the last two driven by MLPerf LoadGen
(`inference.loadgen`):

1. the timed pass, DAWNBench's inference rule: every item of the evaluation set once, one at a time (batch 1),
   in the set's fixed order, by Dawnboard's own loop. Each item's latency is `time.perf_counter_ns` around the
   backend call alone; the item is read and preprocessed just before, outside the timing. The first `warmup`
   items are timed but left out of the statistics (allocators, caches, thread pools settle).
   Its mean is the entry's latency. Between two calls the loop does nothing but take the next item: LoadGen
   driving the same calls adds its own bookkeeping and threads (`bench/latency_overhead.py` measures both).
2. the accuracy pass: LoadGen's accuracy mode, every item once, one query of one item at a time; the task's
   score of its answers (top-k of the logits) is the entry's accuracy, which must meet the threshold. A
   deterministic backend gives the timed pass's answers again; the record keeps both scores.
3. the scenario's performance test, as LoadGen runs and judges it: single stream (its percentiles and the
   early-stopping estimate of the 90th), offline (samples per second, in batches) or server (the highest Poisson
   rate LoadGen judges VALID under the latency bound, found by a bounded search), with its VALID or INVALID
   and its logs.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from inference.domain.latency import LatencySummary
from inference.loadgen import LoadGenOutcome, LoadGenSettings, SampleLibrary, calibrated, loadgen_run

PREPROCESSING = (
    "each item read and preprocessed (decoded, resized, normalised, as the recipe's evaluation does) before "
    "its timing starts; the timing covers the backend call alone, which returns the logits"
)
# The server's search: at most this many LoadGen tests, and it stops once the highest VALID rate and the lowest
# INVALID one are within this factor of each other.
SERVER_SEARCH_TESTS = 8
SERVER_SEARCH_RESOLUTION = 1.1
# Its first rate: this share of what one instance answers a second at its mean single-stream latency.
SERVER_FIRST_RATE_SHARE = 0.5


@dataclass(frozen=True)
class ServerTry:
    """One rate the server's search tried, and LoadGen's verdict on it."""

    queries_per_second: float
    valid: bool
    p99_ms: float | None

    def as_dict(self) -> dict:
        return {"target_qps": self.queries_per_second, "valid": self.valid, "p99_ms": self.p99_ms}


@dataclass(frozen=True)
class Measurement:
    latency: LatencySummary  # the timed pass, one item at a time, warm-up left out
    items: int  # answered in each pass, warm-up included
    warmup: int
    correct: int  # in LoadGen's accuracy pass
    timed_pass_correct: int  # in the timed pass: the same for a deterministic backend
    top_k: int
    performance: LoadGenOutcome  # the scenario's performance test (the server's: its highest VALID rate's)
    settings: LoadGenSettings  # as that test ran (calibrated; the server's rate)
    server_tries: tuple[ServerTry, ...] = ()

    @property
    def accuracy(self) -> float:
        """Percent of all items answered correctly (top-k)."""
        return 100.0 * self.correct / self.items

    @property
    def valid(self) -> bool:
        return self.performance.test.valid


def measure(
    answer: Callable[[np.ndarray], np.ndarray],
    stream: Iterable[tuple[np.ndarray, int]],
    library: SampleLibrary | Sequence[np.ndarray],
    settings: LoadGenSettings,
    out_dir: Path,
    *,
    top_k: int,
    warmup: int,
    progress: Callable[[int], None] | None = None,
) -> Measurement:
    """The timed pass over `stream` (each item as an array of batch 1 and its label, in the set's order), the
    accuracy pass and the performance test of `settings.scenario` over `library` (the same items, by position);
    LoadGen's logs under `out_dir` (`accuracy/`, `calibration/`, the scenario's own folder, and the server's
    `server-<rate>/` tries)."""
    latencies_ns, timed_logits, labels = timed_pass(answer, stream, progress=progress)
    if len(labels) <= warmup:
        raise ValueError(f"Only {len(labels)} items: more than the {warmup} warm-up items are needed.")
    if len(library) != len(labels):
        raise ValueError(f"The timed pass answered {len(labels)} items and the sample library holds {len(library)}.")
    accuracy_pass = loadgen_run(
        answer,
        library,
        LoadGenSettings.of("single-stream", items=len(labels), quick=True),
        out_dir / "accuracy",
        accuracy=True,
    )
    logits = np.concatenate([accuracy_pass.outputs[index][None] for index in range(len(labels))])
    latency = LatencySummary.of(latencies_ns[warmup:])
    tries: tuple[ServerTry, ...] = ()
    if settings.scenario == "server":
        first_rate = SERVER_FIRST_RATE_SHARE * 1000.0 / latency.mean_ms
        # A bound under the model's own 99th percentile with no load (the timed pass's) holds at no rate: one
        # test shows it, rather than a search down to rates whose tests last minutes.
        tests = 1 if settings.latency_bound_ms < latency.p99_ms else SERVER_SEARCH_TESTS
        settings, performance, tries = server_search(
            answer, library, settings, out_dir, first_rate=first_rate, tests=tests
        )
    else:
        settings = calibrated(settings, answer, library, out_dir / "calibration")
        performance = loadgen_run(answer, library, settings, out_dir / settings.scenario)
    return Measurement(
        latency=latency,
        items=len(labels),
        warmup=warmup,
        correct=top_k_hits(logits, labels, top_k),
        timed_pass_correct=top_k_hits(timed_logits, labels, top_k),
        top_k=top_k,
        performance=performance,
        settings=settings,
        server_tries=tries,
    )


def timed_pass(
    answer: Callable[[np.ndarray], np.ndarray],
    stream: Iterable[tuple[np.ndarray, int]],
    *,
    progress: Callable[[int], None] | None = None,
) -> tuple[list[int], np.ndarray, np.ndarray]:
    """Each item answered alone, in order, the call timed alone: (latencies in ns, the logits a row an item, the
    labels). Between two calls the loop only takes the next item (read and preprocessed by `stream`)."""
    latencies_ns: list[int] = []
    outputs: list[np.ndarray] = []
    labels: list[int] = []
    for item, label in stream:
        started = time.perf_counter_ns()
        logits = answer(item)
        latencies_ns.append(time.perf_counter_ns() - started)
        outputs.append(logits)
        labels.append(label)
        if progress is not None:
            progress(len(outputs))
    if not outputs:
        raise ValueError("No item was answered.")
    return latencies_ns, np.concatenate(outputs), np.asarray(labels, dtype=np.int64)


def server_search(
    answer,
    items: Sequence[np.ndarray],
    settings: LoadGenSettings,
    out_dir: Path,
    *,
    first_rate: float,
    tests: int = SERVER_SEARCH_TESTS,
) -> tuple[LoadGenSettings, LoadGenOutcome, tuple[ServerTry, ...]]:
    """The highest Poisson arrival rate LoadGen judges VALID under `settings.latency_bound_ms`: doubled from
    `first_rate` while VALID, halved while INVALID, then bisected (geometrically) between the highest VALID and
    the lowest INVALID rate, at most `tests` LoadGen tests. Returns that rate's settings and test, or, when no
    rate held, the last test tried (INVALID), with every rate tried."""
    highest_valid: tuple[LoadGenSettings, LoadGenOutcome] | None = None
    lowest_invalid: float | None = None
    last: tuple[LoadGenSettings, LoadGenOutcome] | None = None
    tries: list[ServerTry] = []
    rate = first_rate
    for _ in range(tests):
        trying = replace(settings, expected_qps=rate)
        outcome = loadgen_run(answer, items, trying, out_dir / f"server-{rate:.6g}")
        last = (trying, outcome)
        tries.append(ServerTry(rate, outcome.test.valid, outcome.test.percentiles_ms.get("99.00")))
        if outcome.test.valid:
            highest_valid = last
        else:
            lowest_invalid = rate
        low = highest_valid[0].expected_qps if highest_valid else None
        if low is not None and lowest_invalid is not None:
            if lowest_invalid / low <= SERVER_SEARCH_RESOLUTION:
                break
            rate = math.sqrt(low * lowest_invalid)
        else:
            rate = rate * 2 if lowest_invalid is None else rate / 2
    chosen_settings, chosen = highest_valid or last
    return chosen_settings, chosen, tuple(tries)


def top_k_hits(logits: np.ndarray, labels: np.ndarray, k: int) -> int:
    """How many rows have their label among their k highest logits."""
    k = min(k, logits.shape[1])
    top = np.argpartition(-logits, k - 1, axis=1)[:, :k]
    return int((top == labels[:, None]).any(axis=1).sum())
