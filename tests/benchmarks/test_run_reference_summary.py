"""`run_reference`'s summary for people: a run measured while other work held the cores says so."""

from __future__ import annotations

from io import StringIO

from benchmarks.management.commands.run_reference import Command


def summary_of(*runs: dict) -> str:
    command = Command(stdout=StringIO())
    unreached = {"median": None, "coefficient_of_variation": None, "min": None, "max": None}
    summary = {"runs": len(runs), "reached": 0, "time_to_accuracy_seconds": unreached, "epochs_to_accuracy": unreached}
    command._summarise({"runs": list(runs), "summary": summary})
    return command.stdout._out.getvalue()


def run(seed: int, *, busy: bool) -> dict:
    return {
        "seed": seed,
        "reached": False,
        "results": None,
        "errors": [],
        "paths": {"entry": f"out/seed{seed}.json", "record": f"out/seed{seed}/run.json"},
        "busy": busy,
        "machine_load": {
            "cpu_count": 2,
            "load_average_start": [3.1, 2.0, 1.0],
            "load_average_end": [2.4, 2.0, 1.0],
            "other_cpu_seconds": 0.84,
            "busy": busy,
        },
    }


def test_a_busy_run_is_marked_as_not_comparable_with_its_load():
    out = summary_of(run(0, busy=True), run(1, busy=False))

    lines = out.splitlines()
    warning = "  measured while other work held the cores (load 3.1 on 2 CPUs, others took 0.84 CPU-seconds): "
    assert lines[2] == warning + "the time is not comparable"
    assert out.count("measured while other work held the cores") == 1  # the idle run has no such line
