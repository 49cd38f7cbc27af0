"""Pricing models as arithmetic: Google's sustained use, and when a model's price is the one an entry states."""

from decimal import Decimal

from pricing.domain.cost import REPRODUCES_WITHIN, reproduces, sustained_use_price


def test_sustained_use_takes_0_7_of_the_vm_and_nothing_off_the_gpus():
    # The 2017 DAWN entries on Google: n1-standard-8 at 0.38 used all month, and a K80 at 0.70.
    assert sustained_use_price(vm_usd_per_hour=Decimal("0.38"), gpu_usd_per_hour=Decimal("0.70")) == Decimal("0.966")
    assert sustained_use_price(vm_usd_per_hour=Decimal("0.76"), gpu_usd_per_hour=Decimal(0)) == Decimal("0.532")


def test_a_price_within_a_tenth_of_a_cent_reproduces_the_stated_one():
    assert REPRODUCES_WITHIN == Decimal("0.001")
    assert reproduces(Decimal("0.967"), Decimal("0.966"))
    assert not reproduces(Decimal("0.967"), Decimal("0.9659"))
    assert not reproduces(None, Decimal("0.966"))
