"""A reference job's checkpoint (`<name>.pt`): its run record names the task, the recipe and the settings the
model was built with, so the model is rebuilt exactly and its weights loaded (`weights_only=True`)."""

from __future__ import annotations

import pickle
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from benchmarks.workloads import workload_class
from benchmarks.workloads.base import Workload
from inference.errors import InferenceError, InferenceErrorCode


@dataclass(frozen=True)
class Checkpoint:
    path: Path
    task: str
    recipe: str
    overrides: dict[str, Any]
    state_dict: dict[str, torch.Tensor]
    input_encoding: dict[str, Any] | None = None  # as the run record's data summary kept it (`Workload.input_encoding`)

    def workload(self, data_dir: Path | None = None) -> Workload:
        """The recipe's workload as the checkpoint was trained, shaped by its weights where the data shapes the
        model (ImageNet's class count), so the model rebuilds without the data."""
        workload = workload_class(self.task, self.recipe)(data_dir, self.overrides)
        workload.shape_from(self.state_dict)
        return workload

    def model(self) -> nn.Module:
        """The trained model, on the CPU, in eval mode."""
        model = self.workload().build_model()
        model.load_state_dict(self.state_dict)
        return model.eval()


def checkpoint_read(path: Path, *, task: str) -> Checkpoint:
    """Read a reference job's checkpoint of `task`.

    Raises:
        InferenceError: `not_a_checkpoint` for anything else, `wrong_task` for a checkpoint of another task.
    """
    try:
        saved = torch.load(path, weights_only=True, map_location="cpu")
    except (OSError, RuntimeError, EOFError, pickle.UnpicklingError, zipfile.BadZipFile) as error:
        raise InferenceError(
            InferenceErrorCode.NOT_A_CHECKPOINT, f"{path} is not a reference job's checkpoint (.pt): {error}"
        ) from None
    record = saved.get("config") if isinstance(saved, dict) else None
    if not isinstance(record, dict) or "state_dict" not in saved or "task" not in record or "recipe" not in record:
        raise InferenceError(
            InferenceErrorCode.NOT_A_CHECKPOINT,
            f"{path} is not a reference job's checkpoint: it lacks the state dict or the run record.",
        )
    if record["task"] != task:
        raise InferenceError(
            InferenceErrorCode.WRONG_TASK, f"{path} is a checkpoint of {record['task']}, not of {task}."
        )
    overrides = (record.get("config") or {}).get("overrides") or {}
    return Checkpoint(
        path=path,
        task=task,
        recipe=record["recipe"],
        overrides=dict(overrides),
        state_dict=saved["state_dict"],
        input_encoding=(record.get("data") or {}).get("input_encoding"),
    )
