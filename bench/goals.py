"""One rule for judging a bench's goal on a shared, noisy machine, and the table of every goal `make bench` prints.

A goal is a bound on a figure: a ratio of ours to a baseline measured in the same run (the pair's order
alternating, `bench.pairs`), or an absolute measurement (a time in ms, a size in MB). The figure is sampled again
and again, and after each sample the median of the samples gets a distribution-free 95 % confidence interval from
order statistics: for n samples sorted, [x_(k), x_(n-k+1)] with the largest k whose coverage
1 - 2 P(Binomial(n, 1/2) <= k - 1) is still at least 95 % (it holds for any continuous distribution of the
figure; n >= 6 is the least for which one exists). Sampling stops as soon as, after at least `min_pairs`
samples, the interval lies within +-2 % of the median (looked at after every sample up to 100, then every 2 %
more), or at a cap: `max_seconds` (a sample is not begun when the samples so far say it would end past the
cap) or `max_pairs`.

The verdict: PASS when the whole interval is on the goal's side, FAIL when it is wholly on the wrong side, and
NOT JUDGED when it straddles the goal, or when a cap came before the interval narrowed to +-2 % (then the
verdict says where the wide interval lay: a finding to run again with a longer cap, not a judgement).

Each verdict is printed, and appended as one JSON line to the file `$BENCH_VERDICTS` names (when set);
`python -m bench.goals [PATH]` prints them all as one table (`make bench` ends with it).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from scipy.stats import binom

from bench.pairs import one_pair

PASS, FAIL, NOT_JUDGED = "PASS", "FAIL", "NOT JUDGED"
CONFIDENCE = 0.95
RELATIVE_HALF_WIDTH = 0.02
FEWEST_FOR_AN_INTERVAL = 6  # 1 - 2 / 2**6 = 0.969; with 5 samples the widest interval covers only 0.9375
DEFAULT_MAX_SECONDS = 120.0
DEFAULT_MAX_PAIRS = 10_000
VERDICTS_VARIABLE = "BENCH_VERDICTS"


@dataclass(frozen=True)
class Goal:
    """A bound on a figure: `at_most` (lower is better: a slowdown, a time, a size) or at least (a throughput)."""

    bench: str
    name: str
    target: float
    at_most: bool
    unit: str = "x"

    @property
    def bound(self) -> str:
        return f"{'<=' if self.at_most else '>='} {format_figure(self.target, self.unit)}"


@dataclass(frozen=True)
class Rule:
    min_pairs: int = FEWEST_FOR_AN_INTERVAL
    max_pairs: int = DEFAULT_MAX_PAIRS
    max_seconds: float = DEFAULT_MAX_SECONDS
    relative_half_width: float = RELATIVE_HALF_WIDTH
    confidence: float = CONFIDENCE


@dataclass(frozen=True)
class Verdict:
    bench: str
    goal: str
    bound: str
    unit: str
    median: float
    low: float | None  # the 95 % interval of the median; None with fewer than 6 samples
    high: float | None
    pairs: int
    seconds: float
    verdict: str
    why: str
    load_start: float  # 1-minute load average
    load_end: float
    cpus: int

    def line(self) -> str:
        """The verdict as a bench prints it."""
        return (
            f"  goal  {self.goal} {self.bound}: median {format_figure(self.median, self.unit)}, "
            f"95 % interval {self.interval}, {self.pairs} pairs in {self.seconds:.0f} s, load {self.load_start:.2f} "
            f"to {self.load_end:.2f} on {self.cpus} CPUs: {self.verdict} ({self.why})"
        )

    @property
    def interval(self) -> str:
        if self.low is None or self.high is None:
            return "none"
        return f"{format_figure(self.low, self.unit)} to {format_figure(self.high, self.unit)}"


def format_figure(value: float, unit: str) -> str:
    if unit == "x":
        return f"{value:.3f}x"
    return f"{value:,.3g} {unit}" if abs(value) < 100 else f"{value:,.0f} {unit}"


def median_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> tuple[float, float] | None:
    """The distribution-free `confidence` interval of the median of `values` from their order statistics, or None
    where there are too few values for one (fewer than 6 at 95 %)."""
    n = len(values)
    # k - 1 = the largest j with P(B <= j) <= (1 - confidence) / 2, B ~ Binomial(n, 1/2); ppf gives the least j
    # whose cdf reaches the tail, one too far unless the cdf lands on it exactly.
    tail = (1 - confidence) / 2
    j = int(binom.ppf(tail, n, 0.5))
    if binom.cdf(j, n, 0.5) > tail + 1e-12:
        j -= 1
    if j < 0:
        return None
    ordered = sorted(values)
    return ordered[j], ordered[n - 1 - j]


def relative_half_width(median: float, interval: tuple[float, float]) -> float:
    """The interval's larger side over the median: < 0.02 means within +-2 % of it."""
    low, high = interval
    return max(median - low, high - median) / abs(median) if median else math.inf


def decide(goal: Goal, figures: Sequence[float], rule: Rule, *, capped_by: str | None) -> tuple[str, str]:
    """(verdict, why) for `figures`; `capped_by` names the cap that stopped the sampling, None when it narrowed."""
    interval = median_interval(figures, rule.confidence)
    if interval is None:
        return NOT_JUDGED, f"too few pairs for a 95 % interval: {len(figures)} of at least 6 ({capped_by or 'stopped'})"
    low, high = interval
    on_goal_side = high <= goal.target if goal.at_most else low >= goal.target
    on_wrong_side = low > goal.target if goal.at_most else high < goal.target
    side = "the goal's side" if on_goal_side else "the wrong side" if on_wrong_side else "both sides"
    if capped_by is not None:
        width = f"+-{rule.relative_half_width * 100:g} %"
        return NOT_JUDGED, f"did not narrow to {width} within the {capped_by}; lies on {side}"
    if on_goal_side:
        return PASS, "the interval lies on the goal's side"
    if on_wrong_side:
        return FAIL, "the interval lies on the wrong side"
    return NOT_JUDGED, "the interval straddles the goal"


def judge(
    goals: Sequence[Goal],
    sample: Callable[[int], Sequence[float]],
    rule: Rule = Rule(),
    *,
    clock: Callable[[], float] = time.monotonic,
    load: Callable[[], float] = lambda: os.getloadavg()[0],
) -> list[Verdict]:
    """Call `sample(index)` (one figure for each of `goals`, e.g. their ratios of one alternating pair) until every
    goal's interval is within +-2 % of its median, after at least `rule.min_pairs` samples, or until a cap."""
    load_start, started = load(), clock()
    figures: list[list[float]] = [[] for _ in goals]
    capped_by = None
    while True:
        for series, figure in zip(figures, sample(len(figures[0])), strict=True):
            series.append(figure)
        count, elapsed = len(figures[0]), clock() - started
        # Past 100 samples the interval is looked at every 2 % more of them: sorting tens of thousands of sub-ms
        # pairs after each would cost more than the pairs.
        looked_at = count < 100 or count % (count // 50) == 0
        if count >= rule.min_pairs and looked_at and all(_narrow(series, rule) for series in figures):
            break
        if count >= rule.max_pairs:
            capped_by = f"pair cap of {rule.max_pairs}"
            break
        if elapsed + elapsed / count > rule.max_seconds:  # the next sample would end past the cap
            capped_by = f"time cap of {rule.max_seconds:.0f} s"
            break
    elapsed, load_end, cpus = clock() - started, load(), available_cpus()
    verdicts = []
    for goal, series in zip(goals, figures, strict=True):
        interval = median_interval(series, rule.confidence)
        verdict, why = decide(goal, series, rule, capped_by=None if _narrow(series, rule) else capped_by or "cap")
        verdicts.append(
            Verdict(
                bench=goal.bench,
                goal=goal.name,
                bound=goal.bound,
                unit=goal.unit,
                median=_median(series),
                low=interval[0] if interval else None,
                high=interval[1] if interval else None,
                pairs=len(series),
                seconds=elapsed,
                verdict=verdict,
                why=why,
                load_start=load_start,
                load_end=load_end,
                cpus=cpus,
            )
        )
    return verdicts


def judge_ratio(
    goal: Goal,
    baseline: Callable[[], float],
    ours: Callable[[], float],
    rule: Rule = Rule(),
    *,
    pairs: list[tuple[float, float]] | None = None,
) -> Verdict:
    """`judge` on ours / baseline of alternating pairs (`bench.pairs.one_pair`); each (baseline, ours) figure pair
    is appended to `pairs` where given, for the bench's own lines."""

    def sample(index: int) -> tuple[float]:
        baseline_figure, our_figure = one_pair(baseline, ours, index)
        if pairs is not None:
            pairs.append((baseline_figure, our_figure))
        return (our_figure / baseline_figure,)

    return judge([goal], sample, rule)[0]


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _narrow(series: Sequence[float], rule: Rule) -> bool:
    interval = median_interval(series, rule.confidence)
    return interval is not None and relative_half_width(_median(series), interval) < rule.relative_half_width


def available_cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def add_rule_arguments(parser: argparse.ArgumentParser, *, max_seconds: float = DEFAULT_MAX_SECONDS) -> None:
    """--max-seconds and --max-pairs, the caps of each goal's sampling (the minimum is each bench's own flag)."""
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=max_seconds,
        help=f"time cap of each goal's pairing, after which it is NOT JUDGED (default {max_seconds:.0f})",
    )
    parser.add_argument(
        "--max-pairs", type=int, default=DEFAULT_MAX_PAIRS, help=f"pair cap of each goal (default {DEFAULT_MAX_PAIRS})"
    )


def rule_from(arguments: argparse.Namespace, *, min_pairs: int) -> Rule:
    return Rule(min_pairs=min_pairs, max_pairs=arguments.max_pairs, max_seconds=arguments.max_seconds)


def report(verdicts: Sequence[Verdict], path: str | None = None) -> None:
    """Print each verdict and append it to the JSON-lines file `path` (default: `$BENCH_VERDICTS`, if set)."""
    for verdict in verdicts:
        print(verdict.line(), flush=True)
    path = path or os.environ.get(VERDICTS_VARIABLE)
    if path:
        with open(path, "a", encoding="utf-8") as verdicts_file:
            for verdict in verdicts:
                verdicts_file.write(json.dumps(asdict(verdict)) + "\n")


def record_crash(bench: str, path: str) -> None:
    """Note in the verdicts file that `bench` crashed, so the table says so instead of leaving its goals out."""
    with open(path, "a", encoding="utf-8") as verdicts_file:
        verdicts_file.write(json.dumps({"bench": bench, "crashed": True}) + "\n")


def table(lines: Sequence[str]) -> str:
    """The table of every verdict in `lines` (the JSON lines of a verdicts file), in the order recorded."""
    rows = [("bench", "goal", "median", "95 % interval", "pairs", "load (1 min)", "verdict")]
    counts = {PASS: 0, FAIL: 0, NOT_JUDGED: 0}
    crashed = []
    for line in lines:
        if not line.strip():
            continue
        record = json.loads(line)
        if record.get("crashed"):
            crashed.append(record["bench"])
            continue
        verdict = Verdict(**record)
        counts[verdict.verdict] += 1
        rows.append(
            (
                verdict.bench,
                f"{verdict.goal} {verdict.bound}",
                format_figure(verdict.median, verdict.unit),
                verdict.interval,
                str(verdict.pairs),
                f"{verdict.load_start:.2f} to {verdict.load_end:.2f} / {verdict.cpus} CPUs",
                verdict.verdict,
            )
        )
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    text = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows]
    text.insert(1, "  ".join("-" * width for width in widths))
    summary = f"{counts[PASS]} PASS, {counts[FAIL]} FAIL, {counts[NOT_JUDGED]} NOT JUDGED"
    if crashed:
        summary += f"; crashed before judging all its goals: {', '.join(crashed)}"
    return "\n".join([*text, summary])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Print the table of every goal's verdict in a verdicts file.")
    parser.add_argument("path", nargs="?", default=os.environ.get(VERDICTS_VARIABLE), help="default $BENCH_VERDICTS")
    parser.add_argument("--crashed", metavar="BENCH", help="only record that BENCH crashed")
    arguments = parser.parse_args(argv)
    if not arguments.path:
        parser.error(f"name the verdicts file, or set {VERDICTS_VARIABLE}")
    if arguments.crashed:
        record_crash(arguments.crashed, arguments.path)
        return 0
    path = Path(arguments.path)
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    print(f"Every goal of the benches (the 95 % interval of the median; {VERDICTS_VARIABLE}={path}):")
    print(table(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
