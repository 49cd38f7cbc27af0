"""The two ways to answer one item: onnxruntime on an ONNX file, or torch eager on the checkpoint itself.

Each takes a numpy batch in the task's layout (NCHW float32) and returns the logits; what is timed is
`run` alone.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import torch

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
        inputs = self.session.get_inputs()
        if len(inputs) != 1:
            raise InferenceError(
                InferenceErrorCode.INPUT_SHAPE_MISMATCH,
                f"The model takes {len(inputs)} inputs; a task item here is one float32 tensor.",
            )
        self.input_name = inputs[0].name
        self.input_type = inputs[0].type
        self.input_shape = tuple(inputs[0].shape)  # symbolic dimensions stay names
        self.threads = threads
        self.provider = self.session.get_providers()[0]  # the execution provider that runs it, for the record

    def run(self, batch: np.ndarray) -> np.ndarray:
        return self.session.run(None, {self.input_name: batch})[0]

    def check_input(self, shape: tuple[int, ...]) -> None:
        """Refuse a model whose input cannot take items of `shape` (batch first)."""
        declared = self.input_shape
        fits = len(declared) == len(shape) and all(
            not isinstance(size, int) or size == wanted for size, wanted in zip(declared, shape, strict=True)
        )
        if not fits or self.input_type != "tensor(float)":
            raise InferenceError(
                InferenceErrorCode.INPUT_SHAPE_MISMATCH,
                f"The model takes {self.input_type} inputs of shape {list(declared)}; the task's items are float32 "
                f"of shape {list(shape)}.",
            )


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

    def run(self, batch: np.ndarray) -> np.ndarray:
        with torch.inference_mode():
            inputs = torch.from_numpy(batch)
            if self.channels_last:
                inputs = inputs.contiguous(memory_format=torch.channels_last)
            return self.model(inputs).numpy()

    def check_input(self, shape: tuple[int, ...]) -> None:
        """The checkpoint's own model takes the task's items by construction."""
