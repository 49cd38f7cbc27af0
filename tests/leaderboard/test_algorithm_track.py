"""The algorithm track on the site: results bundles through the API (every figure recomputed from the logs, refused
bundles storing nothing), the boards and an algorithm's page, and AlgoPerf's published results imported."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from dawnboard.algorithms.algoperf_versions import ALGOPERF_0_6
from dawnboard.algorithms.bundles import bundle_archive
from dawnboard.algorithms.suites import CPU_SUITE
from leaderboard.models import AlgorithmResult
from tests.dawnboard.algorithms.bundle_fixtures import bundle, constant, trial_log

RESULTS_URL = "/api/v1/algorithms/results/"
TWICE_AS_FAST = {name: 2.0 for name in CPU_SUITE.base_workloads}
REFERENCE = {name: 4.0 for name in CPU_SUITE.base_workloads}


def send(client, files: dict[str, bytes], query: str = ""):
    upload = SimpleUploadedFile("bundle.zip", bundle_archive(files), content_type="application/zip")
    return client.post(RESULTS_URL + query, {"bundle": upload}, format="multipart")


@pytest.mark.django_db
def test_a_bundle_is_judged_from_its_logs_stored_and_ranked(api_client, client, submitter):
    response = send(api_client, bundle(CPU_SUITE, constant(TWICE_AS_FAST), constant(REFERENCE)))

    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["status"] == "accepted" and body["suite"] == "cpu" and body["ruleset"] == "external"
    assert body["times"] == TWICE_AS_FAST and body["reference_times"] == REFERENCE
    assert body["geomean_speedup_vs_reference"] == pytest.approx(2.0)
    assert body["score_vs_reference"] == pytest.approx(1.0)
    stored = AlgorithmResult.objects.get()
    assert stored.submitter == submitter and len(stored.curves) == 2 * 6 * 3 * 5
    assert stored.bundle_sha256 and bytes(stored.bundle_content)

    board = client.get("/api/v1/algorithms/cpu/external/").json()
    assert [row["name"] for row in board["results"]] == ["my_adam"]
    assert board["compared_as"] == "multiples of each result's reference"


@pytest.mark.django_db
def test_a_bundle_missing_a_study_is_refused_and_nothing_is_stored(api_client):
    files = bundle(CPU_SUITE, constant(TWICE_AS_FAST), constant(REFERENCE))
    kept = {path: data for path, data in files.items() if not path.startswith("my_adam/study_2/")}

    response = send(api_client, kept)

    assert response.status_code == 400
    assert {error["code"] for error in response.json()["errors"]} == {"missing_study"}
    assert not AlgorithmResult.objects.exists()


@pytest.mark.django_db
def test_a_dry_run_judges_and_stores_nothing(api_client):
    response = send(api_client, bundle(CPU_SUITE, constant(TWICE_AS_FAST), constant(REFERENCE)), "?dry_run=1")

    assert response.status_code == 200 and response.json()["status"] == "valid"
    assert not AlgorithmResult.objects.exists()


@pytest.mark.django_db
def test_only_a_submitter_sends_a_bundle_and_a_form_without_one_is_refused(anonymous_client, api_client):
    assert send(anonymous_client, {"results.json": b"{}"}).status_code in (401, 403)
    response = api_client.post(RESULTS_URL, {}, format="multipart")
    assert response.status_code == 400 and response.json()["errors"][0]["field"] == "bundle"


@pytest.mark.django_db
def test_the_board_and_the_algorithm_page_show_the_profile_and_every_trial(api_client, client):
    send(api_client, bundle(CPU_SUITE, constant(TWICE_AS_FAST), constant(REFERENCE)))
    slower = {name: 8.0 for name in CPU_SUITE.base_workloads}
    send(api_client, bundle(CPU_SUITE, constant(slower), constant(REFERENCE), name="slow_sgd"))

    page = client.get("/algorithms/cpu/external/")
    assert page.status_code == 200
    html = page.content.decode()
    assert html.index("my_adam") < html.index("slow_sgd")  # ranked by the board's score
    assert 'data-chart="figure-profiles"' in html and "profile-ratios" in html
    assert client.get("/algorithms/").url == "/algorithms/cpu/external/"

    result = AlgorithmResult.objects.get(name="slow_sgd")
    page = client.get(f"/algorithms/results/{result.id}/").content.decode()
    assert page.count('data-chart="figure-curves-') == 6
    assert "learning_rate=0.001" in page and "0.50x" in page  # its hyperparameters; half the reference's speed


@pytest.mark.django_db
def test_unknown_boards_and_results_are_not_found(client):
    assert client.get("/algorithms/moon/external/").status_code == 404
    assert client.get("/algorithms/cpu/open/").status_code == 404
    assert client.get("/algorithms/results/999/").status_code == 404
    assert client.get("/api/v1/algorithms/moon/external/").json()["errors"][0]["code"] == "not_found"


def write_algoperf_tree(root, submission, crossing, *, skip=()):
    """AlgoPerf's published layout under v0.6's rules: study_k/<workload>_jax/trial_j (trials from 1)."""
    for workload in ALGOPERF_0_6.base_workloads:
        for study in range(ALGOPERF_0_6.studies):
            for trial in range(1, ALGOPERF_0_6.trials + 1):
                folder = root / submission / f"study_{study}" / f"{workload}_jax" / f"trial_{trial}"
                if (workload, study, trial) in skip or (workload,) in skip:
                    continue
                folder.mkdir(parents=True)
                seconds = crossing(workload, study, trial)
                data = trial_log(ALGOPERF_0_6, workload, seconds, evaluations=3)
                if (workload, study, trial, "no log") not in skip:
                    (folder / "eval_measurements.csv").write_bytes(data)


@pytest.mark.django_db
def test_algoperf_s_published_results_are_scored_with_their_gaps_warned_of(tmp_path, capsys):
    base = {workload: ALGOPERF_0_6.budget_s(workload, "external") / 10 for workload in ALGOPERF_0_6.base_workloads}
    write_algoperf_tree(tmp_path, "baseline", constant(base))
    gaps = {("ogbg",), ("wmt", 1, 5), ("fastmri", 0, 1, "no log")}  # no ogbg at all, a study of 4, a crashed trial
    write_algoperf_tree(tmp_path, "gappy", constant({w: 2 * t for w, t in base.items()}), skip=gaps)
    broken = tmp_path / "broken"
    write_algoperf_tree(tmp_path, "broken", constant(base))
    log = next(broken.glob("study_0/criteo1tb_jax/trial_1/eval_measurements.csv"))
    log.write_text(log.read_text().replace("\n2.0,", "\n0.5,", 1))  # the second evaluation before the first

    call_command("import_algoperf", str(tmp_path), "--ruleset", "external", "--version", "0.6", "--json")
    document = json.loads(capsys.readouterr().out)

    assert set(document) == {"ruleset", "version", "submissions"} and document["version"] == "0.6"
    by_name = {item["name"]: item for item in document["submissions"]}
    assert set(by_name["baseline"]) == {"name", "status", "score", "times", "errors", "warnings"}
    assert by_name["broken"]["status"] == "rejected" and by_name["broken"]["score"] is None
    assert [error["code"] for error in by_name["broken"]["errors"]] == ["submission_time_decreasing"]
    assert all(
        set(issue) == {"code", "message"} for item in by_name.values() for issue in item["errors"] + item["warnings"]
    )
    assert by_name["baseline"]["score"] == pytest.approx(1.0) and by_name["baseline"]["warnings"] == []
    gappy = by_name["gappy"]
    assert sorted({warning["code"] for warning in gappy["warnings"]}) == [
        "missing_trial", "missing_trial_log", "missing_workload",
    ]  # fmt: skip
    assert gappy["times"]["ogbg"] is None and gappy["times"]["wmt"] == pytest.approx(2 * base["wmt"])
    # gappy: twice the baseline's time (r = 2) on 7 of 8 workloads, never on ogbg: rho = 0 below tau 2, 7/8 from 2
    taus = np.linspace(1.0, 4.0, 100)
    assert gappy["score"] == pytest.approx(np.trapezoid(np.where(taus >= 2.0, 7 / 8, 0.0), taus) / 3)
    assert AlgorithmResult.objects.filter(suite="algoperf-0.6", ruleset="external").count() == 2


def test_the_cpu_suite_s_rules_are_what_its_workloads_run_by():
    from benchmarks.algorithms.workloads import workload_class

    for rules in CPU_SUITE.workloads:
        workload = workload_class(rules.name)
        assert workload.validation_target_value == rules.target.value
        assert workload.max_allowed_runtime_sec == rules.max_runtime_s
        assert f"validation/{workload.target_metric_name}" == rules.target.metric
        assert math.isfinite(rules.max_runtime_s)
