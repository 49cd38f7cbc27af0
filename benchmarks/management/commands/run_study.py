"""`manage.py run_study TASK --vary SETTING=V1,V2,...`: one of the DAWNBench paper's studies on the algorithm track
(`benchmarks.algorithms.study`), stored (`benchmarks.services.study_create`) and shown at /studies/<id>/."""

from __future__ import annotations

import json

import torch
from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse

from benchmarks.algorithms.study import SETTINGS, TASK_WORKLOADS, StudyError, run_study, study_plan, study_target
from benchmarks.services import study_create
from benchmarks.workloads.base import DatasetMissing
from dawnboard.algorithms.studies import value_summaries


class Command(BaseCommand):
    help = "Vary one setting of a workload (batch size or algorithm) and time each value's runs to the target."

    def add_arguments(self, parser):
        parser.add_argument("task", help=f"A workload of the suites, or a task: {', '.join(TASK_WORKLOADS)}.")
        parser.add_argument(
            "--vary", required=True, metavar="SETTING=V1,V2,...", help=f"One of {', '.join(SETTINGS)} and its values."
        )
        parser.add_argument("--runs", type=int, default=3, help="Runs (seeds 0..N-1) a value (default 3).")
        parser.add_argument("--algorithm", default="adamw", help="The algorithm of a batch-size study (default adamw).")
        parser.add_argument("--data-dir", help="The data the gpu suite's workloads read (never downloaded).")
        parser.add_argument("--threads", type=int, help="torch threads (default: torch's).")
        parser.add_argument("--json", action="store_true", help="Print one JSON document and nothing else.")

    def handle(self, *args, **options):
        try:
            plan = study_plan(task=options["task"], vary=options["vary"], runs=options["runs"],
                              algorithm=options["algorithm"])  # fmt: skip
            progress = None if options["json"] else (lambda label: self.stderr.write(f"  running {label}"))
            runs = run_study(plan, data_dir=options["data_dir"], threads=options["threads"], progress=progress)
        except StudyError as error:
            raise CommandError(f"{error.code}: {error}") from None
        except DatasetMissing as error:
            raise CommandError(f"dataset_missing: {error}") from None
        machine = {"torch": torch.__version__, "threads": options["threads"] or torch.get_num_threads(),
                   "device": "cuda" if torch.cuda.is_available() else "cpu"}  # fmt: skip
        study = study_create(
            workload=plan.workload, setting=plan.setting, values=list(plan.values), algorithm=plan.algorithm,
            runs_per_value=plan.runs, target=study_target(plan), runs=[run.as_dict() for run in runs], machine=machine,
        )  # fmt: skip
        url = reverse("benchmarks:study", args=[study.id])
        summaries = value_summaries(study.values, study.runs)
        if options["json"]:
            document = {
                "study_id": study.id,
                "url": url,
                "workload": study.workload,
                "setting": study.setting,
                "values": study.values,
                "target": study.target,
                "summary": summaries,
                "runs": study.runs,
            }
            self.stdout.write(json.dumps(document, indent=2))
            return
        self.stdout.write(f"study {study.id}: {study.setting} on {study.workload}, {plan.runs} run(s) a value; {url}")
        for row in summaries:
            time, epochs = row["median_time_to_target_s"], row["median_epochs_to_target"]
            self.stdout.write(
                f"  {study.setting}={row['value']}: reached {row['reached']} of {row['runs']}, median "
                + ("not reached" if time is None else f"{time:.2f} s, {epochs:.2f} epochs")
                + f", {row['median_throughput_examples_per_s']:.0f} examples/s"
            )
