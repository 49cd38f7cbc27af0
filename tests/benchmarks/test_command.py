"""`run_reference` end to end: the job, its files, `--json`, `--runs`, and `--submit` through the API's ingest."""

from __future__ import annotations

import json
import re
import statistics
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from benchmarks.management.commands.run_reference import Command
from leaderboard.models import Entry, Submission


def run_reference(*args: str) -> str:
    out = StringIO()
    call_command("run_reference", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


@pytest.mark.django_db
def test_digits_submit_enters_a_reference_entry_with_its_curve_and_run_record(tmp_path, client):
    document = json.loads(run_reference("digits", "--submit", "--json", "--out", str(tmp_path)))

    (run,) = document["runs"]
    assert run["reached"] and document["submission"]["status"] == "accepted"
    entry = Entry.objects.get(id=document["submission"]["entry_id"])
    assert entry.submission.source == Submission.Source.REFERENCE
    assert entry.submission.run_record["seed"] == 0
    assert entry.submission.run_record["curve"][-1]["quality"] == pytest.approx(entry.accuracy)
    assert sum(run.curve.count() for run in entry.runs.all()) == len(run["record"]["curve"])
    assert entry.time_to_accuracy_seconds == pytest.approx(run["results"]["time_to_accuracy_seconds"])
    page = client.get(f"/entries/{entry.id}/").content.decode()
    assert "A reference run: <code>.venv/bin/python manage.py run_reference digits --recipe cnn --seed 0" in page
    board = client.get("/api/v1/leaderboards/digits/training-time/").json()
    assert [row["entry_id"] for row in board["results"]] == [entry.id]

    assert "nothing was run" in run_reference("digits", "--submit", "--only-if-missing")
    assert json.loads(run_reference("digits", "--only-if-missing", "--json"))["runs"] == []
    assert Entry.objects.count() == 1


@pytest.mark.django_db
def test_several_runs_submitted_make_one_entry_of_those_runs_with_their_spread(tmp_path):
    document = json.loads(
        run_reference("digits", "--runs", "3", "--seed", "4", "--submit", "--json", "--out", str(tmp_path))
    )

    assert document["submission"]["status"] == "accepted"
    entry = Entry.objects.get(id=document["submission"]["entry_id"])
    times = sorted(run["results"]["time_to_accuracy_seconds"] for run in document["runs"])
    assert Entry.objects.count() == 1 and entry.run_count == 3 and entry.successful_run_count == 3
    assert entry.time_to_accuracy_seconds == pytest.approx(times[1])  # the median of three
    assert (entry.time_min_seconds, entry.time_max_seconds) == pytest.approx((times[0], times[2]))
    assert [run.position for run in entry.runs.all()] == [0, 1, 2]
    assert [record["seed"] for record in entry.submission.run_record["runs"]] == [4, 5, 6]
    assert all(run.machine_load is not None for run in entry.runs.all())


@pytest.mark.django_db
def test_several_runs_print_the_median_and_coefficient_of_variation(tmp_path):
    document = json.loads(run_reference("digits", "--runs", "3", "--seed", "4", "--json", "--out", str(tmp_path)))

    assert [run["seed"] for run in document["runs"]] == [4, 5, 6]
    assert (tmp_path / "seed6" / "run.json").is_file()
    times = [run["time_to_accuracy_seconds"] for run in document["runs"]]
    epochs = [run["epochs_to_accuracy"] for run in document["runs"]]
    summary = document["summary"]
    assert (summary["runs"], summary["reached"]) == (3, 3)
    assert summary["time_to_accuracy_seconds"]["median"] == statistics.median(times)
    assert summary["time_to_accuracy_seconds"]["coefficient_of_variation"] == pytest.approx(
        statistics.stdev(times) / statistics.fmean(times)
    )
    assert summary["epochs_to_accuracy"]["median"] == statistics.median(epochs)
    assert Entry.objects.count() == 0  # not asked to submit


@pytest.mark.django_db
def test_a_run_short_of_the_threshold_is_reported_and_nothing_is_submitted(tmp_path):
    out = run_reference("digits", "--max-epochs", "1", "--submit", "--out", str(tmp_path))

    assert "did not reach the threshold; not submittable" in out
    assert Entry.objects.count() == 0 and Submission.objects.count() == 0


def test_a_missing_dataset_names_the_files_and_where_they_come_from(tmp_path):
    with pytest.raises(CommandError) as raised:
        run_reference("cifar10", "--data-dir", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out"))

    message = str(raised.value)
    assert "data_batch_1" in message and "test_batch" in message
    assert "cs.toronto.edu" in message


def test_a_bad_echo_factor_is_refused_with_its_reason(tmp_path):
    with pytest.raises(CommandError, match="echo factor must be at least 1"):
        run_reference("digits", "--echo-factor", "0", "--out", str(tmp_path))


def test_an_unknown_recipe_is_refused():
    with pytest.raises(CommandError, match="no recipe 'resnet1000'"):
        run_reference("cifar10", "--recipe", "resnet1000")


def test_help_lists_the_recipes_of_each_task():
    help_text = " ".join(Command().create_parser("manage.py", "run_reference").format_help().split())

    assert "cnn (digits), resnet9, resnet164 (cifar10), resnet50 (imagenet), bidaf (squad)" in help_text


def test_the_summary_writes_figures_as_the_site_does():
    run = {
        "seed": 4,
        "reached": True,
        "epochs_to_accuracy": 12,
        "results": {"time_to_accuracy_seconds": 7.3125},
        "paths": {"entry": "seed4/digits.json", "record": "seed4/run.json"},
    }
    spread = {"median": 75.5, "coefficient_of_variation": 0.03456}
    summary = {
        "runs": 2,
        "reached": 2,
        "time_to_accuracy_seconds": spread,
        "epochs_to_accuracy": {**spread, "median": 12.0},
    }
    out = StringIO()

    Command(stdout=out)._summarise({"runs": [run, {**run, "seed": 5}], "summary": summary})

    assert "seed 4: reached the threshold after 12 epochs, 0:00:07.3 of training" in out.getvalue()
    assert "median 0:01:16, coefficient of variation 3.5\u00a0%; epochs: median 12, " in out.getvalue()


def test_a_run_that_reached_the_threshold_but_whose_files_are_refused_says_why():
    run = {
        "seed": 2,
        "reached": True,
        "epochs_to_accuracy": 5,
        "results": None,
        "errors": [{"code": "hours_decreasing", "message": "Line 3: hours go backwards."}],
        "paths": {"entry": "seed2/digits.json", "record": "seed2/run.json"},
    }
    out = StringIO()

    Command(stdout=out)._summarise({"runs": [run], "summary": {"runs": 1}})

    assert "seed 2: reached the threshold, but the board refuses its files; hours_decreasing: Line 3" in out.getvalue()


@pytest.mark.django_db
def test_a_run_priced_as_the_catalog_cpu_instance_of_its_cores_fills_the_training_cost_board(
    tmp_path, client, monkeypatch
):
    monkeypatch.setattr("os.cpu_count", lambda: 2)  # aws c5.large has 2 vCPUs, at 0.085 USD/h since 2017-11-06

    document = json.loads(
        run_reference("digits", "--instance", "auto", "--provider", "aws", "--submit", "--json", "--out", str(tmp_path))
    )

    entry = Entry.objects.get(id=document["submission"]["entry_id"])
    assert entry.cost_per_hour_usd == Decimal("0.085")
    assert entry.hardware.startswith("2 CPU cores (") and entry.hardware.endswith(", priced as aws/c5.large")
    assert entry.training_cost_usd == pytest.approx(Decimal(entry.time_to_accuracy_seconds) / 3600 * Decimal("0.085"))
    assert entry.misc["price"].startswith("catalog: aws/c5.large on-demand")
    board = client.get("/api/v1/leaderboards/digits/training-cost/").json()
    assert [row["entry_id"] for row in board["results"]] == [entry.id]
    page = client.get(f"/entries/{entry.id}/").content.decode()
    assert re.search(r"Measured on <bdi>2 CPU cores \(.+\)</bdi>, priced as <bdi>aws/c5\.large</bdi> on-demand", page)


@pytest.mark.parametrize(
    ("arguments", "code"),
    [
        (["--instance", "x9.huge", "--provider", "aws"], "unknown_instance"),
        (["--instance", "auto", "--provider", "nowhere"], "unknown_instance"),
        (["--instance", "c5.large"], "needs --provider"),
    ],
)
@pytest.mark.django_db
def test_a_price_the_catalog_cannot_give_is_refused_before_training(tmp_path, arguments, code):
    with pytest.raises(CommandError, match=code):
        run_reference("digits", *arguments, "--out", str(tmp_path / "out"))

    assert not (tmp_path / "out").exists()
