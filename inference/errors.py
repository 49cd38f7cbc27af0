"""Refusals of the inference commands: each with a stable code, raised before anything is written or stored."""

from __future__ import annotations

from enum import StrEnum


class InferenceErrorCode(StrEnum):
    NOT_A_CHECKPOINT = "not_a_checkpoint"  # not a reference job's .pt
    WRONG_TASK = "wrong_task"  # a checkpoint or model of another task
    UNSUPPORTED_TASK = "unsupported_task"  # a recipe with no inputs to export or measure
    NOT_ONNX = "not_onnx"  # not an ONNX model onnx and onnxruntime can load
    INPUT_SHAPE_MISMATCH = "input_shape_mismatch"  # the model's input does not take the task's items
    # the data encodes its items otherwise than the model was trained with (SQuAD's vocabularies)
    INPUT_ENCODING_MISMATCH = "input_encoding_mismatch"
    EXPORT_MISMATCH = "export_mismatch"  # torch and onnxruntime disagree beyond the tolerance
    INVALID_EXPORT = "invalid_export"  # the exported file fails onnx.checker
    DATASET_MISSING = "dataset_missing"  # no test set where asked
    UNKNOWN_INSTANCE = "unknown_instance"  # --instance/--provider names nothing in the price catalog
    NO_PRICE = "no_price"  # the instance has no on-demand price today
    NO_CUDA_PROVIDER = "no_cuda_provider"  # --device cuda where onnxruntime has no CUDA execution provider
    INVALID_SETTING = "invalid_setting"  # a LoadGen setting that cannot run: a latency bound of 0, a batch of 0


class InferenceError(Exception):
    def __init__(self, code: InferenceErrorCode, message: str):
        super().__init__(code, message)  # both, so the error pickles whole (a Celery task's failure keeps its code)
        self.code = InferenceErrorCode(code)
        self.message = message

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def as_dict(self) -> dict[str, str]:
        return {"code": str(self.code), "message": self.message}
