""".venv/bin/python manage.py run_reference TASK [--recipe NAME] [--data-dir DIR] [--device cpu|cuda] [--seed S]
[--runs N] [--max-epochs E] [--echo-factor F --echo-stage example|batch] [--instance NAME|auto --provider P]
[--out DIR] [--submit] [--only-if-missing] [--json]

The training stack (torch) is imported once a run starts: `--help`, a refused recipe and `--only-if-missing` on a
board that has its entry (what `make run` does each time) answer without it.
"""

from __future__ import annotations

import datetime
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from benchmarks.runner.config import Device, EchoStage, RunConfig
from benchmarks.services import reference_runs_submit
from dawnboard import display
from dawnboard.recipes import RECIPES, recipe_named, recipes_of
from dawnboard.rules import Scale, Track, current_rules
from dawnboard.scoring import HourlyPrice
from leaderboard.models import Entry
from pricing.selectors import PriceLookupError, on_demand_price

if TYPE_CHECKING:
    from benchmarks.runner.loop import Progress

TASKS = tuple(dict.fromkeys(recipe.task_slug for recipe in RECIPES))  # in the catalog's order


def _priced_as(instance: str | None, provider: str | None) -> HourlyPrice | None:
    """The catalog instance to price the run as, looked up before it trains; None when none is asked for."""
    if instance is None:
        return None
    if not provider:
        raise CommandError("--instance needs --provider.")
    try:
        return on_demand_price(instance=instance, provider=provider, day=datetime.date.today(), vcpus=os.cpu_count())
    except PriceLookupError as error:
        raise CommandError(f"{error.code}: {error.message}") from None


class Command(BaseCommand):
    help = "Train a reference recipe to its task's threshold, write a DAWNBench entry, and optionally submit it."

    def add_arguments(self, parser):
        parser.add_argument("task", choices=sorted(TASKS))
        parser.add_argument("--recipe", help=f"One of the task's recipes: {recipe_choices()}. Its first when left out.")
        parser.add_argument("--data-dir", type=Path, help="Where the task's dataset is (digits needs none).")
        parser.add_argument("--device", choices=[device.value for device in Device], default=Device.CPU.value)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--runs", type=int, default=1, help="Repeat with seeds S .. S+N-1 and summarise.")
        parser.add_argument("--max-epochs", type=int, help="Stop here if the threshold is not reached before.")
        parser.add_argument("--echo-factor", type=int, default=1, help="Data echoing: use each upstream item F times.")
        parser.add_argument(
            "--echo-stage", choices=[stage.value for stage in EchoStage], default=EchoStage.EXAMPLE.value
        )
        parser.add_argument("--embeddings", type=Path, help="squad/bidaf: GloVe vectors (text format) to start from.")
        parser.add_argument(
            "--instance",
            help="Price the entry as this catalog instance (its on-demand price today as costPerHour); auto: the"
            " provider's CPU instance of this machine's vCPU count (aws: c5). Default: no costPerHour.",
        )
        parser.add_argument("--provider", help="The instance's provider (aws, gcp, azure, ...)")
        parser.add_argument("--out", type=Path, help="Default: runs/<task>-<recipe>-<utc time>/.")
        parser.add_argument(
            "--submit", action="store_true", help="Enter the runs into the board as one entry of N runs."
        )
        parser.add_argument(
            "--only-if-missing",
            action="store_true",
            help="Do nothing when the board already has an accepted entry of this task (what `make run` uses).",
        )
        parser.add_argument("--json", action="store_true", help="Print one JSON document and nothing else.")

    def handle(self, *args, **options):
        try:
            recipe = recipe_named(options["task"], options["recipe"])
        except KeyError:
            known = ", ".join(other.name for other in RECIPES if other.task_slug == options["task"])
            message = f"The task {options['task']} has no recipe {options['recipe']!r}; its recipes: {known}."
            raise CommandError(message) from None
        trained = Entry.objects.accepted().filter(task__slug=recipe.task_slug, track=Track.TRAIN)
        if options["only_if_missing"] and trained.exists():
            skipped = f"The board already has a {recipe.task_slug} training entry; nothing was run."
            self.stdout.write(json.dumps({"skipped": skipped, "runs": []}) if options["json"] else skipped)
            return
        if options["runs"] < 1:
            raise CommandError("--runs must be at least 1.")
        priced_as = _priced_as(options["instance"], options["provider"])
        from benchmarks.runner.distributed import (  # torch, from here on: a run starts
            exit_after_distributed_run,
            process_group_stop,
            processes_from_environment,
        )
        from benchmarks.runner.job import default_out_dir, reference_runs, runs_summary
        from benchmarks.workloads.base import DatasetMissing

        scale = current_rules(recipe.task_slug).scale
        bars = None if options["json"] else ProgressBars(scale)
        try:
            config = RunConfig(
                task=recipe.task_slug,
                recipe=recipe.name,
                data_dir=options["data_dir"],
                device=Device(options["device"]),
                seed=options["seed"],
                max_epochs=options["max_epochs"],
                echo_factor=options["echo_factor"],
                echo_stage=EchoStage(options["echo_stage"]),
                overrides={"embeddings": str(options["embeddings"])} if options["embeddings"] else {},
            )
            out_dir = options["out"] or default_out_dir(config)
            reports = reference_runs(
                config,
                options["runs"],
                out_dir,
                progress_for=bars.for_seed if bars else lambda seed: None,
                priced_as=priced_as,
            )
        except (DatasetMissing, ValueError, RuntimeError) as error:
            raise CommandError(str(error)) from None
        finally:
            if bars is not None:
                bars.close()
            process_group_stop()
        if reports and reports[0].written is None:  # a worker process under torchrun: the main process reports
            exit_after_distributed_run(processes_from_environment())
            return
        runs = [report.as_dict() for report in reports]
        document = {"task": config.task, "recipe": config.recipe, "runs": runs, "summary": runs_summary(reports)}
        if options["submit"]:
            document["submission"] = self._submit(reports)
        if options["json"]:
            self.stdout.write(json.dumps(document, indent=2))
        else:
            self._summarise(document)
        exit_after_distributed_run(processes_from_environment())

    def _submit(self, reports: list) -> dict:
        """One entry of every run (those that missed the threshold count as failed); none when no run reached it
        or the board refuses a run's files."""
        if not any(report.submittable for report in reports):
            return {"status": "not submitted", "reason": "no run reached the threshold with files the board takes"}
        refused = [report for report in reports if report.result.reached and not report.submittable]
        if refused:
            return {"status": "not submitted", "reason": "the board refuses the files of a run that reached it"}
        return reference_runs_submit(written=[report.written for report in reports]).summary()

    def _summarise(self, document: dict) -> None:
        """The runs for people, every figure written by `dawnboard.display` (`--json` keeps them raw)."""
        for run in document["runs"]:
            if run["reached"] and run["results"] is None:  # trained to the threshold, yet its files are refused
                codes = ", ".join(f"{error['code']}: {error['message']}" for error in run["errors"])
                line = f"seed {run['seed']}: reached the threshold, but the board refuses its files; {codes}"
            elif run["reached"]:
                line = (
                    f"seed {run['seed']}: reached the threshold after {display.epoch(run['epochs_to_accuracy'])} "
                    f"epochs, {display.duration(run['results']['time_to_accuracy_seconds'])} of training "
                    "(as the board reads the log)."
                )
            else:
                line = f"seed {run['seed']}: did not reach the threshold; not submittable."
            self.stdout.write(line)
            self.stdout.write(f"  wrote {run['paths']['entry']}, .tsv, .mllog, .pt and {run['paths']['record']}")
            if run.get("busy"):
                self.stdout.write(_busy_line(run["machine_load"]))
        submission = document.get("submission")
        if submission:
            runs = len(document["runs"])
            detail = submission.get("reason") or f"entry {submission.get('entry_id')}"
            self.stdout.write(
                f"submitted {runs} run{'s' if runs > 1 else ''} as one entry: {submission['status']} ({detail})"
            )
        summary = document["summary"]
        if summary["runs"] > 1:
            times, epochs = summary["time_to_accuracy_seconds"], summary["epochs_to_accuracy"]
            self.stdout.write(f"{summary['reached']} of {summary['runs']} runs reached the threshold.")
            if times["median"] is not None:
                self.stdout.write(
                    f"time to accuracy: median {display.duration(times['median'])}, "
                    f"coefficient of variation {display.share(times['coefficient_of_variation'])}; "
                    f"epochs: median {display.epoch(epochs['median'])}, "
                    f"coefficient of variation {display.share(epochs['coefficient_of_variation'])}"
                )


def recipe_choices() -> str:
    """What `--recipe` takes, task by task: "cnn (digits), resnet9, resnet164 (cifar10), ..."."""
    return ", ".join(
        f"{', '.join(recipe.name for recipe in recipes_of(task_slug))} ({task_slug})" for task_slug in TASKS
    )


def _busy_line(machine_load: dict) -> str:
    """The warning under a run that other work slowed: its 1-minute load average (the higher of the run's
    start and end) on the CPUs the job could use, and the CPU time others took from it where known."""
    load = max(machine_load["load_average_start"][0], machine_load["load_average_end"][0])
    other = machine_load.get("other_cpu_seconds")
    taken = f", others took {display.significant(other, 2)} CPU-seconds" if other is not None else ""
    cpus = machine_load["cpu_count"]
    return (
        f"  measured while other work held the cores (load {display.significant(load, 2)} on {cpus} CPUs{taken}): "
        "the time is not comparable"
    )


class ProgressBars:
    """Two tqdm bars on stderr: epochs, and the steps of the current epoch with the latest quality (in the
    task's scale, as `dawnboard.display` writes it)."""

    def __init__(self, scale: Scale):
        self.scale = scale
        self.epochs: tqdm | None = None
        self.steps: tqdm | None = None
        self.seed = 0

    def for_seed(self, seed: int):
        self.close()
        self.seed = seed
        return self.update

    def update(self, progress: Progress) -> None:
        if self.epochs is None:
            self.epochs = tqdm(total=progress.epochs, desc=f"seed {self.seed}", unit="epoch", position=0)
            self.steps = tqdm(total=progress.steps_per_epoch, desc="steps", unit="step", position=1, leave=False)
        if progress.evaluated:
            self.epochs.set_postfix(quality=display.accuracy(progress.quality, self.scale), refresh=False)
            self.epochs.update(1)
            return
        if progress.step < self.steps.n:  # a new epoch
            self.steps.reset(total=progress.steps_per_epoch)
        self.steps.update(progress.step - self.steps.n)  # tqdm redraws at most every 0.1 s

    def close(self) -> None:
        for bar in (self.steps, self.epochs):
            if bar is not None:
                bar.close()
        self.epochs = self.steps = None
