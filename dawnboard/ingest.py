"""An upload, judged: the files' format readers bound to their bytes, then the benchmark's validation.

The one place bytes meet the rules. A second format (MLPerf's `:::MLLOG`) adds its own function here,
binding its readers, and reuses `validate_submission` unchanged.
"""

from __future__ import annotations

from functools import partial

from dawnboard.formats.dawnbench import read_entry, read_training_log
from dawnboard.rules import RulesCatalog
from dawnboard.validation import IngestRejection, IngestResult, validate_submission


def validate_dawnbench_files(
    *, task_slug: str, track: str, entry_bytes: bytes | None, log_bytes: bytes | None, catalog: RulesCatalog
) -> IngestResult | IngestRejection:
    """Validate a DAWNBench v1.0 entry JSON (and, for training, its TSV log) and recompute its results.

    Args:
        task_slug: the task the submitter names, e.g. "cifar10".
        track: "train" or "inference".
        entry_bytes: the entry JSON file, as uploaded (None: none was sent).
        log_bytes: the TSV log, as uploaded (None: none was sent); ignored with a warning for inference.
        catalog: task slug -> entry `version` -> the rules of that task version.
    """
    return validate_submission(
        task_slug=task_slug,
        track=track,
        entry=None if entry_bytes is None else partial(read_entry, entry_bytes),
        log=None if log_bytes is None else partial(read_training_log, log_bytes),
        catalog=catalog,
    )
