"""Energy and carbon estimates of a training run, with every factor named.

energy (kWh) = (accelerator board power x accelerators + host power) x hours x PUE / 1000
carbon (kg CO2e) = energy x grid intensity (g CO2e / kWh) / 1000
Host power follows the Cloud Carbon Footprint methodology's coefficients for the upper bound of a
busy machine: 3.5 W per vCPU and 0.392 W per GiB of memory
(https://www.cloudcarbonfootprint.org/docs/methodology/).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from dawnboard.scoring import hours_of

WATTS_PER_VCPU = Decimal("3.5")
WATTS_PER_GIB = Decimal("0.392")
HOST_SOURCE = "https://www.cloudcarbonfootprint.org/docs/methodology/"


@dataclass(frozen=True)
class Footprint:
    hours: Decimal
    accelerator_watts: Decimal
    host_watts: Decimal
    pue: Decimal
    energy_kwh: Decimal
    grams_co2e_per_kwh: Decimal | None
    carbon_kg: Decimal | None


def training_footprint(
    *,
    seconds: Decimal,
    board_power_watts: Decimal,
    accelerator_count: int,
    vcpus: int,
    memory_gib: Decimal,
    instance_count: int,
    pue: Decimal,
    grams_co2e_per_kwh: Decimal | None,
) -> Footprint:
    hours = hours_of(seconds)
    accelerator_watts = board_power_watts * accelerator_count * instance_count
    host_watts = (WATTS_PER_VCPU * vcpus + WATTS_PER_GIB * memory_gib) * instance_count
    energy_kwh = (accelerator_watts + host_watts) * hours * pue / 1000
    carbon_kg = None if grams_co2e_per_kwh is None else energy_kwh * grams_co2e_per_kwh / 1000
    return Footprint(hours, accelerator_watts, host_watts, pue, energy_kwh, grams_co2e_per_kwh, carbon_kg)
