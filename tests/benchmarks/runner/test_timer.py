"""The training clock's MLPerf phases: run_start's wall time, and log times that stand still in evaluation."""

from __future__ import annotations

import torch

from benchmarks.runner.timer import Phases, TrainingClock


def test_the_clock_keeps_the_wall_time_of_its_first_start_as_run_start():
    walls = iter([1_000.0, 9_999.0])
    clock = TrainingClock(torch.device("cpu"), now=iter([0.0, 1.0, 2.0]).__next__, wall_ms=lambda: next(walls))

    clock.start()
    clock.pause()
    clock.resume()

    assert clock.started_unix_ms == 1_000.0


def test_log_times_are_run_start_plus_training_seconds_so_evaluation_adds_nothing():
    phases = Phases(init_start_unix_ms=900.0, init_stop_unix_ms=990.0, run_start_unix_ms=1_000.4)

    assert phases.log_time_ms(0.0) == 1_000
    assert phases.log_time_ms(1.2344) == 1_000 + 1_234
    assert phases.log_time_ms(1.2346) - phases.log_time_ms(0.0) == 1_235  # within half a millisecond
    assert phases.init_seconds == 0.09
