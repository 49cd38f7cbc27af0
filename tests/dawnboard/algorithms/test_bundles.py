from __future__ import annotations

import io
import math
import tarfile
import zipfile

import pytest

from dawnboard.algorithms.bundles import MAX_MEMBERS, bundle_archive, bundle_files, judge_bundle
from dawnboard.algorithms.scoring import Target
from dawnboard.algorithms.suites import SuiteRules, WorkloadRules
from dawnboard.errors import RejectedInput
from tests.dawnboard.algorithms.bundle_fixtures import bundle, constant

TINY = SuiteRules(
    name="tiny",
    workloads=(
        WorkloadRules("w1", Target("validation/accuracy", 0.9), 10.0, 1.0),
        WorkloadRules("w2", Target("validation/loss", 0.5, higher_is_better=False), 10.0, 1.0),
        WorkloadRules("w1_tanh", Target("validation/accuracy", 0.8), 10.0, 1.0, base="w1"),
        WorkloadRules("w1_wide", Target("validation/accuracy", 0.8), 10.0, 1.0, base="w1"),
    ),
    studies=2,
    trials=2,
    self_tuning_runtime_factor=1.5,
)
SUITES = {"tiny": TINY}


def codes(rejection) -> list[str]:
    return [issue.code for issue in rejection.value.issues]


def test_every_time_and_score_comes_from_the_logs_not_from_results_json():
    # study 0: trials at 2 s and 4 s -> 2 s; study 1: 3 s and never -> 3 s; the median of (2, 3) = 2.5 s
    def algorithm(workload, study, trial):
        return {(0, 0): 2.0, (0, 1): 4.0, (1, 0): 3.0, (1, 1): None}[(study, trial)] if workload == "w1" else 5.0

    judged = judge_bundle(bundle(TINY, algorithm, constant({"w1": 5.0, "w2": 5.0})), SUITES)

    assert judged.times == {"w1": 2.5, "w2": 5.0}
    assert judged.reference_times == {"w1": 5.0, "w2": 5.0}
    assert judged.speedups == {"w1": 2.0, "w2": 1.0}
    assert judged.geomean_speedup == pytest.approx(math.sqrt(2.0))
    # the reference's w1 is 2x the algorithm's: r = 2, a step from 1/2 to 1 at tau = 2; the algorithm's rho is 1
    assert judged.score == pytest.approx(1.0)  # results.json claims 1.0 too, but for no reason the site reads
    assert len(judged.curves) == 2 * 2 * 2 * 2
    assert judged.curves[0].hyperparameters == {"learning_rate": 0.001}


def test_a_time_past_the_budget_never_reached_the_target():
    late = constant({"w1": 11.0, "w2": 5.0})  # the budget is 10 s

    judged = judge_bundle(bundle(TINY, late, constant({"w1": 5.0, "w2": 5.0})), SUITES)

    assert judged.times["w1"] == math.inf and judged.geomean_speedup is None


def test_self_tuning_has_one_trial_a_study_and_half_again_the_budget():
    late = constant({"w1": 14.0, "w2": 5.0})  # within 1.5 x 10 s

    files = bundle(TINY, late, constant({"w1": 5.0, "w2": 5.0}), ruleset="self", trials=1)
    judged = judge_bundle(files, SUITES)

    assert judged.times["w1"] == 14.0 and judged.ruleset == "self"


def test_a_held_out_variant_never_reached_gates_its_base():
    seconds = {"w1": 2.0, "w2": 5.0, "w1_tanh": None}
    files = bundle(TINY, constant(seconds), constant({"w1": 5.0, "w2": 5.0, "w1_tanh": 5.0}), workloads=list(seconds))

    judged = judge_bundle(files, SUITES)

    assert judged.held_out == {"w1_tanh": "w1"}
    assert judged.times["w1"] == 2.0  # the time before the comparing rules, as reported
    assert judged.speedups["w1"] is None  # gated: never counted as reached
    assert judged.score == pytest.approx(0.5)  # w2 ties (r = 1), w1 is infinite


def test_two_variants_of_one_base_are_refused():
    names = ["w1", "w2", "w1_tanh", "w1_wide"]
    files = bundle(TINY, constant(dict.fromkeys(names, 2.0)), constant(dict.fromkeys(names, 2.0)), workloads=names)

    with pytest.raises(RejectedInput) as rejection:
        judge_bundle(files, SUITES)

    assert codes(rejection) == ["invalid_bundle"] and "w1" in rejection.value.issues[0].message


@pytest.mark.parametrize(
    ("remove", "code"),
    [
        ("my_adam/study_1/w2/", "missing_workload"),  # with study 0's w2 removed too, below
        ("my_adam/study_1/", "missing_study"),
        ("my_adam/study_1/w1/trial_1/", "missing_trial"),
        ("reference-adamw/study_0/w2/trial_0/", "missing_trial"),
    ],
)
def test_a_bundle_missing_a_workload_study_or_trial_is_refused(remove, code):
    files = bundle(TINY, constant({"w1": 2.0, "w2": 2.0}), constant({"w1": 2.0, "w2": 2.0}))
    gone = (remove, "my_adam/study_0/w2/") if code == "missing_workload" else (remove,)
    kept = {path: data for path, data in files.items() if not path.startswith(gone)}

    with pytest.raises(RejectedInput) as rejection:
        judge_bundle(kept, SUITES)

    assert code in codes(rejection)


def test_a_trial_folder_without_its_log_is_refused():
    files = bundle(TINY, constant({"w1": 2.0, "w2": 2.0}), constant({"w1": 2.0, "w2": 2.0}))
    del files["my_adam/study_0/w1/trial_0/eval_measurements.csv"]  # its hyperparameters.json stays

    with pytest.raises(RejectedInput) as rejection:
        judge_bundle(files, SUITES)

    assert "missing_trial_log" in codes(rejection)


def test_times_running_backwards_are_refused_naming_the_log():
    files = bundle(TINY, constant({"w1": 2.0, "w2": 2.0}), constant({"w1": 2.0, "w2": 2.0}))
    path = "my_adam/study_0/w1/trial_0/eval_measurements.csv"
    files[path] = b"accumulated_submission_time,global_step,validation/accuracy\n2.0,10,0.5\n1.0,20,0.95\n"

    with pytest.raises(RejectedInput) as rejection:
        judge_bundle(files, SUITES)

    assert codes(rejection) == ["submission_time_decreasing"] and path in rejection.value.issues[0].message


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"suite": "moon"}, "suite"),
        ({"ruleset": "open"}, "ruleset"),
        ({"algorithm": "../etc"}, "algorithm"),
        ({"reference": None}, "reference"),
    ],
)
def test_results_json_misstating_what_the_logs_cannot_say_is_refused(change, field):
    import json

    files = bundle(TINY, constant({"w1": 2.0, "w2": 2.0}), constant({"w1": 2.0, "w2": 2.0}))
    files["results.json"] = json.dumps({**json.loads(files["results.json"]), **change}).encode()

    with pytest.raises(RejectedInput) as rejection:
        judge_bundle(files, SUITES)

    assert codes(rejection) == ["invalid_bundle"] and rejection.value.issues[0].field == field


def test_a_bundle_without_its_reference_s_logs_is_refused():
    files = bundle(TINY, constant({"w1": 2.0, "w2": 2.0}), constant({"w1": 2.0, "w2": 2.0}))
    kept = {path: data for path, data in files.items() if not path.startswith("reference-")}

    with pytest.raises(RejectedInput) as rejection:
        judge_bundle(kept, SUITES)

    assert codes(rejection) == ["invalid_bundle"] and rejection.value.issues[0].field == "reference-adamw"


def test_zip_and_tar_archives_read_back_with_one_top_folder_taken_off():
    files = {"results.json": b"{}", "a/study_0/w1/trial_0/eval_measurements.csv": b"x"}
    tar_bytes = io.BytesIO()
    with tarfile.open(fileobj=tar_bytes, mode="w:gz") as tar:
        for path, data in files.items():
            member = tarfile.TarInfo(f"algorithms-a-2026/{path}")
            member.size = len(data)
            tar.addfile(member, io.BytesIO(data))

    assert bundle_files(bundle_archive(files)) == files
    assert bundle_files(tar_bytes.getvalue()) == files


@pytest.mark.parametrize("name", ["../outside.csv", "/etc/passwd", "a/../../outside"])
def test_a_member_outside_the_bundle_is_refused(name):
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as bundle_zip:
        bundle_zip.writestr(name, b"x")

    with pytest.raises(RejectedInput) as rejection:
        bundle_files(archive.getvalue())

    assert codes(rejection) == ["invalid_bundle"]


def test_links_and_unreadable_archives_are_refused():
    tar_bytes = io.BytesIO()
    with tarfile.open(fileobj=tar_bytes, mode="w") as tar:
        link = tarfile.TarInfo("results.json")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)

    for archive in (tar_bytes.getvalue(), b"not an archive at all"):
        with pytest.raises(RejectedInput) as rejection:
            bundle_files(archive)
        assert codes(rejection) == ["invalid_bundle"]


def test_more_members_than_the_limit_are_refused_before_they_are_read():
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as bundle_zip:
        for index in range(MAX_MEMBERS + 1):
            bundle_zip.writestr(f"f{index}", b"")

    with pytest.raises(RejectedInput) as rejection:
        bundle_files(archive.getvalue())

    assert codes(rejection) == ["invalid_bundle"] and "20,000" in rejection.value.issues[0].message
