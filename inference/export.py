"""Export a reference job's checkpoint to ONNX, then prove the file: `onnx.checker`, and one batch through
torch and onnxruntime agreeing within a stated tolerance (a mismatch is an error, not a warning)."""

from __future__ import annotations

import json
import os
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import torch

from inference.backends import OnnxBackend
from inference.checkpoint import Checkpoint
from inference.errors import InferenceError, InferenceErrorCode

DEFAULT_OPSET = 17
MIN_OPSET = 17
# fp32 through two runtimes that order their sums differently: logits agree to about 1e-5 relative.
ABSOLUTE_TOLERANCE = 1e-4
RELATIVE_TOLERANCE = 1e-3
CHECK_BATCH = 4
INPUT_NAME, OUTPUT_NAME = "input", "output"


@dataclass(frozen=True)
class ExportReport:
    path: Path
    opset: int
    input_shape: tuple[int, ...]  # of one item, batch first
    max_abs_difference: float
    absolute_tolerance: float = ABSOLUTE_TOLERANCE
    relative_tolerance: float = RELATIVE_TOLERANCE


def item_shape(checkpoint: Checkpoint) -> tuple[int, ...]:
    """The input of one item, batch first, as the task's evaluation items come (e.g. 1 x 1 x 8 x 8 for digits)."""
    workload = checkpoint.workload()
    shape = getattr(workload, "inference_input_shape", None)
    if shape is None:
        raise InferenceError(
            InferenceErrorCode.UNSUPPORTED_TASK,
            f"{checkpoint.task}/{checkpoint.recipe} has no one-tensor input to export: its items are not images.",
        )
    return (1, *shape)


def write_onnx(model: torch.nn.Module, example: torch.Tensor, out: Path, *, opset: int = DEFAULT_OPSET) -> None:
    """Export `model` for inputs shaped as `example` (with a dynamic batch) to `out`: the one export call."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the TorchScript exporter: no onnxscript needed
        torch.onnx.export(
            model.eval(),
            (example,),
            str(out),
            opset_version=opset,
            dynamo=False,
            input_names=[INPUT_NAME],
            output_names=[OUTPUT_NAME],
            dynamic_axes={INPUT_NAME: {0: "batch"}, OUTPUT_NAME: {0: "batch"}},
        )


def model_metadata(checkpoint: Checkpoint) -> dict[str, str]:
    """The task, recipe and settings of the model, kept in the ONNX file: the harness preprocesses items as
    that recipe's evaluation does."""
    return {
        "dawnboard.task": checkpoint.task,
        "dawnboard.recipe": checkpoint.recipe,
        "dawnboard.overrides": json.dumps(checkpoint.overrides, sort_keys=True),
    }


def export_onnx(checkpoint: Checkpoint, out: Path, *, opset: int = DEFAULT_OPSET) -> ExportReport:
    """Write `out` and prove it. The file is built beside `out` and moved there only once every check passed,
    so a failed export leaves no file (and an earlier `out` untouched).

    Raises:
        InferenceError: `invalid_export` when onnx.checker refuses the file, `export_mismatch` when torch and
            onnxruntime disagree beyond the tolerance.
    """
    if opset < MIN_OPSET:
        raise ValueError(f"--opset must be at least {MIN_OPSET}.")
    shape = item_shape(checkpoint)  # a recipe of several input tensors is refused before its model is rebuilt
    model = checkpoint.model()
    example = torch.randn(shape, generator=torch.Generator().manual_seed(0))
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=".export-") as folder:
        draft = Path(folder) / out.name
        write_onnx(model, example, draft, opset=opset)
        exported = onnx.load(str(draft))
        onnx.helper.set_model_props(exported, model_metadata(checkpoint))  # what the harness rebuilds items from
        onnx.save(exported, str(draft))
        try:
            onnx.checker.check_model(exported, full_check=True)
        except onnx.checker.ValidationError as error:
            raise InferenceError(
                InferenceErrorCode.INVALID_EXPORT, f"onnx.checker refused the export: {error}"
            ) from None
        batch = torch.randn((CHECK_BATCH, *shape[1:]), generator=torch.Generator().manual_seed(1))
        with torch.inference_mode():
            expected = model(batch).numpy()
        actual = OnnxBackend(draft, threads=1).run(batch.numpy())
        difference = float(np.max(np.abs(actual - expected)))
        if not np.allclose(actual, expected, atol=ABSOLUTE_TOLERANCE, rtol=RELATIVE_TOLERANCE):
            raise InferenceError(
                InferenceErrorCode.EXPORT_MISMATCH,
                f"torch and onnxruntime disagree on a batch of {CHECK_BATCH}: max |difference| {difference:.3g}, "
                f"beyond {ABSOLUTE_TOLERANCE:g} + {RELATIVE_TOLERANCE:g} x |torch|; nothing was written.",
            )
        os.replace(draft, out)
    return ExportReport(path=out, opset=opset, input_shape=shape, max_abs_difference=difference)
