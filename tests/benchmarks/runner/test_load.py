"""The machine's load over a run: other processes' CPU time on our cores, and the busy rule."""

from __future__ import annotations

import json

import pytest

from benchmarks.runner.load import (
    BUSY_SHARE_OF_ONE_CPU,
    LoadSnapshot,
    MachineLoad,
    cpus_busy_seconds,
    load_snapshot,
    machine_load,
)

PROC_STAT = """cpu  300 0 60 1000 10 0 5 5 0 0
cpu0 100 0 20 500 5 0 2 3 7 0
cpu1 200 0 40 500 5 0 3 2 0 0
intr 12345 0 0
ctxt 999
"""


def snapshot(*, at: float, busy: float | None, own: float, load: float = 0.5) -> LoadSnapshot:
    return LoadSnapshot(wall_seconds=at, load_average=(load, load, load), cpus_busy_seconds=busy, own_cpu_seconds=own)


def test_busy_seconds_sum_user_nice_system_irq_softirq_and_steal_of_our_cpus_only():
    # cpu1: 200 user + 40 system + 3 softirq + 2 steal; idle, iowait and guest (inside user) are left out.
    assert cpus_busy_seconds(PROC_STAT, {1}, ticks_per_second=100) == pytest.approx(2.45)
    assert cpus_busy_seconds(PROC_STAT, {0, 1}, ticks_per_second=100) == pytest.approx(1.25 + 2.45)


def test_a_proc_stat_without_our_cpus_is_refused():
    with pytest.raises(ValueError, match="none of this process's CPUs"):
        cpus_busy_seconds(PROC_STAT, {7}, ticks_per_second=100)


def test_other_work_is_the_cores_busy_time_less_our_own():
    load = machine_load(snapshot(at=10.0, busy=100.0, own=5.0), snapshot(at=12.0, busy=104.5, own=9.0), cpu_count=2)

    assert load.wall_seconds == pytest.approx(2.0)
    assert load.own_cpu_seconds == pytest.approx(4.0)
    assert load.other_cpu_seconds == pytest.approx(0.5)


def test_other_work_is_never_negative_when_our_counter_runs_a_tick_ahead():
    load = machine_load(snapshot(at=0.0, busy=10.0, own=1.0), snapshot(at=1.0, busy=11.0, own=2.01), cpu_count=2)

    assert load.other_cpu_seconds == 0.0


@pytest.mark.parametrize(("other_cpu_seconds", "busy"), [(0.0, False), (0.5, False), (0.51, True), (3.0, True)])
def test_a_run_is_busy_when_others_took_more_than_a_quarter_of_one_cpu_over_its_wall_time(other_cpu_seconds, busy):
    load = MachineLoad(
        cpu_count=2,
        load_average_start=(0.1, 0.1, 0.1),
        load_average_end=(0.1, 0.1, 0.1),
        wall_seconds=2.0,
        own_cpu_seconds=3.9,
        other_cpu_seconds=other_cpu_seconds,
    )

    assert BUSY_SHARE_OF_ONE_CPU * load.wall_seconds == 0.5
    assert load.busy is busy


def test_without_proc_stat_the_load_average_at_the_start_decides():
    def load_from(start_load: float) -> MachineLoad:
        return machine_load(
            snapshot(at=0.0, busy=None, own=0.0, load=start_load), snapshot(at=1.0, busy=None, own=1.0), cpu_count=2
        )

    assert load_from(1.9).other_cpu_seconds is None
    assert not load_from(1.9).busy
    assert load_from(2.5).busy
    assert load_from(2.5).as_dict()["measured_from"] == "load_average"


def test_the_record_keeps_the_load_averages_cpus_and_verdict_as_plain_json():
    load = machine_load(
        snapshot(at=0.0, busy=0.0, own=0.0, load=3.1), snapshot(at=1.0, busy=2.0, own=1.0, load=3.3), cpu_count=2
    )

    document = json.loads(json.dumps(load.as_dict()))

    assert document["cpu_count"] == 2
    assert document["load_average_start"] == [3.1, 3.1, 3.1] and document["load_average_end"] == [3.3, 3.3, 3.3]
    assert document["other_cpu_seconds"] == pytest.approx(1.0)
    assert document["busy"] is True and document["measured_from"] == "proc_stat"
    assert load.load_average_peak == 3.3


def test_a_snapshot_reads_this_machine():
    taken = load_snapshot()

    assert len(taken.load_average) == 3
    assert taken.own_cpu_seconds > 0
    if taken.cpus_busy_seconds is not None:  # Linux
        assert taken.cpus_busy_seconds > 0


def test_a_missing_proc_stat_leaves_the_busy_time_unknown(tmp_path):
    assert load_snapshot(tmp_path / "no-such-file").cpus_busy_seconds is None
