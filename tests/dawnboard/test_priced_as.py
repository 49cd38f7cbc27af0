"""The `hardware` text of a run priced as a catalog instance: written by Dawnboard's jobs, read back for the entry
page, and anything else left alone."""

from __future__ import annotations

import pytest

from dawnboard.documents import priced_as_hardware, priced_as_parts


def test_a_priced_run_names_the_machine_then_the_instance_and_reads_back():
    hardware = priced_as_hardware("2 CPU cores (AMD EPYC 7B13)", "aws/c5.large")

    assert hardware == "2 CPU cores (AMD EPYC 7B13), priced as aws/c5.large"
    assert priced_as_parts(hardware) == ("2 CPU cores (AMD EPYC 7B13)", "aws/c5.large")
    assert priced_as_hardware("1 x NVIDIA H100 80GB HBM3", None) == "1 x NVIDIA H100 80GB HBM3"


@pytest.mark.parametrize(
    "hardware",
    ["8 x V100 (AWS p3.16xlarge)", ", priced as aws/c5.large", "a laptop, priced as cheap", "2 cores, priced as "],
)
def test_other_hardware_texts_are_not_read_as_priced(hardware):
    assert priced_as_parts(hardware) is None
