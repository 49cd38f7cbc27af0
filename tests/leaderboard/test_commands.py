"""The management commands: import_dawnbench, leaderboard, create_submitter, submit."""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from leaderboard.models import CurvePoint, Entry, Submission, SubmittedFile, Submitter
from tests.factories import entry_bytes, training_log

pytestmark = pytest.mark.django_db

CIFAR10_THRESHOLD = 94.0


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def run_json(*args):
    return json.loads(run(*args, "--json"))


def dawnbench_reference(sample_dir: Path) -> dict[str, list[tuple[float, str, str]]]:
    """The DAWNBench rules, read straight from the sample files with the csv module: (value, date, stem).

    Training time: hours of the first row, in file order, reaching 94 % top-1, in seconds.
    Training cost: those hours times costPerHour. Inference: latency, and cost x 10,000.
    """
    boards: dict[str, list[tuple[float, str, str]]] = {
        "training-time": [],
        "training-cost": [],
        "inference-latency": [],
        "inference-cost": [],
    }
    for entry_path in sorted((sample_dir / "CIFAR10" / "train").glob("*.json")):
        entry = json.loads(entry_path.read_text(encoding="utf-8-sig"))
        with entry_path.with_suffix(".tsv").open(encoding="utf-8-sig", newline="") as log:
            rows = list(csv.DictReader(log, delimiter="\t"))
        hours = next(float(row["hours"]) for row in rows if float(row["top1Accuracy"]) >= CIFAR10_THRESHOLD)
        boards["training-time"].append((hours * 3600, entry["timestamp"], entry_path.stem))
        if entry.get("costPerHour") is not None:
            boards["training-cost"].append((hours * entry["costPerHour"], entry["timestamp"], entry_path.stem))
    for entry_path in sorted((sample_dir / "CIFAR10" / "inference").glob("*.json")):
        entry = json.loads(entry_path.read_text(encoding="utf-8-sig"))
        if entry.get("latency") is not None:
            boards["inference-latency"].append((entry["latency"], entry["timestamp"], entry_path.stem))
        if entry.get("cost") is not None:
            boards["inference-cost"].append((entry["cost"] * 10_000, entry["timestamp"], entry_path.stem))
    return {metric: sorted(rows) for metric, rows in boards.items()}


def test_import_dawnbench_imports_every_sample_entry(sample_dir):
    report = run_json("import_dawnbench", str(sample_dir))

    assert report["summary"] == {"imported": 52, "skipped": 0, "rejected": 0}
    assert Entry.objects.filter(task__slug="cifar10", track="train").count() == 31
    assert Entry.objects.filter(task__slug="cifar10", track="inference").count() == 21
    assert all(outcome["status"] == "imported" for outcome in report["files"])


def test_import_dawnbench_twice_adds_nothing(sample_dir):
    run("import_dawnbench", str(sample_dir))
    counts = [model.objects.count() for model in (Entry, Submission, SubmittedFile, CurvePoint)]

    report = run_json("import_dawnbench", str(sample_dir))

    assert report["summary"] == {"imported": 0, "skipped": 52, "rejected": 0}
    assert [model.objects.count() for model in (Entry, Submission, SubmittedFile, CurvePoint)] == counts


def test_import_dawnbench_prints_each_file_and_a_summary(sample_dir):
    output = run("import_dawnbench", str(sample_dir))

    assert "imported  cifar10/train/basenet -> entry" in output
    assert output.strip().splitlines()[-1] == "52 imported, 0 already imported, 0 rejected."


def test_sample_entries_that_follow_the_documented_format_carry_no_warning(sample_dir):
    report = run_json("import_dawnbench", str(sample_dir))

    warned = {outcome["source_name"]: sorted({w["code"] for w in outcome["warnings"]}) for outcome in report["files"]}
    # Only the files that depart from the documented format say so: a BOM or CRLF, fields outside it.
    assert {name: codes for name, codes in warned.items() if codes} == {
        "KRes34_1GTX1080Ti_pytorch": ["byte_order_mark", "crlf_line_endings"],
        "lambda_BaiduNet9_lambda_cloud_single_pytorch": ["crlf_line_endings"],
        "diux_cifar_g3": ["unknown_fields"],
        "diux_cifar_p3": ["unknown_fields"],
    }


def write_archive(root: Path) -> None:
    """A tree laid out like the public dawn-bench-entries repository, with the quirks of its real ImageNet and
    SQuAD files: ImageNet's documented four-column log and `usedBlacklist`, inference dates written without
    zero padding (2019-6-27, 2018-4-18), and SQuAD logs with the F1 column before the hours."""

    def entry(folder: str, name: str, **fields) -> None:
        path = root / folder / f"{name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({**json.loads(entry_bytes(timestamp="2018-09-30")), **fields}, indent=4))

    def log(folder: str, name: str, text: str) -> None:
        (root / folder / f"{name}.tsv").write_text(text)

    entry("ImageNet/train", "team_resnet50_8v100", usedBlacklist=True, costPerHour=24.48)
    log(
        "ImageNet/train",
        "team_resnet50_8v100",
        "epoch\thours\ttop1Accuracy\ttop5Accuracy\n1\t0.25\t33.57\t58.93\n2\t0.5\t71.4\t90.2\n3\t0.75\t76.1\t93.04\n",
    )
    for name, timestamp in (("team_resnet50_1t4_trt", "2019-6-27"), ("team_resnet50_c5_cost", "2018-4-18")):
        entry("ImageNet/inference", name, timestamp=timestamp, latency=1.4328, top5Accuracy=93.73, usedBlacklist=True)
    entry("SQuAD/train", "team_drqa_1k80-gc_pytorch", costPerHour=0.9)
    log("SQuAD/train", "team_drqa_1k80-gc_pytorch", "epoch\tf1Score\thours\n1\t0.6606\t0.76\n2\t0.7606\t1.52\n")


def test_import_dawnbench_reads_the_real_archive_s_imagenet_and_squad_quirks_without_rejection(tmp_path):
    write_archive(tmp_path)

    report = run_json("import_dawnbench", str(tmp_path))

    assert report["summary"] == {"imported": 4, "skipped": 0, "rejected": 0}
    warnings = {outcome["source_name"]: [w["code"] for w in outcome["warnings"]] for outcome in report["files"]}
    assert warnings == {
        "team_resnet50_8v100": [],
        "team_resnet50_1t4_trt": ["date_not_padded"],
        "team_resnet50_c5_cost": ["date_not_padded"],
        "team_drqa_1k80-gc_pytorch": [],
    }
    assert Entry.objects.get(source_name="team_resnet50_1t4_trt").date.isoformat() == "2019-06-27"
    assert Entry.objects.get(source_name="team_resnet50_8v100").time_to_accuracy_seconds == 0.75 * 3600
    assert Entry.objects.get(source_name="team_drqa_1k80-gc_pytorch").time_to_accuracy_seconds == 1.52 * 3600


@pytest.mark.parametrize("metric", ["training-time", "training-cost", "inference-latency", "inference-cost"])
def test_every_leaderboard_equals_the_dawnbench_rule(sample_dir, metric):
    run("import_dawnbench", str(sample_dir))
    expected = dawnbench_reference(sample_dir)[metric]

    board = run_json("leaderboard", "cifar10", metric)

    assert [row["rank"] for row in board["results"]] == list(range(1, len(expected) + 1))
    assert [row["source_name"] for row in board["results"]] == [stem for _, _, stem in expected]
    assert [row["value"] for row in board["results"]] == pytest.approx([value for value, _, _ in expected], rel=1e-12)
    assert [row["date"] for row in board["results"]] == [date for _, date, _ in expected]


def test_leaderboard_json_has_the_documented_shape(sample_dir):
    run("import_dawnbench", str(sample_dir))

    board = run_json("leaderboard", "cifar10", "training-time", "--limit", "3")

    assert set(board) == {"task", "version", "metric", "unit", "count", "offset", "limit", "results"}
    assert (board["offset"], board["limit"]) == (0, 3)
    assert (board["task"], board["metric"], board["unit"]) == ("cifar10", "training-time", "seconds")
    assert len(board["results"]) == 3
    assert set(board["results"][0]) == {
        "rank", "tied_with_above", "entry_id", "source_name", "value", "runs", "interval_95", "model", "team",
        "submitter", "hardware", "framework", "date", "verification",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("metric", "unit"),
    [("training-cost", "USD"), ("inference-latency", "milliseconds"), ("inference-cost", "USD per 10,000 items")],
)
def test_leaderboard_units(db, metric, unit):
    assert run_json("leaderboard", "squad", metric)["unit"] == unit


def test_leaderboard_breaks_ties_by_the_earlier_date(db, write):
    for date, name in (("2019-05-02", "later"), ("2019-05-01", "earlier")):
        call_command(
            "submit", "--task", "cifar10", "--track", "train",
            write(f"{name}.json", entry_bytes(timestamp=date, model=name)), write(f"{name}.tsv", training_log()),
            stdout=StringIO(),
        )  # fmt: skip

    board = run_json("leaderboard", "cifar10", "training-time")

    assert [row["model"] for row in board["results"]] == ["earlier", "later"]
    assert board["results"][0]["value"] == board["results"][1]["value"] == pytest.approx(0.03 * 3600)


def test_leaderboard_leaves_out_withdrawn_entries(sample_dir):
    run("import_dawnbench", str(sample_dir))
    Entry.objects.filter(source_name="apple_resnet9_8v100_pytorch").update(status=Entry.Status.WITHDRAWN)

    board = run_json("leaderboard", "cifar10", "training-time")

    assert "apple_resnet9_8v100_pytorch" not in [row["source_name"] for row in board["results"]]
    assert len(board["results"]) == 30


def test_leaderboard_rejects_an_unknown_task(db):
    with pytest.raises(CommandError, match="Unknown task"):
        run("leaderboard", "mnist", "training-time")


def test_create_submitter_prints_a_working_token(db):
    document = run_json("create_submitter", "fast-team", "--email", "fast@example.org")

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {document['token']}")
    assert Submitter.objects.filter(name="fast-team").exists()
    assert client.get("/api/v1/submissions/").status_code == 200


def test_create_submitter_refuses_a_duplicate_name(db):
    run("create_submitter", "fast-team", "--email", "fast@example.org")

    with pytest.raises(CommandError, match="already exists"):
        run("create_submitter", "fast-team", "--email", "other@example.org")
    assert Submitter.objects.count() == 1


def test_submit_accepts_a_valid_training_entry(db, write):
    document = run_json(
        "submit", "--task", "cifar10", "--track", "train",
        write("entry.json", entry_bytes()), write("log.tsv", training_log()),
    )  # fmt: skip

    entry = Entry.objects.get(id=document["entry_id"])
    assert document["status"] == "accepted"
    assert entry.time_to_accuracy_seconds == pytest.approx(0.03 * 3600)
    assert entry.training_cost_usd == Decimal("0.03") * Decimal("3.06")


def test_submit_rejects_and_stores_nothing(db, write):
    out = StringIO()
    with pytest.raises(CommandError, match="rejected"):
        call_command(
            "submit", "--task", "cifar10", "--track", "train", "--json",
            write("entry.json", entry_bytes()), write("log.tsv", training_log([(0, 0.1, 50.0)])),
            stdout=out,
        )  # fmt: skip

    assert json.loads(out.getvalue())["errors"][0]["code"] == "threshold_not_reached"
    assert Submission.objects.count() == Entry.objects.count() == 0


@pytest.fixture
def write(tmp_path):
    """Writes bytes to a file in a scratch folder and returns its path, for the commands to read."""

    def write_file(name: str, content: bytes) -> str:
        path = tmp_path / name
        path.write_bytes(content)
        return str(path)

    return write_file
