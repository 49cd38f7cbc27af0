"""What a finished run leaves behind: the DAWNBench entry and log (written by the rules package's writers),
the same log in MLPerf's MLLOG format, the weights, and `run.json`, the record of how and where it ran
(with the machine's load over the run: a time measured while other work held the cores is not comparable)."""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import torch

from benchmarks.runner.config import Device
from benchmarks.runner.loop import RunResult
from benchmarks.runner.mlperf_log import mllog_bytes
from dawnboard.documents import priced_as_hardware
from dawnboard.formats.dawnbench import write_entry, write_training_log
from dawnboard.recipes import recipe_named
from dawnboard.rules import current_rules
from dawnboard.scoring import HourlyPrice, hours_of

REPOSITORY_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_AUTHOR = "Dawnboard reference job"
DEFAULT_AUTHOR_EMAIL = "reference-runs@dawnboard.invalid"
LIBRARIES = ("torch", "numpy", "scikit-learn", "pillow", "onnxruntime")


@dataclass(frozen=True)
class WrittenRun:
    """The files of one run and their contents (the entry and log bytes are what a submission uploads)."""

    directory: Path
    name: str
    entry_bytes: bytes
    log_bytes: bytes
    record: dict[str, Any]
    mllog_bytes: bytes = b""  # the log as MLPerf MLLOG lines, timed by the same clock as the TSV

    @property
    def paths(self) -> dict[str, str]:
        return {
            "entry": str(self.directory / f"{self.name}.json"),
            "log": str(self.directory / f"{self.name}.tsv"),
            "mllog": str(self.directory / f"{self.name}.mllog"),
            "weights": str(self.directory / f"{self.name}.pt"),
            "record": str(self.directory / "run.json"),
        }


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_facts(device_type: str, world_size: int = 1) -> dict[str, Any]:
    """The hardware a run used, as the run record keeps it: the GPUs it trained on, not all the host has."""
    on_cuda = device_type == Device.CUDA and torch.cuda.is_available()
    return {
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "gpu_model": torch.cuda.get_device_name(torch.cuda.current_device()) if on_cuda else None,
        "gpu_count": world_size if on_cuda else 0,
        "threads": torch.get_num_threads(),
        "platform": platform.platform(),
    }


def hardware_text(facts: dict[str, Any], world_size: int) -> str:
    """The entry's `hardware` field, e.g. "1 x NVIDIA H100 80GB HBM3" or "2 CPU cores (AMD EPYC 7B13)"."""
    if facts["gpu_model"]:
        return f"{world_size} x {facts['gpu_model']}"
    return f"{facts['cpu_count']} CPU cores ({facts['cpu_model']})"


def library_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {"python": sys.version.split()[0]}
    for name in LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def git_commit() -> str | None:
    """The commit the job's code is at, with "-dirty" when the work tree differs from it."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=REPOSITORY_ROOT, capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=REPOSITORY_ROOT,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{commit}-dirty" if changed else commit


def run_name(result: RunResult) -> str:
    return f"{result.config.task}_{result.config.recipe}_seed{result.config.seed}"


def entry_document(
    result: RunResult, facts: dict[str, Any], *, author: str, author_email: str, priced_as: HourlyPrice | None = None
) -> dict[str, Any]:
    """The DAWNBench v1.0 entry of a run. Without `priced_as`, no `costPerHour`: the board prices the hardware from
    its catalog where it knows it. With it, `costPerHour` is that instance's price and `hardware` names it after
    the machine measured ("2 CPU cores (AMD EPYC 7B13), priced as aws/c5.large", which the resolver matches)."""
    recipe = recipe_named(result.config.task, result.config.recipe)
    hardware = hardware_text(facts, result.processes.world_size)
    document = {
        "version": current_rules(result.config.task).version,
        "author": author,
        "authorEmail": author_email,
        "framework": f"PyTorch {torch.__version__}",
        "model": recipe.model,
        "hardware": priced_as_hardware(hardware, priced_as.instance if priced_as else None),
        "timestamp": datetime.now(UTC).date().isoformat(),
        "commitHash": git_commit() or "",
        "misc": {
            "reference recipe": f"{recipe.task_slug}/{recipe.name}",
            "command": result.config.command,
            "seed": result.config.seed,
            "echo factor": result.config.echo_factor,
        },
    }
    if priced_as is not None:
        document["costPerHour"] = float(priced_as.usd_per_hour)
        document["misc"]["price"] = priced_as.source
    return document


def log_rows(result: RunResult) -> list[tuple[int, float, float]]:
    """One row per evaluation: epoch, hours of training so far, quality in the task's scale."""
    return [(point.epoch, hours_of(point.training_seconds), point.quality) for point in result.evaluations]


def run_record(result: RunResult, facts: dict[str, Any], *, started_at: datetime) -> dict[str, Any]:
    recipe = recipe_named(result.config.task, result.config.recipe)
    reproduces = result.config.runs_the_recipe_as_published
    return {
        "task": result.config.task,
        "recipe": result.config.recipe,
        "command": result.config.command,
        "config": result.config.as_dict(),
        "recipe_config": _plain(result.recipe_config),
        "data": _plain(result.data_summary),
        "seed": result.config.seed,
        "threshold": result.threshold,
        "reached": result.reached,
        "time_to_accuracy_seconds": result.time_to_accuracy_seconds,
        "epochs_to_accuracy": result.epochs_to_accuracy,
        "training_seconds": result.training_seconds,
        "steps_per_epoch": result.steps_per_epoch,
        "fresh_examples": result.fresh_examples,
        "echo": {"factor": result.config.echo_factor, "stage": str(result.config.echo_stage)},
        "processes": dataclasses.asdict(result.processes),
        "machine": {**facts, "threads": result.threads},
        "versions": library_versions(),
        "git_commit": git_commit(),
        # Only a run of the recipe as published reproduces its seed entries (and is linked to one on the board).
        "reproduces": recipe.reproduces[0] if recipe.reproduces and reproduces else None,
        "reproduces_any_of": list(recipe.reproduces) if reproduces else [],
        "curve": [dataclasses.asdict(point) for point in result.evaluations],
        "phases": dataclasses.asdict(result.phases),
        "machine_load": result.machine_load.as_dict(),
        "started_at": started_at.isoformat(),
        "finished_at": datetime.now(UTC).isoformat(),
    }


def run_write(
    result: RunResult,
    directory: Path,
    *,
    started_at: datetime,
    author: str = DEFAULT_AUTHOR,
    author_email: str = DEFAULT_AUTHOR_EMAIL,
    priced_as: HourlyPrice | None = None,
) -> WrittenRun:
    """Write the entry, the log (as a DAWNBench TSV and as MLLOG), the weights and run.json into `directory`
    (created if need be)."""
    directory.mkdir(parents=True, exist_ok=True)
    facts = machine_facts(result.config.device, result.processes.world_size)
    name = run_name(result)
    entry_bytes = write_entry(
        entry_document(result, facts, author=author, author_email=author_email, priced_as=priced_as)
    )
    log_bytes = write_training_log(log_rows(result), metric_column=current_rules(result.config.task).log_column)
    record = run_record(result, facts, started_at=started_at)
    written = WrittenRun(
        directory=directory,
        name=name,
        entry_bytes=entry_bytes,
        log_bytes=log_bytes,
        record=record,
        mllog_bytes=mllog_bytes(result, platform=hardware_text(facts, result.processes.world_size)),
    )
    paths = written.paths
    Path(paths["entry"]).write_bytes(entry_bytes)
    Path(paths["log"]).write_bytes(log_bytes)
    Path(paths["mllog"]).write_bytes(written.mllog_bytes)
    torch.save(
        {"state_dict": {key: value.cpu() for key, value in result.model.state_dict().items()}, "config": record},
        paths["weights"],
    )
    Path(paths["record"]).write_text(json.dumps({**record, "files": paths}, indent=2) + "\n")
    return written


def _plain(value: Any) -> Any:
    """JSON and `weights_only` loading both take only plain values: paths become text."""
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)
