""".venv/bin/python manage.py export_onnx TASK CHECKPOINT OUT.onnx [--opset N]"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from dawnboard import display
from dawnboard.recipes import RECIPES
from inference.checkpoint import checkpoint_read
from inference.errors import InferenceError
from inference.export import DEFAULT_OPSET, MIN_OPSET, export_onnx


class Command(BaseCommand):
    help = "Export a reference job's checkpoint to ONNX, checked by onnx.checker and against torch on one batch."

    def add_arguments(self, parser):
        parser.add_argument("task", choices=sorted({recipe.task_slug for recipe in RECIPES}))
        parser.add_argument("checkpoint", type=Path, help="A reference job's .pt")
        parser.add_argument("out", type=Path, help="The .onnx file to write")
        parser.add_argument("--opset", type=int, default=DEFAULT_OPSET, help=f"At least {MIN_OPSET}.")

    def handle(self, *args, **options):
        try:
            checkpoint = checkpoint_read(options["checkpoint"], task=options["task"])
            report = export_onnx(checkpoint, options["out"], opset=options["opset"])
        except InferenceError as error:
            raise CommandError(f"{error.code}: {error.message}") from None
        except ValueError as error:
            raise CommandError(str(error)) from None
        difference = display.significant(report.max_abs_difference, 2)
        tolerance = f"{display.number(report.absolute_tolerance)} + {display.number(report.relative_tolerance)}"
        if len(report.input_shapes) == 1:
            inputs = f"input {list(*report.input_shapes.values())} with a dynamic batch"
        else:
            shapes = ", ".join(f"{name} {list(shape)}" for name, shape in report.input_shapes.items())
            inputs = f"inputs {shapes}, their batch and lengths dynamic"
        self.stdout.write(
            f"Wrote {report.path} (opset {report.opset}, {inputs}). "
            f"onnx.checker passed; torch and onnxruntime agree on a batch: max |difference| {difference} "
            f"(tolerance {tolerance} x |torch|)."
        )
