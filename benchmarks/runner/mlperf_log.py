"""A run's log in MLPerf's MLLOG format (`:::MLLOG {json}` lines), written with MLCommons' `mlperf_logging`.

The events: the submission's facts and the hyperparameters MLPerf asks for at `init_start`; `init_stop`;
`run_start`; for each epoch `epoch_start`, `epoch_stop`, `eval_start`, `eval_accuracy` (a fraction, as
MLPerf writes accuracy) and `eval_stop`; `run_stop` with status "success" at the crossing of the threshold,
or "aborted" after the last epoch when it was never reached.

MLPerf scores a run as run_stop's time_ms less run_start's, which would include evaluation; the board, as
DAWNBench, leaves evaluation out. So the time_ms of every event from run_start on is read off the training
clock, not the wall: run_start's wall time plus the clock's reading (`Phases.log_time_ms`), which stands
still while the model is evaluated (eval_start and eval_stop share a time). run_stop - run_start is then
the TSV log's time to accuracy, to the millisecond. The init events carry their wall times.
"""

from __future__ import annotations

import io
import logging
from pathlib import Path

from mlperf_logging.mllog import constants
from mlperf_logging.mllog.mllog import MLLogger

from benchmarks.runner.loop import Evaluation, RunResult
from dawnboard.rules import Scale, current_rules

REPOSITORY_ROOT = Path(__file__).resolve().parents[2]  # trimmed from the call sites in each line's metadata
SUBMISSION_ORG = "Dawnboard reference"
# A reference run may change what MLPerf's closed division fixes (its recipes are the board's own).
SUBMISSION_DIVISION = constants.OPEN
SUBMISSION_STATUS = constants.ONPREM  # the job runs on the machine at hand (a cloud VM cannot be told apart)


def mllog_bytes(result: RunResult, *, platform: str) -> bytes:
    """The MLLOG text of a finished run; `platform` is the hardware it ran on (the entry's `hardware`)."""
    stream = io.StringIO()
    logger = _logger_into(stream)
    _init_events(logger, result, platform)
    _run_events(logger, result)
    return stream.getvalue().encode("utf-8")


def eval_accuracy(quality: float, scale: Scale) -> float:
    """A quality in the task's scale as MLPerf logs accuracy: a fraction (98.0 % -> 0.98)."""
    return quality / 100.0 if scale is Scale.PERCENT else quality


def _logger_into(stream: io.StringIO) -> MLLogger:
    """An MLLogger of its own, writing into `stream` only: the shared one prints to stdout and keeps every
    file handler it was ever given. A `logging.Logger` made directly stays out of logging's registry."""
    target = logging.Logger("dawnboard.mllog", level=logging.INFO)
    handler = logging.StreamHandler(stream)
    handler.setLevel(logging.INFO)
    target.addHandler(handler)
    return MLLogger(logger=target, default_stack_offset=1, root_dir=str(REPOSITORY_ROOT))


def _init_events(logger: MLLogger, result: RunResult, platform: str) -> None:
    phases = result.phases
    at = round(phases.init_start_unix_ms)
    logger.start(constants.INIT_START, time_ms=at)
    for key, value in (
        (constants.SUBMISSION_BENCHMARK, result.config.task),
        (constants.SUBMISSION_ORG, SUBMISSION_ORG),
        (constants.SUBMISSION_DIVISION, SUBMISSION_DIVISION),
        (constants.SUBMISSION_STATUS, SUBMISSION_STATUS),
        (constants.SUBMISSION_PLATFORM, platform),
        (constants.SEED, result.config.seed),
        (constants.GLOBAL_BATCH_SIZE, result.global_batch_size),
        (constants.TRAIN_SAMPLES, result.train_samples),
        (constants.EVAL_SAMPLES, result.eval_samples),
    ):
        logger.event(key, value, time_ms=at)
    logger.end(
        constants.INIT_STOP, time_ms=round(phases.init_stop_unix_ms), metadata={"warm_up_steps": phases.warm_up_steps}
    )


def _run_events(logger: MLLogger, result: RunResult) -> None:
    phases, scale = result.phases, current_rules(result.config.task).scale
    logger.start(constants.RUN_START, time_ms=phases.log_time_ms(0.0))
    for point in result.evaluations:
        _epoch_events(logger, result, point, scale)
    reached = result.reached_index
    last = result.evaluations[reached if reached is not None else -1] if result.evaluations else None
    logger.end(
        constants.RUN_STOP,
        time_ms=phases.log_time_ms(last.training_seconds if last is not None else 0.0),
        metadata={
            constants.STATUS: constants.SUCCESS if reached is not None else constants.ABORTED,
            constants.EPOCH_NUM: last.epoch if last is not None else 0,
        },
    )


def _epoch_events(logger: MLLogger, result: RunResult, point: Evaluation, scale: Scale) -> None:
    phases, epoch = result.phases, {constants.EPOCH_NUM: point.epoch}
    logger.start(constants.EPOCH_START, time_ms=phases.log_time_ms(point.started_seconds), metadata=epoch)
    stopped = phases.log_time_ms(point.training_seconds)  # evaluation follows, with the clock paused
    logger.end(constants.EPOCH_STOP, time_ms=stopped, metadata=epoch)
    logger.start(constants.EVAL_START, time_ms=stopped, metadata=epoch)
    accuracy = eval_accuracy(point.quality, scale)
    logger.event(constants.EVAL_ACCURACY, accuracy, time_ms=stopped, metadata=epoch)
    logger.end(constants.EVAL_STOP, time_ms=stopped, metadata=epoch)
