"""bench/goals.py's rule without any real timing: the interval from order statistics, the stop rule on made-up
figures and a made-up clock, and the table."""

from __future__ import annotations

import json
from dataclasses import asdict
from itertools import count

import pytest

from bench.goals import (
    FAIL,
    NOT_JUDGED,
    PASS,
    Goal,
    Rule,
    Verdict,
    judge,
    judge_ratio,
    main,
    median_interval,
    report,
    table,
)

AT_MOST_TWO = Goal(bench="ingest", name="validate / read_csv", target=2.0, at_most=True)
AT_LEAST_095 = Goal(bench="train_overhead", name="digits job / bare", target=0.95, at_most=False)


HUNDRED_SECONDS = Rule(min_pairs=6, max_pairs=1000, max_seconds=100.0)


def judged(goal: Goal, figures, rule: Rule = HUNDRED_SECONDS) -> Verdict:
    """`judge` on `figures` in turn (cycled), one second of a fake clock per sample, a fixed load."""
    figures = list(figures)
    ticks = count()
    return judge(
        [goal],
        lambda index: (figures[index % len(figures)],),
        rule,
        clock=lambda: float(next(ticks)),
        load=lambda: 1.5,
    )[0]


def test_no_interval_below_six_values():
    # 5 values: even [min, max] covers only 1 - 2 / 32 = 0.9375 of the time
    assert median_interval([1, 2, 3, 4, 5]) is None


def test_six_values_give_their_extremes():
    # k = 1: 1 - 2 * P(B <= 0) = 1 - 2 / 64 = 0.969 >= 0.95; k = 2 would cover 1 - 2 * 7 / 64 = 0.78
    assert median_interval([5, 3, 1, 6, 2, 4]) == (1, 6)


def test_ten_values_give_the_second_and_ninth():
    # P(B <= 1) = 11 / 1024 = 0.0107 <= 0.025 < P(B <= 2) = 56 / 1024 = 0.0547: k = 2, [x_(2), x_(9)]
    assert median_interval([10, 1, 9, 2, 8, 3, 7, 4, 6, 5]) == (2, 9)


def test_twenty_values_give_the_sixth_and_fifteenth():
    # P(B <= 5) = 21700 / 2**20 = 0.0207 <= 0.025 < P(B <= 6) = 0.0577: k = 6, [x_(6), x_(15)]
    assert median_interval(list(range(1, 21))) == (6, 15)


def test_tight_figures_stop_at_the_minimum_as_pass():
    verdict = judged(AT_MOST_TWO, [1.50, 1.51, 1.49])
    assert (verdict.verdict, verdict.pairs) == (PASS, 6)
    assert (verdict.low, verdict.high) == (1.49, 1.51)


def test_the_minimum_is_kept_even_when_narrow_earlier():
    verdict = judged(AT_MOST_TWO, [1.5], Rule(min_pairs=9, max_pairs=60, max_seconds=100.0))
    assert verdict.pairs == 9


def test_tight_figures_on_the_wrong_side_fail():
    verdict = judged(AT_LEAST_095, [0.93, 0.932, 0.931])
    assert verdict.verdict == FAIL


def test_noisy_figures_hit_the_time_cap_not_judged():
    verdict = judged(AT_LEAST_095, [0.77, 1.19, 0.90, 1.05])
    assert verdict.verdict == NOT_JUDGED
    assert "time cap of 100 s" in verdict.why
    assert verdict.pairs == 100  # a sample of a second each: the 101st would end past 100 s


def test_noisy_figures_hit_the_pair_cap_not_judged():
    verdict = judged(AT_LEAST_095, [0.77, 1.19], Rule(min_pairs=6, max_pairs=20, max_seconds=1e9))
    assert (verdict.verdict, verdict.pairs) == (NOT_JUDGED, 20)
    assert "pair cap of 20" in verdict.why


def test_a_narrow_interval_across_the_goal_is_not_judged():
    verdict = judged(AT_MOST_TWO, [1.99, 2.01, 2.0])
    assert verdict.verdict == NOT_JUDGED
    assert "straddles" in verdict.why


def test_a_cap_before_six_samples_says_too_few():
    verdict = judged(AT_MOST_TWO, [1.5], Rule(min_pairs=6, max_pairs=3, max_seconds=100.0))
    assert verdict.verdict == NOT_JUDGED
    assert verdict.low is None
    assert "too few" in verdict.why


def test_goals_sharing_samples_stop_when_all_are_narrow():
    ticks = count()
    noisy_until_ten = [(1.0, 1.0 if index >= 10 or index % 2 else 1.5) for index in range(60)]
    verdicts = judge(
        [AT_MOST_TWO, Goal(bench="ingest", name="other", target=2.0, at_most=True)],
        lambda index: noisy_until_ten[index],
        Rule(min_pairs=6, max_pairs=60, max_seconds=1e9),
        clock=lambda: float(next(ticks)),
        load=lambda: 0.5,
    )
    assert [verdict.verdict for verdict in verdicts] == [PASS, PASS]
    assert verdicts[0].pairs == verdicts[1].pairs > 10


def test_judge_ratio_alternates_the_order_and_divides_ours_by_the_baseline():
    calls = []

    def side(name, figure):
        def run():
            calls.append(name)
            return figure

        return run

    pairs = []
    verdict = judge_ratio(
        AT_MOST_TWO, side("baseline", 2.0), side("ours", 3.0), Rule(min_pairs=6, max_seconds=1e9), pairs=pairs
    )
    assert verdict.median == 1.5
    assert calls[:4] == ["baseline", "ours", "ours", "baseline"]
    assert pairs[0] == (2.0, 3.0)


def _verdict(**changes) -> Verdict:
    fields = dict(
        bench="ingest",
        goal="validate / read_csv",
        bound="<= 2.000x",
        unit="x",
        median=1.6,
        low=1.58,
        high=1.62,
        pairs=40,
        seconds=12.0,
        verdict=PASS,
        why="the interval lies on the goal's side",
        load_start=1.2,
        load_end=1.4,
        cpus=2,
    )
    return Verdict(**{**fields, **changes})


def test_the_table_has_a_row_per_goal_and_a_summary():
    lines = [json.dumps(asdict(_verdict())), json.dumps(asdict(_verdict(bench="pages", verdict=NOT_JUDGED)))]
    rows = table([*lines, json.dumps({"bench": "echo", "crashed": True})]).splitlines()
    assert rows[0].split() == [
        "bench",
        "goal",
        "median",
        "95",
        "%",
        "interval",
        "pairs",
        "load",
        "(1",
        "min)",
        "verdict",
    ]
    assert (
        rows[2].split()
        == "ingest validate / read_csv <= 2.000x 1.600x 1.580x to 1.620x 40 1.20 to 1.40 / 2 CPUs PASS".split()
    )
    assert rows[3].endswith("NOT JUDGED")
    assert rows[-1] == "1 PASS, 0 FAIL, 1 NOT JUDGED; crashed before judging all its goals: echo"


def test_a_goal_without_an_interval_shows_none():
    row = table([json.dumps(asdict(_verdict(low=None, high=None, pairs=3, verdict=NOT_JUDGED)))]).splitlines()[2]
    assert " none " in row


def test_report_appends_json_lines_that_main_prints(tmp_path, monkeypatch, capsys):
    path = tmp_path / "verdicts.jsonl"
    monkeypatch.setenv("BENCH_VERDICTS", str(path))
    report([_verdict()])
    report([_verdict(bench="cli_startup", verdict=FAIL)])
    assert [json.loads(line)["bench"] for line in path.read_text().splitlines()] == ["ingest", "cli_startup"]
    main(["--crashed", "pages"])
    capsys.readouterr()
    assert main([]) == 0
    printed = capsys.readouterr().out
    assert "1 PASS, 1 FAIL, 0 NOT JUDGED; crashed before judging all its goals: pages" in printed


@pytest.mark.parametrize("median, expected", [(1.5, PASS), (2.5, FAIL)])
def test_the_printed_line_names_interval_pairs_and_load(median, expected):
    verdict = judged(AT_MOST_TWO, [median])
    line = verdict.line()
    assert f"95 % interval {median:.3f}x to {median:.3f}x, 6 pairs" in line
    assert "load 1.50 to 1.50 on" in line
    assert f": {expected} (the interval lies on " in line
