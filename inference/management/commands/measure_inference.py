""".venv/bin/python manage.py measure_inference TASK --model PATH [--backend onnxruntime|torch] [--data-dir DIR]
[--scenario single-stream|offline|server] [--quick] [--batch-size N] [--latency-bound-ms MS] [--device cpu|cuda]
[--threads N] [--warmup K] [--limit N] [--instance NAME --provider P | --cost-per-hour USD] [--out DIR]
[--submit] [--only-if-missing] [--json]"""

from __future__ import annotations

import json
import os
from decimal import Decimal, InvalidOperation
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from dawnboard import display
from dawnboard.recipes import RECIPES
from dawnboard.rules import Track, current_rules
from inference.errors import InferenceError
from inference.options import Backend, MeasureOptions, Scenario
from inference.services import measurement_execute
from leaderboard.models import Entry


class Command(BaseCommand):
    help = (
        "Measure a model through MLPerf LoadGen: every item once, one at a time (accuracy, DAWNBench's latency), "
        "then the scenario's test; report latency, throughput, accuracy and both costs."
    )

    def add_arguments(self, parser):
        parser.add_argument("task", choices=sorted({recipe.task_slug for recipe in RECIPES}))
        parser.add_argument("--model", type=Path, required=True, help="An .onnx file, or a .pt with --backend torch")
        parser.add_argument("--backend", choices=[backend.value for backend in Backend], default=Backend.ONNXRUNTIME)
        parser.add_argument("--data-dir", type=Path, help="Where the task's dataset is (digits needs none).")
        parser.add_argument(
            "--device",
            choices=["cpu", "cuda"],
            default="cpu",
            help="onnxruntime's execution provider: cpu (default), or cuda where onnxruntime-gpu is installed.",
        )
        parser.add_argument(
            "--threads", type=int, default=os.cpu_count() or 1, help="Intra-op threads of the backend (default: all)."
        )
        parser.add_argument(
            "--scenario",
            choices=[scenario.value for scenario in Scenario],
            default=Scenario.SINGLE_STREAM.value,
            help="LoadGen's test after the accuracy pass (default single-stream).",
        )
        parser.add_argument(
            "--quick",
            action="store_true",
            help="LoadGen's quick profile: as many queries as items, no minimum duration (MLPerf's: 600 s, 1024).",
        )
        parser.add_argument("--batch-size", type=int, help="Offline: items a call (default: the recipe's batch).")
        parser.add_argument("--latency-bound-ms", type=float, help="Server: the 99th percentile's bound, in ms.")
        parser.add_argument("--warmup", type=int, default=10, help="First items answered but not timed.")
        parser.add_argument("--limit", type=int, help="Answer only the first N items (the accuracy is theirs).")
        parser.add_argument(
            "--instance",
            help="Price at this catalog instance's on-demand price today; auto: the provider's CPU instance of this"
            " machine's vCPU count (aws: c5)",
        )
        parser.add_argument("--provider", help="The instance's provider (aws, gcp, azure, ...)")
        parser.add_argument("--cost-per-hour", help="Price at this many USD per hour instead")
        parser.add_argument("--out", type=Path, help="Default: runs/inference-<task>-<backend>/")
        parser.add_argument("--submit", action="store_true", help="Enter the entry on the board if it qualifies.")
        parser.add_argument(
            "--only-if-missing",
            action="store_true",
            help="Measure nothing when the board has an inference entry of the task already (what make run does).",
        )
        parser.add_argument("--json", action="store_true", help="Print one JSON document and nothing else.")

    def handle(self, *args, **options):
        if (
            options["only_if_missing"]
            and Entry.objects.accepted().filter(task__slug=options["task"], track=Track.INFERENCE).exists()
        ):
            self.stdout.write(f"The board already has a {options['task']} inference entry; nothing was measured.")
            return
        if options["instance"] and options["cost_per_hour"]:
            raise CommandError("Give --instance/--provider or --cost-per-hour, not both.")
        if options["instance"] and not options["provider"]:
            raise CommandError("--instance needs --provider.")
        if options["threads"] < 1 or options["warmup"] < 0 or (options["limit"] is not None and options["limit"] < 1):
            raise CommandError("--threads and --limit must be at least 1, --warmup at least 0.")
        cost_per_hour = _price(options["cost_per_hour"])
        try:
            options_ = MeasureOptions(
                task=options["task"],
                model=options["model"],
                backend=Backend(options["backend"]),
                data_dir=options["data_dir"],
                threads=options["threads"],
                warmup=options["warmup"],
                limit=options["limit"],
                scenario=Scenario(options["scenario"]),
                quick=options["quick"],
                batch_size=options["batch_size"],
                latency_bound_ms=options["latency_bound_ms"],
                device=options["device"],
            )
        except InferenceError as error:
            raise CommandError(str(error)) from None
        bar = None if options["json"] else tqdm(desc="items", unit="item")
        try:
            outcome = measurement_execute(
                options=options_,
                out_dir=options["out"],
                instance=options["instance"],
                provider=options["provider"],
                cost_per_hour=cost_per_hour,
                submit=options["submit"],
                progress=(lambda answered: bar.update(answered - bar.n)) if bar is not None else None,
            )
        except InferenceError as error:
            raise CommandError(str(error)) from None
        except ValueError as error:
            raise CommandError(str(error)) from None
        finally:
            if bar is not None:
                bar.close()
        if options["json"]:
            self.stdout.write(json.dumps(outcome.document, indent=2))  # the document and nothing else
        else:
            self._summarise(outcome.document, outcome.loadgen, outcome.scores)
        if outcome.submission is not None:  # the verdict, beside the document: on stderr
            self.stderr.write(f"submitted: {outcome.submission['status']} (entry {outcome.submission['entry_id']})")
        elif options["submit"] and outcome.errors:
            codes = ", ".join(f"{error['code']}: {error['message']}" for error in outcome.errors)
            raise CommandError(f"Not submitted. {codes}")

    def _summarise(self, document: dict, loadgen: dict, scores: dict) -> None:
        """The measurement for people, every figure written by `dawnboard.display` (`--json` keeps them raw)."""
        latency = document["latency_ms"]
        scale = current_rules(document["task"]).scale
        self.stdout.write(f"{document['task']} on {document['backend']}: {document['items']:,} items, one at a time")
        names = ("mean", "p50", "p90", "p99", "max")
        self.stdout.write("  latency " + "".join(f"{name:>12}" for name in names))
        self.stdout.write("          " + "".join(f"{display.latency_ms(latency[name]):>12}" for name in names))
        verdict = "meets" if document["meets_threshold"] else "is BELOW"
        self.stdout.write(
            f"  accuracy {display.accuracy(document['accuracy'], scale)} {verdict} the threshold "
            f"{display.threshold(document['threshold'], scale)}"
            + (
                f" (the official SQuAD v1.1 scores: exact match {display.accuracy(scores['exact_match'])}, F1 "
                f"{display.accuracy(scores['f1'])})"
                if "exact_match" in scores
                else ""
            )
        )
        self.stdout.write("  " + _loadgen_line(document, loadgen))
        if document["cost_usd_per_10k"] is not None:
            at_throughput = document["cost_usd_per_10k_at_throughput"]
            self.stdout.write(
                f"  cost {display.usd(document['cost_usd_per_10k'])} per 10,000 items one at a time"
                + (f", {display.usd(at_throughput)} at throughput" if at_throughput is not None else "")
                + f", at {display.number(document['price']['usd_per_hour'])} USD/h ({document['price']['source']})"
            )
        self.stdout.write(f"  wrote {document['entry_path']} and {document['record_path']}")


def _loadgen_line(document: dict, loadgen: dict) -> str:
    """LoadGen's test in one line: the scenario, its profile, its verdict and its figure."""
    settings = loadgen["settings"]
    verdict = "VALID" if loadgen["valid"] else "INVALID"
    head = f"LoadGen {document['scenario']} ({settings['profile']} profile): {verdict}"
    if document["scenario"] == "offline":
        return (
            f"{head}, {display.number(document['samples_per_second'])} samples/s in batches of {settings['batch_size']}"
        )
    if document["scenario"] == "server":
        tried = len(loadgen["server_tries"])
        held = document["queries_per_second"]
        rate = f"{display.number(held)} queries/s held" if held is not None else "no rate held"
        bound = display.latency_ms(settings["latency_bound_ms"])
        return f"{head}, {rate} under a p99 bound of {bound} ({tried} rates tried)"
    figures = loadgen["latency_ms"]
    return (
        f"{head}, {loadgen['query_count']:,} queries: p90 {display.latency_ms(figures.get('p90'))}, "
        f"early-stopping estimate {display.latency_ms(loadgen['early_stopping_p90_ms'])}"
    )


def _price(text: str | None) -> Decimal | None:
    if text is None:
        return None
    try:
        price = Decimal(text)
    except InvalidOperation:
        raise CommandError(f"--cost-per-hour must be a number of USD, not {text!r}.") from None
    if not price.is_finite() or price <= 0:
        raise CommandError("--cost-per-hour must be a positive number of USD.")
    return price
