"""The bundled catalog's sourced prices at the dates the public DAWNBench sample needs them (issue 13)."""

from __future__ import annotations

import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command

from leaderboard.models import Entry
from leaderboard.selectors import entry_accounting
from tests.factories import submit_training_entry

pytestmark = pytest.mark.django_db
PRICE_LIST_2016 = "jeffgodwyll/nanobox-googlecloud-adapter/blob/daed04b528e5f5526a4bda2df0329179613451aa/pricelist.json"


def quote(instance: str, provider: str, on: str) -> dict:
    out = StringIO()
    call_command("price", instance, "--provider", provider, "--on", on, "--json", stdout=out)
    return json.loads(out.getvalue())


def training_cost_count(cost_basis: str) -> int:
    out = StringIO()
    call_command("leaderboard", "cifar10", "training-cost", "--cost-basis", cost_basis, "--json", stdout=out)
    return json.loads(out.getvalue())["count"]


def test_google_n1_machines_of_2017_are_priced_from_the_2016_price_list():
    """0.050 per vCPU from the 2016 list until 2018-03-25, the earliest day a source puts it at 0.0475 (Google's own
    DAWNBench entry: 6.595 = 6.50 for the TPU + 0.095 for an n1-standard-2)."""
    in_2017 = quote("n1-standard-16", "gcp", "2017-10-11")
    in_2018 = quote("n1-standard-16", "gcp", "2018-03-25")

    assert (in_2017["usd_per_hour"], in_2017["valid_from"], in_2017["valid_to"]) == (
        "0.800000",
        "2016-11-30",
        "2018-03-25",
    )
    assert PRICE_LIST_2016 in in_2017["source"]
    assert in_2018["usd_per_hour"] == "0.760000"
    assert quote("n1-standard-2", "gcp", "2018-03-25")["usd_per_hour"] == "0.095000"


def test_the_g3_machines_of_the_swapped_imagenet_prices_are_in_the_catalog():
    """Two public ImageNet entries state each other's price: p2.8xlarge 4.56 (g3.16xlarge's) and g3.16xlarge 7.20."""
    assert quote("g3.16xlarge", "aws", "2019-03-11")["usd_per_hour"] == "4.560000"
    assert quote("p2.8xlarge", "aws", "2019-03-11")["usd_per_hour"] == "7.200000"


def test_a_cloud_tpu_v2_costs_4_50_from_mid_2018():
    assert quote("tpu-v2-8", "gcp", "2018-03-25")["usd_per_hour"] == "6.500000"
    assert quote("tpu-v2-8", "gcp", "2018-09-29")["usd_per_hour"] == "4.500000"


def test_the_catalog_prices_nineteen_of_the_twenty_sample_entries_that_state_a_cost(sample_dir):
    """At each entry's date. Not the twentieth: Baidu's 8 x V100 machine, for which no public price was found
    (its entry states 8.5058, about eight times the one-GPU machine's monthly price)."""
    call_command("import_dawnbench", str(sample_dir), stdout=StringIO())

    assert training_cost_count("as-submitted") == 20
    assert training_cost_count("catalog-at-submission") == 19


def test_baidus_v100_machine_is_priced_by_the_month_in_cny(submit):
    """5129 CNY a month at 6.70 CNY per USD (the rate its user stated), over 720 hours."""
    entry = submit("Baidu Cloud Tesla V100*1-16GB/56 GB/12 CPU", 1.0632, "2019-05-07")

    accounting = entry_accounting(entry)
    at_submission = {cost.policy: cost for cost in accounting.costs}["catalog-at-submission"]

    assert Decimal(5129) / Decimal("6.70") / 720 == Decimal("1.063225538971807628524046434")
    assert at_submission.usd == Decimal("0.03") * Decimal("1.063225539")  # shown to the catalog's 9 places here
    assert "monthly" in at_submission.arithmetic and "5129 CNY per month at 6.7 CNY per USD / 720 h" in (
        at_submission.arithmetic
    )
    assert accounting.price_warning is None  # the entry's 1.0632 is that price


def test_a_google_k80_entry_of_the_sample_is_priced_by_its_parts_at_its_date(submit):
    """'1 K80 / 30 GB / 8 CPU (Google Cloud)': the n1-standard-8 machine type (8 vCPUs, 30 GB) and one K80 GPU,
    each at its price on 2017-10-11: 0.40 (the 2016 price list) + 0.45 (after the cut of 2017-09-21)."""
    entry = submit("1 K80 / 30 GB / 8 CPU (Google Cloud)", 0.967, "2017-10-11")

    costs = {cost.policy: cost for cost in entry_accounting(entry).costs}

    at_submission = costs["catalog-at-submission"]
    assert at_submission.usd == Decimal("0.03") * Decimal("0.85")  # the log crosses at 0.03 h
    assert "1 x 0.400000 (n1-standard-8) + 1 x 0.450000 (gpu-nvidia-tesla-k80) = 0.850000 USD/h" in (
        at_submission.arithmetic
    )


def test_a_google_machine_of_no_predefined_shape_is_priced_per_vcpu_and_per_gb(submit):
    """6 vCPUs and 20 GB are no n1 machine type: 6 x 0.03492 + 20 x 0.00468 + 2 x 0.45 on 2017-10-11."""
    entry = submit("2 K80 / 20 GB / 6 CPU (Google Cloud)", 1.2, "2017-10-11")

    at_submission = {cost.policy: cost for cost in entry_accounting(entry).costs}["catalog-at-submission"]

    per_hour = 6 * Decimal("0.03492") + 20 * Decimal("0.00468") + 2 * Decimal("0.45")
    assert per_hour == Decimal("1.20312")
    assert at_submission.usd == Decimal("0.03") * per_hour


def test_a_sample_n1_entry_is_priced_by_its_named_machine_type(submit):
    entry = submit("60 GB / 16 CPU (Google Cloud [n1-standard-16])", 0.533, "2017-10-11")

    accounting = entry_accounting(entry)

    assert {cost.policy: cost.usd for cost in accounting.costs}["catalog-at-submission"] == Decimal("0.024")
    assert "0.800000 USD/h" in accounting.price_warning  # 0.533 is near 0.76 x 0.7 (sustained use), not 0.80


@pytest.fixture
def submit(tmp_path):
    def submit_entry(hardware: str, cost_per_hour: float, day: str) -> Entry:
        return submit_training_entry(tmp_path, hardware=hardware, costPerHour=cost_per_hour, timestamp=day)

    return submit_entry


def test_two_entries_stating_each_others_price_are_both_warned(submit):
    """Public ImageNet entries: the p2.8xlarge one states 4.56 (the g3.16xlarge's price), the g3.16xlarge one 7.20."""
    p2_with_g3_price = entry_accounting(submit("8 K80 (AWS [p2.8xlarge])", 4.56, "2019-06-01")).price_warning
    g3_with_p2_price = entry_accounting(submit("4 M60 (AWS [g3.16xlarge])", 7.20, "2019-06-01")).price_warning

    assert "7.2" in p2_with_g3_price and "p2.8xlarge" in p2_with_g3_price
    assert "4.56" in g3_with_p2_price and "g3.16xlarge" in g3_with_p2_price
    assert entry_accounting(submit("AWS g3.16xlarge", 4.56, "2019-06-01")).price_warning is None


def model_prices_of(entry: Entry) -> dict[str, tuple[Decimal | None, bool]]:
    return {price.model: (price.usd_per_hour, price.reproduces) for price in entry_accounting(entry).model_prices}


def test_the_entry_page_says_which_pricing_model_is_the_entrys_own_price(submit, client):
    baidu = submit("Baidu Cloud Tesla V100*1-16GB/56 GB/12 CPU", 1.0632, "2019-05-07")
    aws = submit("V100 (AWS p3.2xlarge)", 3.06, "2018-11-06")

    assert model_prices_of(baidu)["monthly"] == (Decimal("1.063225539"), True)
    assert model_prices_of(aws)["on-demand"] == (Decimal("3.060000"), True)
    assert model_prices_of(aws)["sustained-use"] == (None, False)  # only Google gives one
    page = client.get(f"/entries/{baidu.id}/").content.decode()
    assert "is the <strong>monthly</strong> price" in page


def test_a_google_machine_under_sustained_use_pays_0_7_of_its_vm_and_all_of_its_gpus(submit):
    """On 2017-10-11: 0.40 x 0.7 + 0.45. The DAWN entry states 0.967; 0.38 x 0.7 + 0.70 = 0.966 would give it, but
    no source puts the n1 cut to 0.38 before 2018, so no model reproduces it on its date nor in the year before
    (0.40 x 0.7 + 0.70 = 0.98 before the K80 cut)."""
    entry = submit("1 K80 / 30 GB / 8 CPU (Google Cloud)", 0.967, "2017-10-11")

    prices = model_prices_of(entry)

    assert prices["sustained-use"] == (Decimal("0.730000"), False)
    assert prices["on-demand"] == (Decimal("0.850000"), False)
    assert entry_accounting(entry).earlier_price is None


def test_resolve_hardware_reports_a_machine_priced_by_its_parts_as_resolved_and_says_why_others_are_not(submit):
    by_parts = submit("1 K80 / 30 GB / 8 CPU (Google Cloud)", 0.967, "2017-10-11")
    kakao = submit("Tesla V100 * 1 GPU / 488 GB / 56 CPU (Kakao Brain BrainCloud)", 1.0, "2019-10-15")
    out = StringIO()

    call_command("resolve_hardware", "--json", stdout=out)

    rows = {row["entry_id"]: row for row in json.loads(out.getvalue())["entries"]}
    assert rows[by_parts.id]["resolved"] and len(rows[by_parts.id]["parts"]) == 2
    assert not rows[kakao.id]["resolved"] and "Kakao Brain BrainCloud publishes no prices" in rows[kakao.id]["reason"]


def test_alibabas_gpu_machines_are_priced_as_their_users_quoted_them():
    """12.6 CNY an hour at 0.14 USD per CNY (#117), and 142.12 CNY given as 20.60 USD an hour (#131)."""
    t4 = quote("ecs.gn6i-c8g1.2xlarge", "alibaba", "2019-10-17")
    v100 = quote("ecs.gn6e-c12g1.24xlarge", "alibaba", "2020-03-10")

    assert t4["usd_per_hour"] == "1.764000"
    assert v100["usd_per_hour"] == "20.600000"


def test_a_machine_priced_by_its_parts_has_the_footprint_of_its_parts_added_up(submit):
    """1 K80 / 30 GB / 8 CPU (Google Cloud): the K80 part's board power, the n1-standard-8 part's vCPUs and memory."""
    entry = submit("1 K80 / 30 GB / 8 CPU (Google Cloud)", 0.967, "2017-10-11")

    footprint = entry_accounting(entry).footprint

    assert footprint["instance"] == "gcp 1 x n1-standard-8 + 1 x gpu-nvidia-tesla-k80"
    assert (footprint["accelerator"], footprint["accelerator_count"]) == ("K80", 1)
    assert footprint["accelerator_watts"] == 150.0  # one GK210 GPU, half a K80 board
    assert Decimal(str(footprint["host_watts"])) == Decimal("3.5") * 8 + Decimal("0.392") * 30


def test_googles_tpu_entries_are_their_host_vm_and_their_tpu_at_their_dates(submit):
    """dawn-bench-entries#10 (2018-03-25) states 6.595 and #58 (2018-09-29) 4.595 for an n1-standard-2 and a
    Cloud TPU v2: 0.095 + 6.50 and 0.095 + 4.50, each the on-demand price of its date. The first holds by
    construction (the n1-standard-2's 0.095 of that day is derived from it); the second checks it independently."""
    march = submit("GCP n1-standard-2, Cloud TPU v2", 6.595, "2018-03-25")
    september = submit("GCP n1-standard-2, Cloud TPU v2", 4.595, "2018-09-29")

    assert model_prices_of(march)["on-demand"] == (Decimal("6.595000"), True)
    assert model_prices_of(september)["on-demand"] == (Decimal("4.595000"), True)
    assert model_prices_of(march)["sustained-use"] == (Decimal("6.566500"), False)  # 0.095 x 0.7 + 6.50
    assert entry_accounting(march).price_warning is None
