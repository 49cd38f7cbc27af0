"""How far to trust each entry: its verification level derived from its history, the verdict of its reproductions,
its convergence against Dawnboard's reference runs and MLCommons' RCPs, what it says was evaluated, and the filters
on all of them (pages, API, command)."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from dawnboard.verification import Verification, verification_level
from leaderboard.models import Entry, EntryCatalogCost, Submission
from leaderboard.services import Upload, entry_import, submission_create
from leaderboard.services.judging import entry_withdraw
from leaderboard.services.verification import entry_evidence
from tests.dawnboard.formats.test_loadgen import detail_log
from tests.dawnboard.mllog_trees import ROUND, ssd_logs
from tests.dawnboard.test_ingest_loadgen import OFFLINE, OFFLINE_RESULTS
from tests.dawnboard.validation.test_convergence import ssd_set
from tests.factories import entry_bytes, inference_document, training_log

pytestmark = pytest.mark.django_db

SUBMISSIONS_URL = "/api/v1/submissions/"
SEED = "davidcpage_resnet9_1v100-ec2_pytorch"  # a seed entry of the resnet9 recipe (dawnboard.recipes)


def seed_entry(rows=((1, 0.5, 90.0), (2, 1.0, 94.2), (3, 1.5, 94.6))) -> Entry:
    """The seed entry as imported: reaches 94 % at epoch 2."""
    outcome = entry_import(
        task_slug="cifar10",
        track="train",
        source_name=SEED,
        entry=Upload("seed.json", entry_bytes(model="ResNet 9 (seed)")),
        logs=[Upload("seed.tsv", training_log(list(rows)))],
    )
    assert outcome.status == "imported", outcome.errors
    return Entry.objects.get(id=outcome.entry_id)


def reference_run(epochs_rows, *, seed: int = 7) -> Entry:
    """An accepted reference run of the resnet9 recipe as published, reproducing the seed (its record says so)."""
    record = {
        "recipe": "resnet9",
        "reproduces": SEED,
        "command": "run_reference cifar10 --recipe resnet9",
        "seed": seed,
    }
    outcome = submission_create(
        task_slug="cifar10",
        track="train",
        entry=Upload("ref.json", entry_bytes(hardware="2 CPU cores (test CPU)", costPerHour=None)),
        logs=[Upload("ref.tsv", training_log(list(epochs_rows)))],
        source=Submission.Source.REFERENCE,
        run_record=record,
    )
    assert outcome.status == "accepted", outcome.errors
    return Entry.objects.get(id=outcome.entry_id)


def level_of(entry_id: int) -> str:
    return Entry.objects.get(id=entry_id).verification


def assert_level_derives_from_history(entry: Entry) -> None:
    entry = Entry.objects.select_related("submission").get(id=entry.id)
    assert entry.verification == verification_level(entry_evidence(entry)).value


# --- Levels --------------------------------------------------------------------------------------------------------


def test_a_dawnbench_training_entry_is_log_verified_and_an_inference_claim_self_reported():
    training = seed_entry()
    inference = entry_import(
        task_slug="cifar10",
        track="inference",
        source_name="team_inference",
        entry=Upload("inference.json", json.dumps(inference_document()).encode()),
        logs=[],
    )

    assert training.verification == Verification.LOG_VERIFIED
    assert level_of(inference.entry_id) == Verification.SELF_REPORTED
    assert_level_derives_from_history(training)


def test_an_inference_entry_measured_through_loadgen_logs_is_log_verified(api_client):
    document = inference_document(latency=None, cost=None, misc={"scenario": "offline"})
    document.pop("latency"), document.pop("cost")
    document["latency"] = 2.5
    files = {
        "entry": SimpleUploadedFile("entry.json", json.dumps(document).encode()),
        "log": [SimpleUploadedFile("mlperf_log_detail.txt", detail_log(OFFLINE, OFFLINE_RESULTS))],
    }
    response = api_client.post(SUBMISSIONS_URL, {"task": "cifar10", "track": "inference", **files}, format="multipart")

    assert response.status_code == 201, response.content
    entry = Entry.objects.get()
    assert entry.loadgen_scenario == "offline" and entry.verification == Verification.LOG_VERIFIED


def test_a_reference_run_with_its_record_is_measured():
    reference = reference_run([(1, 0.5, 90.0), (2, 1.0, 94.3)])

    assert reference.verification == Verification.MEASURED
    assert_level_derives_from_history(reference)


def test_an_mlperf_set_passing_mlcommons_compliance_checker_is_compliance_checked(api_client):
    compliant = [content for _, content in ssd_set([4, 4, 4, 4, 4])]
    response = post_mllog(api_client, compliant)

    assert response.status_code == 201, response.content
    entry = Entry.objects.get()
    assert entry.compliance["passed"] is True and entry.compliance["ruleset"] == "4.1.0"
    assert entry.verification == Verification.COMPLIANCE_CHECKED


def test_an_mlperf_set_failing_the_compliance_checker_stays_log_verified_with_the_failures_shown(api_client, client):
    response = post_mllog(api_client, ssd_logs([10.0, 11.0, 12.0, 13.0, 14.0]))  # no hyperparameters logged

    assert response.status_code == 201, response.content
    entry = Entry.objects.get()
    assert entry.compliance["passed"] is False and entry.compliance["failures"]
    assert entry.verification == Verification.LOG_VERIFIED
    page = client.get(f"/entries/{entry.id}/").content.decode()
    assert 'id="compliance" data-passed="false"' in page and "result_1.txt" in page


# --- MLCommons' RCPs ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("epochs", "status"),
    [
        ([4, 4, 4, 4, 4], "pass"),  # v4.1's ssd RCP at batch size 256: every reference run converged at epoch 4
        ([1, 1, 1, 1, 1], "fail"),  # a quarter of the RCP's mean: more than its speedup allows
    ],
)
def test_an_mlperf_set_shows_its_rcp_verdict_from_mlcommons_data(api_client, client, epochs, status):
    response = post_mllog(api_client, [content for _, content in ssd_set(epochs)])

    assert response.status_code == 201, response.content
    entry = Entry.objects.get()
    assert (entry.convergence["kind"], entry.convergence["status"]) == ("rcp", status)
    assert entry.convergence["rcp_mean_epochs"] == 4.0 and entry.convergence["global_batch_size"] == 256
    assert f'id="convergence" data-status="{status}"' in client.get(f"/entries/{entry.id}/").content.decode()
    assert client.get(f"/api/v1/entries/{entry.id}/").json()["convergence"]["status"] == status


def test_an_mlperf_set_at_a_batch_size_without_rcp_is_missing(api_client):
    response = post_mllog(api_client, [content for _, content in ssd_set([20] * 5, global_batch_size=8192)])

    assert response.status_code == 201, response.content
    assert Entry.objects.get().convergence["status"] == "missing"


# --- Reproductions -----------------------------------------------------------------------------------------------


def test_a_reference_run_within_the_originals_epochs_marks_the_seed_reproduced(client):
    seed = seed_entry()
    reference = reference_run([(1, 0.5, 90.0), (2, 1.0, 94.3)])  # epoch 2, as the original

    seed.refresh_from_db()
    assert seed.verification == Verification.REPRODUCED
    assert seed.reproduction["status"] == "reproduced" and seed.reproduction["deciding_entry"] == reference.id
    assert (seed.reproduction["original_epochs"], seed.reproduction["allowed_epochs"]) == (2.0, 2.0)
    page = client.get(f"/entries/{seed.id}/").content.decode()
    assert 'id="reproduction-verdict" data-status="reproduced"' in page
    assert f"Entry {reference.id} reached the threshold at epoch 2" in page
    assert_level_derives_from_history(seed)


def test_a_reproduction_slower_than_the_allowance_says_not_reproduced_with_the_reason(client):
    seed = seed_entry()
    reference_run([(1, 0.5, 90.0), (2, 1.0, 93.0), (3, 1.5, 94.2)])  # epoch 3: one epoch past the original's

    seed.refresh_from_db()
    assert seed.verification == Verification.LOG_VERIFIED
    assert seed.reproduction["status"] == "not reproduced"
    page = client.get(f"/entries/{seed.id}/").content.decode()
    verdict = page[page.index('id="reproduction-verdict"') :].split("</p>")[0]
    assert 'data-status="not reproduced"' in verdict
    assert "reached the threshold at epoch 3; the original&#x27;s epoch 2, plus a spread of 0 epochs" in verdict
    assert "allows 2." in verdict


def test_the_spread_of_the_recipes_runs_widens_the_allowance():
    seed = seed_entry()
    reference_run([(1, 0.5, 90.0), (2, 1.0, 93.0), (3, 1.5, 94.2)], seed=1)  # epoch 3: not within 2 + 0
    reference_run([(1, 0.5, 94.1)], seed=2)  # epoch 1: the recipe's runs now spread 3 - 1 = 2 epochs

    seed.refresh_from_db()
    assert seed.reproduction["spread_epochs"] == 2.0 and seed.reproduction["allowed_epochs"] == 4.0
    assert seed.reproduction["status"] == "reproduced"


def test_withdrawing_the_only_reproduction_takes_the_level_back():
    seed = seed_entry()
    reference = reference_run([(1, 0.5, 90.0), (2, 1.0, 94.3)])
    assert level_of(seed.id) == Verification.REPRODUCED

    entry_withdraw(entry=reference)

    seed.refresh_from_db()
    assert seed.verification == Verification.LOG_VERIFIED and seed.reproduction is None


def test_a_second_partys_entry_marked_as_a_reproduction_counts(api_client):
    seed = seed_entry()
    files = {
        "entry": SimpleUploadedFile("entry.json", entry_bytes(reproduces=seed.id, model="ResNet 9 (again)")),
        "log": SimpleUploadedFile("log.tsv", training_log([(1, 0.5, 91.0), (2, 1.0, 94.4)])),
    }
    response = api_client.post(SUBMISSIONS_URL, {"task": "cifar10", "track": "train", **files}, format="multipart")

    assert response.status_code == 201, response.content
    reproduction = Entry.objects.exclude(id=seed.id).get()
    assert reproduction.reproduces_id == seed.id
    assert level_of(seed.id) == Verification.REPRODUCED


@pytest.mark.parametrize("named", [999_999, "no_such_entry"])
def test_a_reproduction_of_nothing_on_the_board_is_refused_and_nothing_stored(api_client, named):
    seed_entry()
    files = {
        "entry": SimpleUploadedFile("entry.json", entry_bytes(reproduces=named)),
        "log": SimpleUploadedFile("log.tsv", training_log()),
    }
    response = api_client.post(SUBMISSIONS_URL, {"task": "cifar10", "track": "train", **files}, format="multipart")

    assert response.status_code == 400, response.content
    assert [(error["code"], error["field"]) for error in response.json()["errors"]] == [
        ("unknown_reproduced_entry", "reproduces")
    ]
    assert Entry.objects.count() == 1


# --- Convergence against Dawnboard's reference runs ---------------------------------------------------------------


def test_a_seed_faster_than_its_reference_runs_allow_is_flagged(client):
    seed = seed_entry([(1, 0.5, 94.2)])  # epoch 1
    for seed_number, epoch in enumerate([9, 10, 10, 11, 10, 9, 11, 10, 10, 10]):
        rows = [(each, each * 0.1, 90.0 + seed_number / 100) for each in range(1, epoch)] + [(epoch, epoch * 0.1, 94.3)]
        reference_run(rows, seed=seed_number)

    seed.refresh_from_db()
    assert seed.convergence["kind"] == "reference-runs" and seed.convergence["status"] == "faster"
    assert seed.convergence["reference_epochs"] == [9, 10, 10, 11, 10, 9, 11, 10, 10, 10]
    page = client.get(f"/entries/{seed.id}/").content.decode()
    assert "Converged faster than its reference runs." in page


def test_one_reference_run_is_too_few_to_judge_convergence():
    seed = seed_entry()
    reference_run([(1, 0.5, 90.0), (2, 1.0, 94.3)])

    seed.refresh_from_db()
    assert seed.convergence["status"] == "missing"


# --- What was evaluated -------------------------------------------------------------------------------------------


def test_an_imagenet_entry_leaving_out_the_blacklist_says_so_and_is_filtered(client, api_client):
    header = "epoch\thours\ttop1Accuracy\ttop5Accuracy"
    for index, (name, blacklist) in enumerate((("with_blacklist", True), ("whole", False))):
        rows = [(1, 0.5, 70.0, 90.0 + index / 10), (2, 1.0, 76.0, 93.1)]
        imported = entry_import(
            task_slug="imagenet",
            track="train",
            source_name=name,
            entry=Upload(f"{name}.json", entry_bytes(usedBlacklist=blacklist, model=name)),
            logs=[Upload(f"{name}.tsv", training_log(rows, header=header))],
        )
        assert imported.status == "imported", imported.errors
    excluded = Entry.objects.get(source_name="with_blacklist")

    assert (excluded.evaluated, Entry.objects.get(source_name="whole").evaluated) == ("with-exclusions", "whole")
    page = client.get(f"/entries/{excluded.id}/").content.decode()
    assert "leaving out <bdi>ImageNet&#x27;s blacklisted validation images (usedBlacklist)</bdi>" in page
    listed = api_client.get("/api/v1/entries/", {"evaluated": "with-exclusions"}).json()["results"]
    assert [entry["source_name"] for entry in listed] == ["with_blacklist"]
    assert listed[0]["evaluation"]["evaluated"] == "with-exclusions"
    board = client.get("/tasks/imagenet/", {"evaluated": "whole"}).content.decode()
    assert f'data-entry-id="{excluded.id}"' not in board and "whole" in board


# --- Filters ------------------------------------------------------------------------------------------------------


def measured_and_imported() -> tuple[Entry, Entry]:
    seed = seed_entry([(1, 0.5, 90.0), (2, 1.0, 93.9), (3, 1.5, 94.1)])  # epoch 3
    reference = reference_run([(1, 0.2, 90.0), (2, 0.4, 93.0), (3, 0.6, 93.5), (4, 0.8, 94.3)])  # not reproduced
    return seed, reference


def test_the_api_board_and_entry_list_filter_by_verification(api_client):
    seed, reference = measured_and_imported()

    board = api_client.get("/api/v1/leaderboards/cifar10/training-time/", {"verification": "measured"}).json()
    assert [row["entry_id"] for row in board["results"]] == [reference.id] and board["count"] == 1
    assert board["verification"] == ["measured"] and board["results"][0]["verification"] == "measured"
    both = api_client.get("/api/v1/leaderboards/cifar10/training-time/", {"verification": "measured,log-verified"})
    assert both.json()["count"] == 2
    listed = api_client.get("/api/v1/entries/", {"verification": "log-verified"}).json()["results"]
    assert [entry["id"] for entry in listed] == [seed.id] and listed[0]["verification"] == "log-verified"


@pytest.mark.parametrize("url", ["/api/v1/leaderboards/cifar10/training-time/", "/api/v1/entries/"])
def test_an_unknown_verification_level_is_a_400_naming_the_field(api_client, url):
    response = api_client.get(url, {"verification": "trusted"})

    assert response.status_code == 400
    assert [(error["code"], error.get("field")) for error in response.json()["errors"]] == [
        ("invalid_verification", "verification")
    ]


def test_the_board_page_shows_each_entrys_badge_and_filters_by_level(client):
    seed, reference = measured_and_imported()

    page = client.get("/tasks/cifar10/").content.decode()
    assert 'data-verification="measured"' in page and 'data-verification="log-verified"' in page
    filtered = client.get("/tasks/cifar10/", {"verification": "measured"}).content.decode()
    assert f'data-entry-id="{reference.id}"' in filtered and f'data-entry-id="{seed.id}"' not in filtered


def test_the_policy_boards_filter_by_the_level_copied_to_their_costs(api_client):
    seed, _ = measured_and_imported()  # the seed ran on a p3.2xlarge, in the catalog; the reference run on a test CPU
    board_url = "/api/v1/leaderboards/cifar10/training-cost/"

    assert list(EntryCatalogCost.objects.values_list("entry_id", "verification")) == [(seed.id, "log-verified")]
    by_level = {
        level: api_client.get(board_url, {"cost_basis": "catalog-today", "verification": level}).json()
        for level in ("log-verified", "measured")
    }
    assert [row["entry_id"] for row in by_level["log-verified"]["results"]] == [seed.id]
    assert by_level["measured"]["count"] == 0


def test_the_leaderboard_command_filters_by_verification():
    seed, _ = measured_and_imported()
    out = StringIO()
    call_command("leaderboard", "cifar10", "training-time", "--json", "--verification", "log-verified", stdout=out)

    board = json.loads(out.getvalue())
    assert [row["entry_id"] for row in board["results"]] == [seed.id]


def test_verify_entries_derives_every_level_again():
    seed, reference = measured_and_imported()
    Entry.objects.update(verification="self-reported", seconds_at_minus_1_point=None, seconds_at_minus_half_point=None)
    out = StringIO()

    call_command("verify_entries", "--logs", stdout=out)

    assert (level_of(seed.id), level_of(reference.id)) == ("log-verified", "measured")
    assert Entry.objects.get(id=seed.id).threshold_shift_seconds == {
        "-1.0": 3600.0,
        "-0.5": 3600.0,
        "+0.5": None,
        "+1.0": None,
    }
    assert "2 entries verified; 2 moved level." in out.getvalue()


def post_mllog(client, logs: list[bytes]):
    data = {"task": "ssd", "format": "mllog", "round": ROUND}
    data["log"] = [SimpleUploadedFile(f"result_{i}.txt", log) for i, log in enumerate(logs, 1)]
    return client.post(SUBMISSIONS_URL, data, format="multipart")


def test_every_entrys_stored_level_is_the_one_its_history_gives(api_client):
    seed_entry()
    reference_run([(1, 0.5, 90.0), (2, 1.0, 94.3)])
    entry_import(
        task_slug="cifar10",
        track="inference",
        source_name="team_inference",
        entry=Upload("inference.json", json.dumps(inference_document()).encode()),
        logs=[],
    )
    assert post_mllog(api_client, [content for _, content in ssd_set([4, 4, 4, 4, 4])]).status_code == 201

    levels = {entry.verification for entry in Entry.objects.all()}
    assert levels == {"reproduced", "measured", "self-reported", "compliance-checked"}
    for entry in Entry.objects.all():
        assert_level_derives_from_history(entry)


def test_the_api_shows_every_shift_with_null_where_never_reached(api_client):
    seed = seed_entry([(1, 0.5, 90.0), (2, 1.0, 93.9), (3, 1.5, 94.1)])

    shown = api_client.get(f"/api/v1/entries/{seed.id}/").json()["threshold_shift_seconds"]

    assert shown == {"-1.0": 3600.0, "-0.5": 3600.0, "+0.5": None, "+1.0": None}


def test_the_sensitivity_of_a_board_whose_order_turns_at_a_lower_threshold(api_client):
    # A reaches 93 % at 0.1 h but 94 % only at 1.0 h; B reaches 93.6 % at 0.5 h and 94 % at 0.6 h. At 94 % B is
    # first; at 93 % A is (tau -1 over the one pair); at 93.5 % B again (tau 1); nobody reaches 94.5 %.
    rows = {"a": [(1, 0.1, 93.2), (2, 1.0, 94.1)], "b": [(1, 0.5, 93.6), (2, 0.6, 94.2)]}
    ids = {}
    for name, log in rows.items():
        outcome = entry_import(
            task_slug="cifar10",
            track="train",
            source_name=name,
            entry=Upload(f"{name}.json", entry_bytes(model=name)),
            logs=[Upload(f"{name}.tsv", training_log(log))],
        )
        ids[name] = outcome.entry_id

    document = api_client.get("/api/v1/tasks/cifar10/sensitivity/").json()

    by_delta = {shift["delta"]: shift for shift in document["shifts"]}
    assert (by_delta[-1.0]["kendall_tau"], by_delta[-0.5]["kendall_tau"]) == (-1.0, 1.0)
    assert [(move["entry"], move["move"]) for move in by_delta[-1.0]["largest_moves"]] == [
        (ids["b"], -1),
        (ids["a"], 1),
    ]
    assert (by_delta[0.5]["entries_ranked"], by_delta[0.5]["kendall_tau"]) == (0, None)


def test_a_reproduction_withdrawn_by_staff_takes_the_seeds_level_back(admin_client):
    seed = seed_entry()
    reference = reference_run([(1, 0.5, 90.0), (2, 1.0, 94.3)])
    assert level_of(seed.id) == Verification.REPRODUCED

    reference.status = Entry.Status.WITHDRAWN
    reference.save()  # as the admin saves a changed entry: every field

    seed.refresh_from_db()
    assert seed.verification == Verification.LOG_VERIFIED and seed.reproduction is None
