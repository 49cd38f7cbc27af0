""".venv/bin/python manage.py measure_inference TASK --model PATH [--backend onnxruntime|torch] [--data-dir DIR]
[--threads N] [--warmup K] [--limit N] [--instance NAME --provider P | --cost-per-hour USD] [--out DIR]
[--submit] [--json]"""

from __future__ import annotations

import json
import os
from decimal import Decimal, InvalidOperation
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from dawnboard import display
from dawnboard.recipes import RECIPES
from dawnboard.rules import current_rules
from inference.errors import InferenceError
from inference.options import Backend, MeasureOptions
from inference.services import measurement_execute


class Command(BaseCommand):
    help = "Answer a task's whole evaluation set one item at a time and report latency, accuracy and cost."

    def add_arguments(self, parser):
        parser.add_argument("task", choices=sorted({recipe.task_slug for recipe in RECIPES}))
        parser.add_argument("--model", type=Path, required=True, help="An .onnx file, or a .pt with --backend torch")
        parser.add_argument("--backend", choices=[backend.value for backend in Backend], default=Backend.ONNXRUNTIME)
        parser.add_argument("--data-dir", type=Path, help="Where the task's dataset is (digits needs none).")
        parser.add_argument(
            "--threads", type=int, default=os.cpu_count() or 1, help="Intra-op threads of the backend (default: all)."
        )
        parser.add_argument("--warmup", type=int, default=10, help="First items answered but not timed.")
        parser.add_argument("--limit", type=int, help="Answer only the first N items (the accuracy is theirs).")
        parser.add_argument("--instance", help="Price at this catalog instance's on-demand price today")
        parser.add_argument("--provider", help="The instance's provider (aws, gcp, azure, ...)")
        parser.add_argument("--cost-per-hour", help="Price at this many USD per hour instead")
        parser.add_argument("--out", type=Path, help="Default: runs/inference-<task>-<backend>/")
        parser.add_argument("--submit", action="store_true", help="Enter the entry on the board if it qualifies.")
        parser.add_argument("--json", action="store_true", help="Print one JSON document and nothing else.")

    def handle(self, *args, **options):
        if options["instance"] and options["cost_per_hour"]:
            raise CommandError("Give --instance/--provider or --cost-per-hour, not both.")
        if options["instance"] and not options["provider"]:
            raise CommandError("--instance needs --provider.")
        if options["threads"] < 1 or options["warmup"] < 0 or (options["limit"] is not None and options["limit"] < 1):
            raise CommandError("--threads and --limit must be at least 1, --warmup at least 0.")
        cost_per_hour = _price(options["cost_per_hour"])
        options_ = MeasureOptions(
            task=options["task"],
            model=options["model"],
            backend=Backend(options["backend"]),
            data_dir=options["data_dir"],
            threads=options["threads"],
            warmup=options["warmup"],
            limit=options["limit"],
        )
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
            self._summarise(outcome.document)
        if outcome.submission is not None:  # the verdict, beside the document: on stderr
            self.stderr.write(f"submitted: {outcome.submission['status']} (entry {outcome.submission['entry_id']})")
        elif options["submit"] and outcome.errors:
            codes = ", ".join(f"{error['code']}: {error['message']}" for error in outcome.errors)
            raise CommandError(f"Not submitted. {codes}")

    def _summarise(self, document: dict) -> None:
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
        )
        if document["cost_usd_per_10k"] is not None:
            self.stdout.write(
                f"  cost {display.usd(document['cost_usd_per_10k'])} per 10,000 items at "
                f"{display.number(document['price']['usd_per_hour'])} USD/h ({document['price']['source']})"
            )
        self.stdout.write(f"  wrote {document['entry_path']} and {document['record_path']}")


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
