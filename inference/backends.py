"""The two ways to answer one item: onnxruntime on an ONNX file, or torch eager on the checkpoint itself.

Each takes a numpy batch in the task's layout (an image model's: one NCHW float32 array) and returns the logits;
a model of several inputs (SQuAD's reader) takes a tuple of arrays and returns a tuple of its outputs. What is
timed is `run` alone.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime
import torch

from benchmarks.workloads.base import OnnxSignature
from inference.checkpoint import Checkpoint
from inference.errors import InferenceError, InferenceErrorCode

PROVIDERS = {"cpu": ["CPUExecutionProvider"], "cuda": ["CUDAExecutionProvider"]}


class OnnxBackend:
    name = "onnxruntime"
    version = onnxruntime.__version__

    def __init__(self, path: Path, *, threads: int, device: str = "cpu"):
        """Raises InferenceError: `no_cuda_provider` for `device` "cuda" where onnxruntime has no CUDA execution
        provider (onnxruntime-gpu not installed); `not_onnx`, `input_shape_mismatch` for the file."""
        available = onnxruntime.get_available_providers()
        if any(provider not in available for provider in PROVIDERS[device]):
            raise InferenceError(
                InferenceErrorCode.NO_CUDA_PROVIDER,
                f"onnxruntime {self.version} here has no CUDA execution provider (its providers: "
                f"{', '.join(available)}): install onnxruntime-gpu in place of onnxruntime to measure on the GPU.",
            )
        try:
            onnx.checker.check_model(onnx.load(str(path)))
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
            self.session = onnxruntime.InferenceSession(str(path), options, providers=PROVIDERS[device])
        except Exception as error:  # onnx and onnxruntime raise their own types for a bad file
            raise InferenceError(
                InferenceErrorCode.NOT_ONNX, f"{path} is not an ONNX model onnxruntime can run: {error}"
            ) from None
        self.inputs = self.session.get_inputs()
        self.output_names = [output.name for output in self.session.get_outputs()]
        self.threads = threads
        self.provider = self.session.get_providers()[0]  # the execution provider that runs it, for the record
        # Dawnboard's metadata, as its export writes it (`inference.export.model_metadata`), read with the file.
        self.path = path
        self.metadata: dict[str, str] = dict(self.session.get_modelmeta().custom_metadata_map)
        # The encoding of the inputs the model was trained with, where its export kept it (SQuAD's vocabularies).
        self.input_encoding: dict | None = self.metadata_json("dawnboard.input_encoding", None)
        self.input_names = [declared.name for declared in self.inputs]
        self.input_name = self.input_names[0]
        if len(self.inputs) == 1:
            self.run = self._single_input_run()

    def metadata_json(self, key: str, default: Any) -> Any:
        """A metadata value written as JSON, or `default` where the file has none.

        Raises:
            InferenceError: `not_onnx` for a value that is not JSON.
        """
        if key not in self.metadata:
            return default
        try:
            return json.loads(self.metadata[key])
        except json.JSONDecodeError:
            raise InferenceError(InferenceErrorCode.NOT_ONNX, f"{self.path}: its {key} metadata is not JSON.") from None

    def run(self, item: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
        """A model of several inputs (SQuAD's four): the item's arrays in the model's order, its outputs out."""
        return tuple(self.session.run(None, dict(zip(self.input_names, item, strict=True))))

    def _single_input_run(self) -> Callable[[np.ndarray], np.ndarray]:
        """An image model's `run`: an array in, the first output (the logits) out. A closure over the session's
        `run` and the input's name: no attribute looked up between two timed calls of a model answering in 30 us."""
        run_session, name = self.session.run, self.input_name

        def run(batch: np.ndarray) -> np.ndarray:
            return run_session(None, {name: batch})[0]

        return run

    def check_inputs(self, signature: OnnxSignature) -> None:
        """Refuse a model whose inputs cannot take the task's items as `signature` makes them (a batch of its
        examples' size; the dimensions it names dynamic may take any size): their count, their names where there
        are several, their element types, their ranks and their fixed sizes, and its outputs' count."""
        wanted = signature.inputs
        problems = []
        if len(self.inputs) != len(wanted):
            problems.append(f"it takes {len(self.inputs)} input(s); a task item here is {len(wanted)}")
        elif len(wanted) > 1 and self.input_names != list(wanted):
            problems.append(f"its inputs are {self.input_names}; the task's are {list(wanted)}, in that order")
        else:
            for declared, (name, example) in zip(self.inputs, wanted.items(), strict=True):
                dynamic = signature.dynamic_axes.get(name, {})
                element = ONNX_ELEMENT_TYPES.get(example.dtype, str(example.dtype))
                fits = len(declared.shape) == example.dim() and all(
                    not isinstance(size, int) or (size == example.shape[axis] and (axis == 0 or axis not in dynamic))
                    for axis, size in enumerate(declared.shape)
                )
                if not fits or declared.type != element:
                    problems.append(
                        f"its input {declared.name} is {declared.type} of shape {list(declared.shape)}; the task's "
                        f"items are {element} of shape {_shape_text(example, dynamic)}"
                    )
        if len(self.output_names) < len(signature.outputs):
            problems.append(
                f"it gives {len(self.output_names)} output(s); the task's answers are {len(signature.outputs)}"
            )
        if problems:
            raise InferenceError(
                InferenceErrorCode.INPUT_SHAPE_MISMATCH, f"The model does not fit: {'; '.join(problems)}."
            )


ONNX_ELEMENT_TYPES = {torch.float32: "tensor(float)", torch.int64: "tensor(int64)"}


def _shape_text(example: torch.Tensor, dynamic: dict[int, str]) -> str:
    """The shape items take, a dynamic dimension by its name: [1, 'context', 16]."""
    return str([dynamic[axis] if axis in dynamic and axis else size for axis, size in enumerate(example.shape)])


class TorchBackend:
    name = "torch"
    version = torch.__version__
    provider = "torch eager, CPU"  # what runs the model, as the record names it

    def __init__(self, checkpoint: Checkpoint, *, threads: int):
        torch.set_num_threads(threads)
        self.model = checkpoint.model()
        self.channels_last = checkpoint.workload().channels_last
        if self.channels_last:
            self.model = self.model.to(memory_format=torch.channels_last)
        self.threads = threads
        self.input_encoding = checkpoint.input_encoding

    def run(self, batch: np.ndarray | tuple[np.ndarray, ...]) -> np.ndarray | tuple[np.ndarray, ...]:
        """An image model's logits for an array, or a model of several inputs' outputs for a tuple of arrays."""
        with torch.inference_mode():
            if isinstance(batch, tuple):
                return tuple(output.numpy() for output in self.model(*map(torch.from_numpy, batch)))
            inputs = torch.from_numpy(batch)
            if self.channels_last:
                inputs = inputs.contiguous(memory_format=torch.channels_last)
            return self.model(inputs).numpy()

    def check_inputs(self, signature: OnnxSignature) -> None:
        """The checkpoint's own model takes the task's items by construction."""
