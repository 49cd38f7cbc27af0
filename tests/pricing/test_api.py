"""The pricing API, and leaderboards ranked by a cost basis through the API and the command."""

import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command

from leaderboard.models import Entry
from pricing.models import InstanceType
from pricing.services import prices_load
from tests.factories import entry_bytes, training_log
from tests.pricing.catalog_text import BASE, ONE_GPU, catalog, row

pytestmark = pytest.mark.django_db


@pytest.fixture
def board(tmp_path):
    """Three cifar10 training entries: two on catalog instances (one claiming a cheap price), one unmatched."""
    prices_load(text=BASE)
    specs = {
        "claims-cheap": {"hardware": "TestCloud tc.gpu8", "costPerHour": 1.0},
        "honest": {"hardware": "TestCloud tc.gpu1", "costPerHour": 3.0},
        "unmatched": {"hardware": "DAWN Internal Cluster", "costPerHour": 2.0},
    }
    ids = {}
    for model, fields in specs.items():
        (tmp_path / "e.json").write_bytes(entry_bytes(model=model, timestamp="2018-01-01", **fields))
        (tmp_path / "l.tsv").write_bytes(training_log())
        out = StringIO()
        call_command(
            "submit",
            "--task",
            "cifar10",
            "--track",
            "train",
            str(tmp_path / "e.json"),
            str(tmp_path / "l.tsv"),
            "--json",
            stdout=out,
        )
        ids[model] = json.loads(out.getvalue())["entry_id"]
    return ids


def models_ranked(document) -> list[str]:
    return [row["model"] for row in document["results"]]


def test_instances_list_and_detail_with_price_history(client, db):
    prices_load(text=BASE)
    prices_load(text=catalog(row(ONE_GPU, "on-demand", "2.50", "2020-01-01")))
    instance = InstanceType.objects.get(name="tc.gpu1")

    listing = client.get("/api/v1/pricing/instances/?provider__slug=testcloud").json()
    detail = client.get(f"/api/v1/pricing/instances/{instance.id}/").json()

    assert [item["name"] for item in listing["results"]] == ["tc.gpu1", "tc.gpu8"]
    on_demand = [quote for quote in detail["quotes"] if quote["pricing_model"] == "on-demand"]
    assert [(q["usd_per_hour"], q["valid_from"], q["valid_to"]) for q in on_demand] == [
        ("3.000000", "2017-01-01", "2020-01-01"),
        ("2.500000", "2020-01-01", None),
    ]


def test_the_default_cost_board_ranks_by_the_claimed_price(client, board):
    document = client.get("/api/v1/leaderboards/cifar10/training-cost/").json()

    assert models_ranked(document) == ["claims-cheap", "unmatched", "honest"]
    assert "cost_basis" not in document


def test_catalog_at_submission_ranks_by_the_catalog_price_and_leaves_out_what_it_cannot_price(client, board):
    document = client.get("/api/v1/leaderboards/cifar10/training-cost/?cost_basis=catalog-at-submission").json()

    assert models_ranked(document) == ["honest", "claims-cheap"]
    assert [row["value"] for row in document["results"]] == pytest.approx([0.03 * 3.00, 0.03 * 24.00])
    assert document["cost_basis"] == "catalog-at-submission"


def test_spot_today_prices_what_has_a_spot_quote(client, board):
    document = client.get("/api/v1/leaderboards/cifar10/training-cost/?cost_basis=spot-today").json()

    assert models_ranked(document) == ["honest"]
    assert document["results"][0]["value"] == pytest.approx(0.03 * 0.90)


def test_an_unknown_cost_basis_is_a_400_with_a_code(client, board):
    response = client.get("/api/v1/leaderboards/cifar10/training-cost/?cost_basis=cheapest")

    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "unknown_cost_basis"


def test_the_leaderboard_command_takes_a_cost_basis(board):
    out = StringIO()
    call_command("leaderboard", "cifar10", "training-cost", "--cost-basis", "catalog-today", "--json", stdout=out)

    document = json.loads(out.getvalue())
    assert models_ranked(document) == ["honest", "claims-cheap"]


def test_the_entry_api_and_page_show_every_policy_with_its_arithmetic(client, board):
    entry = Entry.objects.get(id=board["claims-cheap"])

    detail = client.get(f"/api/v1/entries/{entry.id}/").json()
    html = client.get(f"/entries/{entry.id}/").content.decode()

    policies = {cost["policy"]: cost for cost in detail["cost_policies"]}
    assert Decimal(policies["catalog-at-submission"]["usd"]) == Decimal("0.03") * Decimal("24.00")
    assert "24.000000 USD/h" in policies["catalog-at-submission"]["arithmetic"]
    assert detail["price_warning"] and "10 %" in detail["price_warning"]
    assert detail["hardware_match"]["instance"] == "tc.gpu8"
    assert 'data-policy="catalog-today"' in html and "catalog_price_mismatch" in html


def test_the_entry_api_gives_each_cost_without_padding_zeros(client, board):
    # 0.03 h at the claimed 1.00 USD/h and at the catalog's 24.00 USD/h; stored, the first reads 0.030000...
    detail = client.get(f"/api/v1/entries/{board['claims-cheap']}/").json()

    usd = {cost["policy"]: cost["usd"] for cost in detail["cost_policies"]}
    assert usd["as-submitted"] == "0.03"
    assert usd["catalog-at-submission"] == "0.72"
