"""Entries priced by the catalog: hardware matches, cost policies, the price warning and footprints."""

import datetime
import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from leaderboard.models import Entry, HardwareMatch
from leaderboard.selectors import entry_accounting
from leaderboard.services import hardware_match_entry
from pricing.models import InstanceType
from pricing.services import prices_load
from tests.factories import entry_bytes, inference_document, training_log
from tests.pricing.catalog_text import BASE, ONE_GPU, catalog, row

pytestmark = pytest.mark.django_db

TODAY = datetime.date(2026, 11, 23)
HOURS = Decimal("0.03")  # the default training_log() crosses 94 % at 0.03 h


@pytest.fixture
def testcloud():
    prices_load(text=BASE)


@pytest.fixture
def submit(tmp_path, testcloud):
    def submit_entry(*, track="train", **fields) -> Entry:
        entry_path = tmp_path / "entry.json"
        if track == "train":
            entry_path.write_bytes(entry_bytes(**{"hardware": "1 V100 (TestCloud [tc.gpu1])", **fields}))
            (tmp_path / "log.tsv").write_bytes(training_log())
            files = [str(entry_path), str(tmp_path / "log.tsv")]
        else:
            entry_path.write_text(json.dumps(inference_document(**{"hardware": "TestCloud tc.gpu1", **fields})))
            files = [str(entry_path)]
        out = StringIO()
        call_command("submit", "--task", "cifar10", "--track", track, *files, "--json", stdout=out)
        return Entry.objects.get(id=json.loads(out.getvalue())["entry_id"])

    return submit_entry


def costs(entry) -> dict[str, Decimal | None]:
    return {cost.policy: cost.usd for cost in entry_accounting(Entry.objects.get(id=entry.id), today=TODAY).costs}


def entry_price_warning(entry) -> str | None:
    return entry_accounting(entry).price_warning


def entry_footprint(entry) -> dict | None:
    return entry_accounting(entry).footprint


def test_a_new_entry_is_matched_to_its_instance(submit):
    entry = submit()

    match = HardwareMatch.objects.get(entry=entry)
    assert (match.instance.name, match.instance_count) == ("tc.gpu1", 1)


def test_every_policy_on_a_training_entry(submit):
    entry = submit(costPerHour=3.3, timestamp="2018-05-01")
    prices_load(text=catalog(row(ONE_GPU, "on-demand", "2.50", "2020-01-01")))

    assert costs(entry) == {
        "as-submitted": HOURS * Decimal("3.3"),
        "catalog-at-submission": HOURS * Decimal("3.00"),
        "catalog-today": HOURS * Decimal("2.50"),
        "spot-today": HOURS * Decimal("0.90"),
    }


def test_a_price_change_leaves_an_old_entrys_catalog_at_submission_cost_alone(submit):
    entry = submit(timestamp="2018-05-01")
    before = costs(entry)["catalog-at-submission"]

    prices_load(text=catalog(row(ONE_GPU, "on-demand", "9.99", "2019-01-01")))

    assert costs(entry)["catalog-at-submission"] == before == HOURS * Decimal("3.00")
    assert costs(entry)["catalog-today"] == HOURS * Decimal("9.99")


def test_every_policy_on_an_inference_entry(submit):
    entry = submit(track="inference", latency=2.5, cost=2.5e-6)

    assert costs(entry) == {
        "as-submitted": Decimal("0.025"),
        # 2.5 ms x 10,000 x 3.00 USD/h / 3,600,000 ms/h recurs: a cost keeps the 20 places an entry stores.
        "catalog-at-submission": Decimal("0.02083333333333333333"),
        "catalog-today": Decimal("0.02083333333333333333"),
        "spot-today": Decimal("2.5") / 1000 * 10_000 * Decimal("0.90") / 3600,
    }


def test_several_instances_multiply_the_price(submit):
    entry = submit(hardware="2 tc.gpu8 (TestCloud)")

    assert HardwareMatch.objects.get(entry=entry).instance_count == 2
    assert costs(entry)["catalog-at-submission"] == HOURS * Decimal("24.00") * 2


def test_an_entry_dated_before_any_price_has_no_catalog_at_submission_cost(submit):
    entry = submit(timestamp="2016-01-01")

    assert costs(entry)["catalog-at-submission"] is None
    assert costs(entry)["catalog-today"] == HOURS * Decimal("3.00")


def test_an_unmatched_entry_has_only_its_own_cost(submit):
    entry = submit(hardware="DAWN Internal Cluster")

    assert costs(entry) == {
        "as-submitted": HOURS * Decimal("3.06"),
        "catalog-at-submission": None,
        "catalog-today": None,
        "spot-today": None,
    }


def test_a_claimed_price_over_ten_percent_off_the_catalog_is_warned(submit):
    assert entry_price_warning(submit(costPerHour=3.5)) is not None
    assert entry_price_warning(submit(costPerHour=3.2)) is None


def test_a_price_of_the_period_before_a_price_cut_is_named_when_none_gives_it_on_the_entrys_date(submit, client):
    """TestCloud: 3.00 from 2017-01-01, 2.00 from 2018-03-01 (and a spot price change between, which leaves the
    on-demand price alone). An entry dated 2018-05-01 stating 3.00 was priced before the cut; one stating 2.00 is
    priced on its date; one stating 5.00 matches no period."""
    prices_load(
        text=catalog(row(ONE_GPU, "spot", "0.80", "2017-06-01"), row(ONE_GPU, "on-demand", "2.00", "2018-03-01"))
    )
    before_cut = submit(costPerHour=3.0, timestamp="2018-05-01")
    after_cut = submit(costPerHour=2.0, timestamp="2018-05-01")
    none = submit(costPerHour=5.0, timestamp="2018-05-01")

    earlier = entry_accounting(before_cut).earlier_price

    assert (earlier.price.model, earlier.price.usd_per_hour) == ("on-demand", Decimal("3.000000"))
    assert (earlier.first_day, earlier.last_day) == (datetime.date(2017, 1, 1), datetime.date(2018, 2, 28))
    assert entry_accounting(after_cut).earlier_price is None
    assert entry_accounting(none).earlier_price is None
    api = client.get(f"/api/v1/entries/{before_cut.id}/").json()["pricing_model_before_date"]
    assert api == {
        "model": "on-demand",
        "usd_per_hour": "3.000000",
        "arithmetic": "1 x 3.000000 (tc.gpu1) = 3.000000 USD/h on 2018-02-28",
        "first_day": "2017-01-01",
        "last_day": "2018-02-28",
    }
    assert 'id="earlier-price"' in client.get(f"/entries/{before_cut.id}/").content.decode()


def test_a_price_more_than_a_year_before_the_entrys_date_is_not_looked_for(submit):
    prices_load(text=catalog(row(ONE_GPU, "on-demand", "2.00", "2018-03-01")))

    assert entry_accounting(submit(costPerHour=3.0, timestamp="2019-03-01")).earlier_price is None


def test_a_staff_match_survives_the_resolver(submit):
    entry = submit()
    eight = InstanceType.objects.get(name="tc.gpu8")
    HardwareMatch.objects.filter(entry=entry).update(instance=eight, instance_count=1, set_by_staff=True)

    hardware_match_entry(entry=entry)

    assert HardwareMatch.objects.get(entry=entry).instance == eight


def test_footprint_of_a_matched_training_entry(submit):
    entry = submit()

    footprint = entry_footprint(Entry.objects.get(id=entry.id))

    assert footprint["accelerator"] == "V100" and footprint["accelerator_count"] == 1
    expected_kwh = (
        (Decimal(str(footprint["accelerator_watts"])) + Decimal(str(footprint["host_watts"])))
        * HOURS
        * Decimal(str(footprint["pue"]))
        / 1000
    )
    assert footprint["energy_kwh"] == pytest.approx(float(expected_kwh))
    assert footprint["board_power_source"].startswith("http")


def test_entry_footprint_command_prints_json(submit):
    entry = submit()

    out = StringIO()
    call_command("entry_footprint", str(entry.id), "--json", stdout=out)

    document = json.loads(out.getvalue())
    assert document["entry_id"] == entry.id and document["energy_kwh"] > 0


def test_entry_footprint_refuses_an_unmatched_entry(submit):
    entry = submit(hardware="DAWN Internal Cluster")

    with pytest.raises(CommandError, match="no footprint"):
        call_command("entry_footprint", str(entry.id), stdout=StringIO())
