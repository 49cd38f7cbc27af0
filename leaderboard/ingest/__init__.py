"""Domain logic of Dawnboard's ingest: plain Python, no Django.

`validate_submission` is the one entry point: it parses a DAWNBench v1.0 entry (and, for training,
its TSV log), checks it against a task version's rules and recomputes every result from the files
alone. It returns an `IngestResult` with warnings, or an `IngestRejection` with every error found.
"""

from leaderboard.ingest.errors import ErrorCode, Issue, WarningCode
from leaderboard.ingest.pipeline import IngestRejection, IngestResult, check_request, validate_submission
from leaderboard.ingest.rules import FRACTION, PERCENT, TaskRules

__all__ = [
    "FRACTION",
    "PERCENT",
    "ErrorCode",
    "IngestRejection",
    "IngestResult",
    "Issue",
    "TaskRules",
    "WarningCode",
    "check_request",
    "validate_submission",
]
