"""`run_algorithm`: a baseline and a user's module over the suite under both rulesets, the bundle in AlgoPerf's
layout whose logs give back every time in the document, and bad arguments refused with a code."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from benchmarks.algorithms.baselines import HERE
from benchmarks.algorithms.runner import TrialResult
from benchmarks.algorithms.suite import Tuning, suite_document
from dawnboard.algorithms.scoring import Target, study_time, time_to_target, workload_time
from dawnboard.algorithms.trial_log import read_trial_log
from tests.benchmarks.algorithms.test_runner import SUBMISSION

KEYS = {
    "suite", "ruleset", "algorithm", "reference", "score", "geomean_speedup_vs_reference", "workloads", "bundle_path",
    "submission",
}  # fmt: skip


def run(*args: str) -> dict:
    out = StringIO()
    call_command("run_algorithm", *args, "--json", stdout=out, stderr=StringIO())
    return json.loads(out.getvalue())


def test_a_baseline_under_external_tuning_writes_a_bundle_whose_logs_give_back_every_time(tmp_path):
    document = run("sgd_nesterov", "--workloads", "breast_cancer_mlp", "--trials", "2", "--studies", "2",
                   "--out", str(tmp_path / "bundle"))  # fmt: skip

    assert set(document) == KEYS and document["submission"] is None
    assert (document["algorithm"], document["reference"], document["ruleset"]) == ("sgd_nesterov", "adamw", "external")
    assert json.loads((tmp_path / "bundle" / "results.json").read_text()) == document
    workload = document["workloads"]["breast_cancer_mlp"]
    assert [len(study["trials"]) for study in workload["studies"]] == [2, 2]
    assert workload["studies"][0]["trials"][0]["hyperparameters"]["learning_rate"] > 0
    target = Target("validation/accuracy", workload["target"])
    studies = []
    for study in range(2):
        times = []
        for trial in range(2):
            folder = tmp_path / "bundle" / "sgd_nesterov" / f"study_{study}" / "breast_cancer_mlp" / f"trial_{trial}"
            times.append(time_to_target(read_trial_log((folder / "eval_measurements.csv").read_bytes()), target))
            assert (
                json.loads((folder / "hyperparameters.json").read_text())
                == (workload["studies"][study]["trials"][trial]["hyperparameters"])
            )
        assert [t["time_to_target_s"] for t in workload["studies"][study]["trials"]] == times
        studies.append(study_time(times))
    assert workload["time_to_target_s"] == workload_time(studies)
    assert (tmp_path / "bundle" / "reference-adamw" / "study_1" / "breast_cancer_mlp" / "trial_1").is_dir()
    assert 0.0 <= document["score"] <= 1.0


def test_the_reference_itself_scores_one_and_self_tuning_runs_one_trial_a_study_without_hyperparameters(tmp_path):
    document = run("adamw", "--workloads", "breast_cancer_mlp", "--ruleset", "self", "--studies", "2",
                   "--out", str(tmp_path / "bundle"))  # fmt: skip

    assert document["score"] == pytest.approx(1.0) and document["geomean_speedup_vs_reference"] == pytest.approx(1.0)
    studies = document["workloads"]["breast_cancer_mlp"]["studies"]
    assert [[trial["hyperparameters"] for trial in study["trials"]] for study in studies] == [[None], [None]]
    assert not (tmp_path / "bundle" / "reference-adamw").exists()  # the algorithm is the reference: run once


def test_a_user_s_module_runs_with_a_search_space_of_fixed_points(tmp_path):
    space = tmp_path / "space.json"
    point = {"learning_rate": 1e-3, "one_minus_beta1": 0.1, "beta2": 0.999, "warmup_factor": 0.05, "weight_decay": 0.1}
    space.write_text(json.dumps([point]))

    document = run(str(SUBMISSION), "--workloads", "breast_cancer_mlp", "--trials", "1", "--studies", "1",
                   "--search-space", str(space), "--out", str(tmp_path / "bundle"))  # fmt: skip

    assert document["algorithm"] == "algoperf_style_submission"
    assert document["workloads"]["breast_cancer_mlp"]["studies"][0]["trials"][0]["hyperparameters"] == point
    assert document["workloads"]["breast_cancer_mlp"]["time_to_target_s"] is not None


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["adamw", "--workloads", "imagenet_resnet50"], "invalid_workload"),
        (["lion"], "invalid_algorithm"),
        (["adamw", "--trials", "0"], "invalid_setting"),
        (["adamw", "--ruleset", "self", "--search-space", "space.json"], "invalid_setting"),
        ([str(Path(__file__).with_name("algoperf_style_submission.py"))], "invalid_search_space"),
    ],
)
def test_bad_arguments_are_refused_with_a_code_before_anything_runs(args, code, tmp_path):
    with pytest.raises(CommandError, match=f"^{code}:"):
        call_command("run_algorithm", *args, "--out", str(tmp_path / "bundle"), stdout=StringIO(), stderr=StringIO())
    assert not (tmp_path / "bundle").exists()


def trial(time: float | None) -> TrialResult:
    return TrialResult("w", {"learning_rate": 0.1}, [{"accumulated_submission_time": 1.0}], time, 10, "target", 10.0)


def test_a_base_workload_whose_held_out_variant_was_missed_scores_as_never_reached(tmp_path):
    results = {"madelon_mlp": [[trial(2.0)]], "friedman_mlp": [[trial(1.0)]], "madelon_mlp_tanh": [[trial(None)]]}
    reference = {"madelon_mlp": [[trial(4.0)]], "friedman_mlp": [[trial(1.0)]], "madelon_mlp_tanh": [[trial(3.0)]]}

    document = suite_document(
        suite="cpu", tuning=Tuning("external", trials=1, studies=1), algorithm="mine", reference="adamw",
        results=results, reference_results=reference, bundle_path=tmp_path,
        held_out={"madelon_mlp_tanh": "madelon_mlp"},
    )  # fmt: skip

    # madelon_mlp's own time stands in the document, but its variant was missed: only friedman_mlp (a tie) scores.
    assert document["workloads"]["madelon_mlp"]["time_to_target_s"] == 2.0
    assert document["workloads"]["madelon_mlp_tanh"]["time_to_target_s"] is None
    assert document["score"] == pytest.approx(0.5) and document["geomean_speedup_vs_reference"] is None


def test_held_out_variants_are_sampled_by_seed_and_run_with_the_same_trials(tmp_path):
    document = run("sgd_nesterov", "--workloads", "friedman_mlp", "--trials", "1", "--studies", "1",
                   "--held-out", "0", "--out", str(tmp_path / "bundle"))  # fmt: skip

    assert list(document["workloads"]) == ["friedman_mlp", "friedman_mlp_wide"]
    trials = [document["workloads"][name]["studies"][0]["trials"][0] for name in document["workloads"]]
    assert trials[0]["hyperparameters"] == trials[1]["hyperparameters"]
    assert (tmp_path / "bundle" / "sgd_nesterov" / "study_0" / "friedman_mlp_wide" / "trial_0").is_dir()


def test_on_queue_each_trial_is_a_reference_queue_task_and_the_bundle_names_the_machine_that_ran_it(tmp_path):
    # Without a broker (the test settings) Celery runs the tasks in this process, as `make run` does: the same path
    # through the task, its serialised result and the bundle.
    document = run(str(SUBMISSION), "--workloads", "breast_cancer_mlp", "--trials", "2", "--studies", "1",
                   "--search-space", str(HERE / "adamw_search_space.json"),
                   "--reference", "sgd_nesterov", "--on-queue", "--out", str(tmp_path / "bundle"))  # fmt: skip

    assert [len(study["trials"]) for study in document["workloads"]["breast_cancer_mlp"]["studies"]] == [2]
    for side in ("algoperf_style_submission", "reference-sgd_nesterov"):
        trial = tmp_path / "bundle" / side / "study_0" / "breast_cancer_mlp" / "trial_1"
        machine = json.loads((trial / "machine.json").read_text())
        assert machine["cpu_count"] >= 1 and machine["threads"] >= 1


def test_on_queue_with_a_broker_but_no_result_backend_is_refused_saying_what_to_set(tmp_path, settings):
    settings.CELERY_TASK_ALWAYS_EAGER, settings.CELERY_RESULT_BACKEND = False, None

    with pytest.raises(CommandError, match=r"^no_result_backend: .*CELERY_RESULT_BACKEND"):
        call_command("run_algorithm", "adamw", "--workloads", "breast_cancer_mlp", "--on-queue",
                     "--out", str(tmp_path / "bundle"), stdout=StringIO(), stderr=StringIO())  # fmt: skip
    assert not (tmp_path / "bundle").exists()


@pytest.mark.django_db
def test_submit_enters_the_bundle_into_its_board_which_recomputes_the_same_times(tmp_path, monkeypatch):
    """The site's ruleset is the suite's (3 studies of 5 trials, six workloads); here it is cut to what this run
    does, so that the one-minute test can show a bundle accepted, its times as the command computed them."""
    from dataclasses import replace

    from dawnboard.algorithms.suites import CPU_SUITE
    from leaderboard.models import AlgorithmResult
    from leaderboard.services import algorithms as site

    names = ("breast_cancer_mlp", "diabetes_mlp")
    small = replace(CPU_SUITE, workloads=tuple(CPU_SUITE.workload(n) for n in names), studies=1, trials=2)
    monkeypatch.setattr(site, "SUITES", {"cpu": small})

    document = run("nadamw", "--workloads", ",".join(names), "--trials", "2", "--studies", "1",
                   "--out", str(tmp_path / "bundle"), "--submit")  # fmt: skip

    submission = document["submission"]
    assert submission["status"] == "accepted", submission
    stored = AlgorithmResult.objects.get(pk=submission["id"])
    assert stored.times == {name: document["workloads"][name]["time_to_target_s"] for name in names}
    assert stored.score_vs_reference == pytest.approx(document["score"])
    assert submission["url"] == f"/algorithms/results/{stored.id}/"


@pytest.mark.django_db
def test_submit_of_part_of_the_suite_is_refused_naming_what_is_missing(tmp_path):
    document = run("adamw", "--workloads", "breast_cancer_mlp", "--trials", "1", "--studies", "1",
                   "--out", str(tmp_path / "bundle"), "--submit")  # fmt: skip

    codes = {error["code"] for error in document["submission"]["errors"]}
    assert document["submission"]["status"] == "rejected" and {"missing_workload", "missing_study"} <= codes
