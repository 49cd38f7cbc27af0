"""bench/http_bench.py's own logic, without a stack: reading wrk's result, the four goals' verdicts, the reads."""

from __future__ import annotations

import re

import pytest

from bench.http_bench import READS, Board, deep_page
from bench.http_site.goals import (
    LoadedResult,
    LockSamples,
    ReadResult,
    Run,
    SizeResult,
    loaded_misses,
    lock_misses,
    read_misses,
)
from bench.http_site.wrk import WrkError, WrkResult, parse, requests_per_second, script

WRK_OUTPUT = """Running 2s test @ http://127.0.0.1:8391/
  2 threads and 16 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency    15.91ms    4.31ms  48.29ms   77.60%
  2010 requests in 2.01s, 1.01MB read
Requests/sec:    999.79
Transfer/sec:    515.61KB
WRK_JSON {"requests": 2010, "duration_us": 2010421, "bytes": 1061280, "p50_us": 15215, "p99_us": 31002, \
"status_errors": 0, "socket_errors": 0}
"""


def _wrk(requests: int = 1000, seconds: float = 1.0, p99_ms: float = 20.0, errors: int = 0) -> WrkResult:
    return WrkResult(requests, int(seconds * 1e6), requests * 1000, 10_000, int(p99_ms * 1000), errors, 0)


def _read(*, trivial: int = 900, page: int = 600, cold_ms: float = 50, size: int = 30_000, streamed=False, status=200):
    return ReadResult(
        "/tasks/cifar10/",
        streamed,
        status,
        size,
        trivial_runs=[_wrk(trivial)],
        page_runs=[_wrk(page)],
        cold_ms=[cold_ms] * 5,
    )


def test_reads_the_result_line_among_wrks_own():
    result = parse(WRK_OUTPUT)

    assert result.requests == 2010
    assert round(result.requests_per_second) == 1000
    assert (result.p50_ms, result.p99_ms) == (15.215, 31.002)
    assert result.errors == 0


def test_output_without_a_result_line_is_an_error():
    with pytest.raises(WrkError):
        parse("unable to connect to 127.0.0.1:8391 Connection refused\n")


def test_requests_per_second_of_several_runs_pools_requests_and_time():
    assert requests_per_second([_wrk(1000, 1.0), _wrk(3000, 2.0)]) == pytest.approx(4000 / 3)


def test_the_script_sends_every_path_in_turn():
    text = script(["/", "/tasks/cifar10/"])

    assert '"/", "/tasks/cifar10/"' in text
    assert "request = function()" in text
    assert "request = function()" not in script(["/"])


def test_a_cached_read_within_three_times_the_trivial_view_passes():
    assert read_misses(_read(trivial=900, page=300)) == []


def test_a_cached_read_past_three_times_the_trivial_view_misses_goal_1():
    assert read_misses(_read(trivial=900, page=299)) == ["ratio"]


def test_a_cold_render_of_300_ms_misses_goal_2():
    assert read_misses(_read(cold_ms=300)) == ["cold"]


def test_a_response_of_a_megabyte_misses_goal_2():
    assert read_misses(_read(size=1_000_000)) == ["size"]


def test_a_download_is_judged_on_its_first_byte_alone():
    slow_and_large = _read(trivial=900, page=10, size=50_000_000, cold_ms=120, streamed=True)

    assert read_misses(slow_and_large) == []
    assert read_misses(_read(cold_ms=400, streamed=True)) == ["first byte"]


def test_errors_under_load_miss_the_goal():
    result = _read()
    result.page_runs = [_wrk(600, errors=3)]

    assert read_misses(result) == ["errors under load"]


def test_a_read_that_answers_400_is_reported_not_measured():
    assert read_misses(ReadResult("/api/v1/leaderboards/cifar10/training-time/?offset=9950", False, 400, 120)) == [
        "answered 400"
    ]


def test_p99_doubling_while_submitting_misses_goal_4():
    assert (
        loaded_misses(
            LoadedResult("/", [_wrk(p99_ms=20)] * 3, [_wrk(p99_ms=39.9), _wrk(p99_ms=90), _wrk(p99_ms=30)], accepted=4)
        )
        == []
    )
    assert loaded_misses(
        LoadedResult("/", [_wrk(p99_ms=20)] * 3, [_wrk(p99_ms=40), _wrk(p99_ms=41), _wrk(p99_ms=10)], accepted=4)
    ) == ["p99"]


def test_a_loaded_run_without_a_submission_landing_proves_nothing():
    assert loaded_misses(LoadedResult("/", [_wrk()], [_wrk()], accepted=0)) == ["no submission landed"]


def test_one_sample_seeing_a_lock_waited_on_misses_goal_3():
    assert lock_misses(LockSamples(taken=5000, waiting=0)) == []
    assert lock_misses(LockSamples(taken=5000, waiting=1)) == ["1 of 5000 lock samples saw a lock waited on"]
    assert lock_misses(LockSamples()) == ["the lock table was never sampled"]


def test_goals_1_and_2_are_judged_at_the_largest_size_only():
    small = SizeResult(1_000, 1.0, 0.1, reads=[_read(page=100)])
    large = SizeResult(100_000, 90.0, 9.0, reads=[_read()])

    assert Run(sizes=[small, large]).misses() == []
    assert Run(sizes=[large, small]).misses() == ["/tasks/cifar10/ (ratio)"]


def test_every_read_resolves_to_a_path_without_placeholders():
    board = Board(entry_id=7, other_entry_id=8, deep_page=200, deep_offset=9950)

    paths = [read.resolve(board) for read in READS]

    assert all(path.startswith("/") and not re.search(r"[{}]", path) for path in paths)
    assert "/compare/?ids=7,8" in paths
    assert "/api/v1/leaderboards/cifar10/training-time/?offset=9950" in paths
    assert len(set(paths)) == len(paths)


def test_only_downloads_are_streamed():
    assert [read.path for read in READS if read.streamed] == ["/tasks/cifar10/export.csv"]


def test_the_deep_page_is_the_last_one_on_a_small_board():
    assert deep_page(600) == 12
    assert deep_page(601) == 13
    assert deep_page(60_000) == 200
    assert deep_page(0) == 1
