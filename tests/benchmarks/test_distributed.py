"""Data parallelism through torchrun: two CPU processes (gloo) train digits as one job."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_two_processes_share_each_epoch_and_only_the_first_writes_and_reports(tmp_path):
    # faulthandler: a process that aborts prints where (its Python stacks) above torchrun's summary.
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "PYTHONPATH": str(ROOT),
        "PYTHONFAULTHANDLER": "1",
    }
    command = [
        sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
        str(ROOT / "manage.py"), "run_reference", "digits", "--max-epochs", "2", "--json", "--out", str(tmp_path),
    ]  # fmt: skip

    finished = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)

    assert finished.returncode == 0, finished.stderr[-8000:]
    document = json.loads(finished.stdout)  # one document: the second process printed nothing
    (run,) = document["runs"]
    record = run["record"]
    assert record["processes"]["world_size"] == 2
    assert record["machine"]["threads"] == max(1, (os.cpu_count() or 2) // 2)
    # Each process read half of every epoch (673 of the 1,347 examples): together all but one, once per epoch,
    # in steps of half the recipe's batch of 64 each, so the recipe's batch and schedule hold as written.
    assert record["fresh_examples"] == len(record["curve"]) * 1346
    assert record["steps_per_epoch"] == 673 // 32
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "digits_cnn_seed0.json", "digits_cnn_seed0.mllog", "digits_cnn_seed0.pt", "digits_cnn_seed0.tsv", "run.json",
    ]  # fmt: skip


EXIT_SCRIPT = """
import atexit
from benchmarks.runner.distributed import Processes, exit_after_distributed_run
atexit.register(lambda: print(" finalized"))
print("written", end="")
exit_after_distributed_run(Processes(rank=1, local_rank=1, world_size={world_size}, local_world_size={world_size}))
print(" returned", end="")
"""


def test_a_process_of_a_distributed_run_ends_with_its_output_flushed_and_no_finalization():
    def run(world_size: int) -> subprocess.CompletedProcess:
        code = EXIT_SCRIPT.format(world_size=world_size)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        return subprocess.run(
            [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60
        )

    distributed, alone = run(2), run(1)

    assert (distributed.returncode, distributed.stdout) == (0, "written")  # buffered output kept; no atexit, no return
    assert (alone.returncode, alone.stdout.strip()) == (0, "written returned finalized")
