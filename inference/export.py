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
import onnxruntime
import torch

from benchmarks.workloads.base import OnnxSignature
from inference.checkpoint import Checkpoint
from inference.errors import InferenceError, InferenceErrorCode

DEFAULT_OPSET = 17
MIN_OPSET = 17
# fp32 through two runtimes that order their sums differently: logits agree to about 1e-5 relative.
ABSOLUTE_TOLERANCE = 1e-4
RELATIVE_TOLERANCE = 1e-3
CHECK_BATCH = 4


@dataclass(frozen=True)
class ExportReport:
    path: Path
    opset: int
    input_shapes: dict[str, tuple[int, ...]]  # each input's shape for one item, batch first
    max_abs_difference: float
    absolute_tolerance: float = ABSOLUTE_TOLERANCE
    relative_tolerance: float = RELATIVE_TOLERANCE


def onnx_signature(checkpoint: Checkpoint, *, batch: int, seed: int) -> OnnxSignature:
    """The checkpoint's model's inputs and outputs (`Workload.onnx_signature`), made-up inputs of `batch` items.

    Raises:
        InferenceError: `unsupported_task` for a recipe without one.
    """
    signature = checkpoint.workload().onnx_signature(batch, torch.Generator().manual_seed(seed))
    if signature is None:
        raise InferenceError(
            InferenceErrorCode.UNSUPPORTED_TASK, f"{checkpoint.task}/{checkpoint.recipe} has no inputs to export."
        )
    return signature


def write_onnx(model: torch.nn.Module, signature: OnnxSignature, out: Path, *, opset: int = DEFAULT_OPSET) -> None:
    """Export `model` for inputs shaped as the signature's (its dynamic dimensions dynamic) to `out`: the one
    export call."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the TorchScript exporter: no onnxscript needed
        torch.onnx.export(
            model.eval(),
            tuple(signature.inputs.values()),
            str(out),
            opset_version=opset,
            dynamo=False,
            input_names=list(signature.inputs),
            output_names=list(signature.outputs),
            dynamic_axes=signature.dynamic_axes,
        )


def model_metadata(checkpoint: Checkpoint) -> dict[str, str]:
    """The task, recipe and settings of the model, kept in the ONNX file: the harness preprocesses items as
    that recipe's evaluation does; and, where the data shapes the inputs (SQuAD's vocabularies), their encoding,
    which the harness compares with the one it rebuilds from the data."""
    metadata = {
        "dawnboard.task": checkpoint.task,
        "dawnboard.recipe": checkpoint.recipe,
        "dawnboard.overrides": json.dumps(checkpoint.overrides, sort_keys=True),
    }
    if checkpoint.input_encoding is not None:
        metadata["dawnboard.input_encoding"] = json.dumps(checkpoint.input_encoding, sort_keys=True)
    return metadata


def export_onnx(checkpoint: Checkpoint, out: Path, *, opset: int = DEFAULT_OPSET) -> ExportReport:
    """Write `out` and prove it. The file is built beside `out` and moved there only once every check passed,
    so a failed export leaves no file (and an earlier `out` untouched).

    Raises:
        InferenceError: `invalid_export` when onnx.checker refuses the file, `export_mismatch` when torch and
            onnxruntime disagree beyond the tolerance.
    """
    if opset < MIN_OPSET:
        raise ValueError(f"--opset must be at least {MIN_OPSET}.")
    example = onnx_signature(checkpoint, batch=1, seed=0)  # a recipe with no inputs to export is refused first
    model = checkpoint.model()
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
        # Another batch, of another size (and, for SQuAD, other lengths) than the one traced.
        check = onnx_signature(checkpoint, batch=CHECK_BATCH, seed=1)
        with torch.inference_mode():
            expected = model(*check.inputs.values())
        expected = [tensor.numpy() for tensor in (expected if isinstance(expected, tuple) else (expected,))]
        session = onnxruntime.InferenceSession(str(draft), providers=["CPUExecutionProvider"])
        actual = session.run(None, {name: tensor.numpy() for name, tensor in check.inputs.items()})
        difference = max(float(np.max(np.abs(a - e))) for a, e in zip(actual, expected, strict=True))
        agree = all(
            np.allclose(a, e, atol=ABSOLUTE_TOLERANCE, rtol=RELATIVE_TOLERANCE)
            for a, e in zip(actual, expected, strict=True)
        )
        if not agree:
            raise InferenceError(
                InferenceErrorCode.EXPORT_MISMATCH,
                f"torch and onnxruntime disagree on a batch of {CHECK_BATCH}: max |difference| {difference:.3g}, "
                f"beyond {ABSOLUTE_TOLERANCE:g} + {RELATIVE_TOLERANCE:g} x |torch|; nothing was written.",
            )
        os.replace(draft, out)
    shapes = {name: tuple(tensor.shape) for name, tensor in example.inputs.items()}
    return ExportReport(path=out, opset=opset, input_shapes=shapes, max_abs_difference=difference)
