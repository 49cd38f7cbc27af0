"""`run_study` stores a study and answers with its page; the study's page draws its three figures and lists every
run; the list links each study; bad input is refused with its code before anything runs."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from benchmarks.models import Study
from benchmarks.services import study_create

pytestmark = pytest.mark.django_db

RUNS = [
    {"value": 32, "seed": 0, "reached": True, "time_to_target_s": 0.5, "epochs_to_target": 3.0, "steps": 40,
     "batch_size": 32, "timed_seconds": 0.5, "throughput_examples_per_s": 2560.0},
    {"value": 32, "seed": 1, "reached": True, "time_to_target_s": 0.7, "epochs_to_target": 4.0, "steps": 53,
     "batch_size": 32, "timed_seconds": 0.7, "throughput_examples_per_s": 2423.0},
    {"value": 256, "seed": 0, "reached": False, "time_to_target_s": None, "epochs_to_target": None, "steps": 90,
     "batch_size": 256, "timed_seconds": 5.0, "throughput_examples_per_s": 4608.0},
    {"value": 256, "seed": 1, "reached": True, "time_to_target_s": 2.5, "epochs_to_target": 30.0, "steps": 50,
     "batch_size": 256, "timed_seconds": 2.5, "throughput_examples_per_s": 5120.0},
]  # fmt: skip


def stored_study() -> Study:
    return study_create(
        workload="breast_cancer_mlp", setting="batch_size", values=[32, 256], algorithm="adamw", runs_per_value=2,
        target={"metric": "validation/accuracy", "value": 0.958, "higher_is_better": True}, runs=RUNS,
        machine={"torch": "2", "threads": 1, "device": "cpu"},
    )  # fmt: skip


def test_run_study_stores_the_study_and_prints_one_json_document_with_its_page():
    out = StringIO()
    call_command("run_study", "breast_cancer_mlp", "--vary", "batch_size=32,64", "--runs", "1", "--json",
                 stdout=out, stderr=StringIO())  # fmt: skip

    document = json.loads(out.getvalue())
    study = Study.objects.get(pk=document["study_id"])
    assert document["url"] == f"/studies/{study.id}/" and study.runs == document["runs"]
    assert [run["value"] for run in study.runs] == [32, 64] and study.algorithm == "adamw"
    assert [row["reached"] for row in document["summary"]] == [1, 1]


@pytest.mark.parametrize(
    ("arguments", "code"),
    [
        (["imagenette", "--vary", "batch_size=32,64"], "invalid_workload"),
        (["digits", "--vary", "momentum=0.9,0.99"], "invalid_setting"),
        (["digits", "--vary", "batch_size=64,-1"], "invalid_setting"),
        (["cifar10", "--vary", "batch_size=64,128", "--data-dir", "/nonexistent"], "dataset_missing"),
    ],
)
def test_run_study_refuses_bad_input_with_a_stable_code(arguments, code):
    with pytest.raises(CommandError, match=rf"^{code}: "):
        call_command("run_study", *arguments, "--runs", "1", stdout=StringIO(), stderr=StringIO())
    assert not Study.objects.exists()


def test_a_study_page_draws_its_three_figures_and_lists_every_run(client):
    study = stored_study()
    page = client.get(f"/studies/{study.id}/").content.decode()

    for name in ("figure-time_to_target_s", "figure-epochs_to_target", "figure-throughput_examples_per_s"):
        assert f'data-chart="{name}"' in page and f'<script id="{name}" type="application/json">' in page
    assert page.count('<tr class="run">') == len(RUNS)
    assert "1 of 2" in page and "2 of 2" in page  # each value's runs that reached the target
    assert "plotly-scatter.min.js" in page and "cdn" not in page.lower()


def test_the_studies_list_links_each_study_and_an_unknown_one_is_not_found(client):
    study = stored_study()
    assert f'href="/studies/{study.id}/"' in client.get("/studies/").content.decode()
    assert client.get(f"/studies/{study.id + 1}/").status_code == 404
