"""Writes: receiving and judging submissions, storing accepted entries, importing DAWNBench trees, submitters,
and matching entries to the price catalog. Every write runs in one transaction.

- `submissions`: receiving a submission (now, or stored and queued), idempotent retries, imports;
- `judging`: the verdict on stored files, recorded; an accepted one stored as an Entry;
- `queueing`: judging on a worker, and the sweep that leaves no submission pending;
- `submitters`: submitters and their tokens;
- `hardware`: entries matched to the price catalog;
- `policy_costs`: entries priced under each catalog policy, stored for the boards by a catalog price.
"""

from leaderboard.services.hardware import (
    CatalogReload,
    MatchSummary,
    catalog_reload,
    hardware_match_all,
    hardware_match_entry,
)
from leaderboard.services.judging import (
    SubmissionOutcome,
    Upload,
    entry_results,
    submission_judge,
    submission_outcome,
    submission_store,
)
from leaderboard.services.policy_costs import (
    POLICY_COSTS_EXPIRE_TASK,
    catalog_policy_costs_refresh,
    entry_policy_costs_expire,
    entry_policy_costs_refresh,
)
from leaderboard.services.queueing import (
    SUBMISSION_JUDGE_TASK,
    SUBMISSIONS_SWEEP_TASK,
    QueueUnavailable,
    SubmissionNotVisible,
    SweepSummary,
    submission_judge_queued,
    submission_judging_fail,
    submissions_sweep,
)
from leaderboard.services.submissions import (
    IdempotencyKeyReused,
    ImportOutcome,
    SubmissionRejected,
    entry_import,
    submission_create,
    submission_version,
    upload_read,
)
from leaderboard.services.submitters import SubmitterExists, submitter_create, submitter_token_rotate

__all__ = [
    "POLICY_COSTS_EXPIRE_TASK",
    "SUBMISSIONS_SWEEP_TASK",
    "SUBMISSION_JUDGE_TASK",
    "CatalogReload",
    "IdempotencyKeyReused",
    "ImportOutcome",
    "MatchSummary",
    "QueueUnavailable",
    "SubmissionNotVisible",
    "SubmissionOutcome",
    "SubmissionRejected",
    "SubmitterExists",
    "SweepSummary",
    "Upload",
    "catalog_policy_costs_refresh",
    "catalog_reload",
    "entry_import",
    "entry_policy_costs_expire",
    "entry_policy_costs_refresh",
    "entry_results",
    "hardware_match_all",
    "hardware_match_entry",
    "submission_create",
    "submission_judge",
    "submission_judge_queued",
    "submission_judging_fail",
    "submission_outcome",
    "submission_store",
    "submission_version",
    "submissions_sweep",
    "submitter_create",
    "submitter_token_rotate",
    "upload_read",
]
