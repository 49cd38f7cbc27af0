"""What a reference run's record (its run.json) adds to a verdict: the machine's load while each run was timed.

A submission of several reference runs keeps their records as `{"runs": [record, ...]}`, one per log in order;
one run keeps its record as it is. A run timed while other work held the cores is flagged
(`measured_while_busy`): its time is not comparable, and the entry says so.
"""

from __future__ import annotations

from dataclasses import replace

from dawnboard.errors import Issue, WarningCode
from dawnboard.validation import IngestRejection, IngestResult, log_field


def run_records(run_record: dict | None) -> list[dict]:
    """The record of each run, in the order of the logs."""
    if not run_record:
        return []
    if isinstance(run_record.get("runs"), list):
        return [record if isinstance(record, dict) else {} for record in run_record["runs"]]
    return [run_record]


def machine_loads(run_record: dict | None) -> list[dict | None]:
    """The machine's load during each run, as its record keeps it (None where it keeps none)."""
    return [
        record.get("machine_load") if isinstance(record.get("machine_load"), dict) else None
        for record in run_records(run_record)
    ]


def with_machine_load(
    verdict: IngestResult | IngestRejection, run_record: dict | None
) -> IngestResult | IngestRejection:
    """The verdict, with a `measured_while_busy` warning for each run its record says was timed on a busy machine."""
    busy = [position for position, load in enumerate(machine_loads(run_record)) if load and load.get("busy")]
    if not busy:
        return verdict
    several = len(run_records(run_record)) > 1
    notes = [
        Issue(
            WarningCode.MEASURED_WHILE_BUSY,
            f"Run {position + 1} was timed while other work held the machine's cores "
            f"({_load_words(machine_loads(run_record)[position])}): its time is not comparable.",
            field=log_field(position, several),
        )
        for position in busy
    ]
    return replace(verdict, warnings=verdict.warnings + notes)


def _load_words(load: dict) -> str:
    average, cpus = load.get("load_average_start"), load.get("cpu_count")
    if isinstance(average, (int, float)) and isinstance(cpus, int):
        return f"load {average:.1f} on {cpus} CPUs"
    return "as its record says"
