"""Builders of MLPerf run logs (`:::MLLOG` lines) and results trees for the tests, all in code.

`run_records` makes the records of one run: the submission's facts, init, run_start, an evaluation per
(progress, value) pair spread evenly over the run, run_stop. With `compliant=True` (epoch-counted benchmarks of
rulesets 1.0.0 and 4.1.0) it also writes every key MLCommons' compliance checker requires of the closed division
(common.yaml, closed_common.yaml, closed_<benchmark>.yaml), so that its result summarizer scores the run.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from dawnboard.formats.mllog import write_mllog

START_MS = 1_700_000_000_000
Record = tuple[str, Any, float, dict]

# The closed division's required keys, with values passing their checks (training_<ruleset>/closed_<benchmark>.yaml).
HYPERPARAMETERS = {
    ("4.1.0", "ssd"): {
        "global_batch_size": 256,
        "opt_name": "adam",
        "opt_base_learning_rate": 0.0001,
        "opt_weight_decay": 0.0,
        "opt_learning_rate_warmup_epochs": 1,
        "opt_learning_rate_warmup_factor": 0.001,
        "train_samples": 1170301,
        "eval_samples": 24781,
    },
    ("4.1.0", "gnn"): {
        "global_batch_size": 4096,
        "opt_name": "adam",
        "opt_base_learning_rate": 0.001,
        "train_samples": 157675969,
        "eval_samples": 788379,
    },
    ("1.0.0", "unet3d"): {
        "global_batch_size": 2,
        "opt_name": "sgd",
        "opt_base_learning_rate": 2.0,
        "opt_learning_rate_warmup_epochs": 1000,
        "opt_learning_rate_decay_boundary_epochs": [],
        "opt_learning_rate_decay_factor": 1.0,
        "opt_weight_decay": 0.0,
        "train_samples": 168,
        "eval_samples": 42,
        "seed": 1,
        "opt_momentum": 0.9,
        "oversampling": 0.4,
        "training_input_shape": [128, 128, 128],
        "validation_input_shape": [128, 128, 128],
        "validation_overlap": 0.5,
    },
}


def run_records(
    *,
    benchmark: str = "ssd",
    duration_ms: float = 600_000,
    evaluations: Sequence[tuple[float, Any]] = ((1, 0.20), (2, 0.35)),
    progress_key: str = "epoch_num",
    status: str | None = "success",
    start_ms: float = START_MS,
    compliant_with: str | None = None,
) -> list[Record]:
    """The records of one run, in order; `evaluations` are (progress, eval_accuracy value) pairs."""
    before = start_ms - 60_000
    records: list[Record] = [
        ("submission_benchmark", benchmark, before, {}),
        ("submission_org", "Dawnboard tests", before, {}),
        ("submission_division", "closed", before, {}),
        ("submission_status", "onprem", before, {}),
        ("submission_platform", "1xTest", before, {}),
        ("cache_clear", True, before, {}),
        ("init_start", None, before, {}),
    ]
    if compliant_with is not None:
        records += [(key, value, before, {}) for key, value in HYPERPARAMETERS[compliant_with, benchmark].items()]
        records.append(("gradient_accumulation_steps", 1, before, {}))
    records += [("init_stop", None, start_ms - 1, {}), ("run_start", None, start_ms, {})]
    for index, (progress, value) in enumerate(evaluations, start=1):
        at = start_ms + index * duration_ms / (len(evaluations) + 1)
        where = {progress_key: progress}
        records += [
            ("epoch_start", None, at - 2, where),
            ("epoch_stop", None, at - 1, where),
            ("eval_start", None, at - 1, where),
            ("eval_accuracy", value, at, where),
            ("eval_stop", None, at, where),
        ]
    records.append(("run_stop", None, start_ms + duration_ms, {} if status is None else {"status": status}))
    return records


def run_log(**kwargs) -> bytes:
    """`run_records(**kwargs)` written as a log."""
    return write_mllog(run_records(**kwargs))


def mllog_lines(records: Iterable[Record]) -> bytes:
    return write_mllog(records)


def raw_record(key: str, value: Any, time_ms: Any, metadata: dict | None = None) -> bytes:
    """One `:::MLLOG` line of any content (`time_ms` written as given: a number, or raw JSON text if a str)."""
    time_text = time_ms if isinstance(time_ms, str) else json.dumps(time_ms)
    metadata_text = json.dumps({} if metadata is None else metadata)
    return (
        f':::MLLOG {{"namespace": "", "time_ms": {time_text}, "event_type": "POINT_IN_TIME", '
        f'"key": {json.dumps(key)}, "value": {json.dumps(value)}, "metadata": {metadata_text}}}\n'
    ).encode()


def write_set(root: Path, logs: Sequence[bytes], *, submitter="Org", system="sys", benchmark="ssd") -> Path:
    """A set folder `root/<submitter>/results/<system>/<benchmark>/result_<i>.txt`, one file per log."""
    folder = root / submitter / "results" / system / benchmark
    folder.mkdir(parents=True, exist_ok=True)
    for index, log in enumerate(logs, start=1):
        (folder / f"result_{index}.txt").write_bytes(log)
    return folder
