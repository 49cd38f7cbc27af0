"""Inference measured in three passes over the same items, the last two driven by MLPerf LoadGen
(`inference.loadgen`):

1. the timed pass, DAWNBench's inference rule: every item of the evaluation set once, one at a time (batch 1),
   in the set's fixed order, by Dawnboard's own loop. Each item's latency is `time.perf_counter_ns` around the
   backend call alone; the item is read and preprocessed just before, outside the timing. The first `warmup`
   items are timed but left out of the statistics (allocators, caches, thread pools settle).
   Its mean is the entry's latency. Between two calls the loop does nothing but take the next item: LoadGen
   driving the same calls adds its own bookkeeping and threads (`bench/latency_overhead.py` measures both).
2. the accuracy pass: LoadGen's accuracy mode, every item once, one query of one item at a time; the task's
   score of its answers (top-k of the logits; SQuAD's official F1 of the best spans: `inference.items`) is
   the entry's accuracy, which must meet the threshold. A
   deterministic backend gives the timed pass's answers again; the record keeps both scores.
3. the scenario's performance test, as LoadGen runs and judges it: single stream (its percentiles and the
   early-stopping estimate of the 90th), offline (samples per second, in batches) or server (the highest Poisson
   rate LoadGen judges VALID under the latency bound, found by a bounded search), with its VALID or INVALID
   and its logs.

In a single stream the timed pass's mean must lie within the range of LoadGen's queries (ingest refuses an entry
whose latency lies outside it, `loadgen_contradicts_entry`): the two passes time the same calls on the same
machine, so a mean outside that range says one pass was disturbed (a few slow calls on a busy machine weigh heavily
in a small set's mean). The timed pass is then measured again, at most `TIMED_PASSES` times in all; the record
keeps every pass's mean, and a measurement still out of range is reported and not submitted.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from inference.domain.latency import LatencySummary
from inference.items import EvaluationItems, Score
from inference.loadgen import (
    RESIDENT_SAMPLES,
    Item,
    LoadGenOutcome,
    LoadGenSettings,
    Output,
    SampleLibrary,
    calibrated,
    loadgen_run,
)

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
# The timed passes a single stream may take for its mean to agree with LoadGen's queries (see above).
TIMED_PASSES = 3


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
    score: Score  # of LoadGen's accuracy pass
    timed_pass_score: Score  # of the timed pass: the same for a deterministic backend
    performance: LoadGenOutcome  # the scenario's performance test (the server's: its highest VALID rate's)
    settings: LoadGenSettings  # as that test ran (calibrated; the server's rate)
    server_tries: tuple[ServerTry, ...] = ()
    timed_pass_means_ms: tuple[float, ...] = ()  # every timed pass's mean, the last the entry's

    @property
    def accuracy(self) -> float:
        """The task's quality of LoadGen's accuracy pass over every item, in the task's scale (top-k accuracy in
        percent; SQuAD's F1 as a fraction): what meets the threshold."""
        return self.score.quality

    @property
    def valid(self) -> bool:
        return self.performance.test.valid


def measure(
    answer: Callable[[Item], Any],
    items: EvaluationItems,
    settings: LoadGenSettings,
    out_dir: Path,
    *,
    warmup: int,
    progress: Callable[[int], None] | None = None,
    resident: int = RESIDENT_SAMPLES,
) -> Measurement:
    """The timed pass over `items` (each of batch 1, with its label, in the set's order), the accuracy pass and
    the performance test of `settings.scenario` over the same items, by position, in a sample library holding
    `resident` of them at a time; LoadGen's logs under `out_dir` (`accuracy/`, `calibration/`, the scenario's own
    folder, and the server's `server-<rate>/` tries)."""
    latencies_ns, timed_answers, labels = timed_pass(answer, items, progress=progress)
    if len(labels) <= warmup:
        raise ValueError(f"Only {len(labels)} items: more than the {warmup} warm-up items are needed.")
    if items.count != len(labels):
        raise ValueError(f"The timed pass answered {len(labels)} items of the {items.count} asked.")
    library = SampleLibrary(items.count, items.read, resident=resident, batching=items.batching)
    accuracy_pass = loadgen_run(
        answer,
        library,
        LoadGenSettings.of("single-stream", items=len(labels), quick=True),
        out_dir / "accuracy",
        accuracy=True,
    )
    answers = [accuracy_pass.outputs[index] for index in range(len(labels))]
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
    means = [latency.mean_ms]
    while (
        settings.scenario == "single-stream" and not _within_queries(latency, performance) and len(means) < TIMED_PASSES
    ):
        latencies_ns, timed_answers, _ = timed_pass(answer, items)
        latency = LatencySummary.of(latencies_ns[warmup:])
        means.append(latency.mean_ms)
    return Measurement(
        timed_pass_means_ms=tuple(means),
        latency=latency,
        items=len(labels),
        warmup=warmup,
        score=items.score(answers, labels),
        timed_pass_score=items.score(timed_answers, labels),
        performance=performance,
        settings=settings,
        server_tries=tries,
    )


def _within_queries(latency: LatencySummary, performance: LoadGenOutcome) -> bool:
    """Whether the timed pass's mean lies within the fastest..slowest query of LoadGen's single-stream test."""
    test = performance.test
    if test.min_ms is None or test.max_ms is None:
        return True
    return test.min_ms <= latency.mean_ms <= test.max_ms


def timed_pass(
    answer: Callable[[Item], Any],
    items: EvaluationItems,
    *,
    progress: Callable[[int], None] | None = None,
) -> tuple[list[int], list[Output], list[Any]]:
    """Each item answered alone, in order, the call timed alone: (latencies in ns, each item's answer, the labels).
    Between two calls the loop only takes the next item (read and preprocessed by `items.stream`)."""
    latencies_ns: list[int] = []
    answers: list[Output] = []
    labels: list[Any] = []
    part = items.batching.part
    for item, label in items.stream():
        started = time.perf_counter_ns()
        output = answer(item)
        latencies_ns.append(time.perf_counter_ns() - started)
        answers.append(part(output, [item])[0])
        labels.append(label)
        if progress is not None:
            progress(len(answers))
    if not answers:
        raise ValueError("No item was answered.")
    return latencies_ns, answers, labels


def server_search(
    answer,
    items: SampleLibrary,
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
