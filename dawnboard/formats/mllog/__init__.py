"""MLPerf Training's results, read: one run's `:::MLLOG` log (`log.py`) and a results tree in MLCommons' published
layout (`tree.py`). What they produce (`dawnboard.mllog_records`) is what `dawnboard.validation.mlperf` judges."""

from dawnboard.formats.mllog.log import (
    MAX_CLOCK_STEP_BACK_MS,
    MAX_JSON_DEPTH,
    MAX_LINE_BYTES,
    MAX_LOG_BYTES,
    MAX_LOG_LINES,
    MAX_MLLOG_RECORDS,
    read_mllog,
    read_records,
    write_mllog,
)
from dawnboard.formats.mllog.tree import (
    MAX_RESULT_FILES,
    MAX_SCALING_JSON_BYTES,
    MAX_SYSTEM_JSON_BYTES,
    ResultFile,
    ResultSet,
    read_results_tree,
)

__all__ = [
    "MAX_CLOCK_STEP_BACK_MS",
    "MAX_JSON_DEPTH",
    "MAX_LINE_BYTES",
    "MAX_LOG_BYTES",
    "MAX_LOG_LINES",
    "MAX_MLLOG_RECORDS",
    "MAX_RESULT_FILES",
    "MAX_SCALING_JSON_BYTES",
    "MAX_SYSTEM_JSON_BYTES",
    "ResultFile",
    "ResultSet",
    "read_mllog",
    "read_records",
    "read_results_tree",
    "write_mllog",
]
