"""The GPU suite's workloads on tiny data in the real formats: one short trial of each through the runner on the
CPU, its log written and read back; the targets are the DAWNBench thresholds; missing data is refused by name."""

from __future__ import annotations

from io import StringIO
from types import SimpleNamespace

import pytest
from django.core.management import CommandError, call_command

from benchmarks.algorithms.baselines import baseline
from benchmarks.algorithms.gpu_workloads import GPU_WORKLOADS
from benchmarks.algorithms.runner import run_trial, workload_target
from benchmarks.algorithms.workloads import build_workload, workload_class
from benchmarks.workloads.base import DatasetMissing
from dawnboard.algorithms.suites import SUITES
from dawnboard.algorithms.trial_log import read_trial_log
from dawnboard.rules import current_rules
from tests.benchmarks.tiny_datasets import TINY_DATASETS

RECIPES = {"cifar10_resnet9": ("cifar10", "resnet9"), "imagenet_resnet50": ("imagenet", "resnet50"),
           "squad_bidaf": ("squad", "bidaf")}  # fmt: skip


def batches_of_four(algorithm):
    """The baseline with the tiny data's batch size."""
    functions = {name: getattr(algorithm, name) for name in dir(algorithm) if not name.startswith("_")}
    return SimpleNamespace(**{**functions, "get_batch_size": lambda workload_name: 4})


@pytest.mark.parametrize("name", sorted(GPU_WORKLOADS))
def test_a_short_trial_of_each_runs_on_the_cpu_and_writes_its_log(name, tmp_path):
    write, overrides = TINY_DATASETS[RECIPES[name]]
    workload = GPU_WORKLOADS[name](write(tmp_path / "data"), overrides)
    # A budget of a few steps: the trial ends on it, with one evaluation.
    trial = run_trial(workload, batches_of_four(baseline("adamw")), None, seed=0,
                      budget_factor=0.3 / workload.max_allowed_runtime_sec)  # fmt: skip

    (tmp_path / "eval_measurements.csv").write_bytes(trial.log)
    log = read_trial_log((tmp_path / "eval_measurements.csv").read_bytes())
    metric = log.metric(workload_target(workload).metric)
    assert trial.steps >= 1 and log.steps[-1] == trial.steps and 0.0 <= metric[-1] <= 1.0
    assert trial.stopped in {"budget", "target"}


def test_the_targets_are_the_dawnbench_thresholds_in_the_gpu_suite():
    suite = SUITES["gpu"]
    assert suite.targets() == {name: workload_target(workload_class(name)) for name in GPU_WORKLOADS}
    assert [suite.workload(name).target.value for name in GPU_WORKLOADS] == [
        float(current_rules(slug).threshold) / current_rules(slug).upper_bound for slug, _ in RECIPES.values()
    ]


@pytest.mark.parametrize("name", sorted(GPU_WORKLOADS))
def test_a_missing_data_directory_is_refused_by_name(name, tmp_path):
    with pytest.raises(DatasetMissing):
        build_workload(name, str(tmp_path / "nothing here"))


def test_run_algorithm_passes_its_data_dir_and_refuses_missing_data_with_a_code(tmp_path):
    with pytest.raises(CommandError, match=r"^dataset_missing: .*CIFAR-10") as refused:
        call_command(
            "run_algorithm", "adamw", "--suite", "gpu", "--workloads", "cifar10_resnet9", "--data-dir",
            str(tmp_path), "--trials", "1", "--studies", "1", "--out", str(tmp_path / "bundle"), "--json",
            stdout=StringIO(), stderr=StringIO(),
        )  # fmt: skip
    assert str(tmp_path) in str(refused.value)  # the directory given, not none
