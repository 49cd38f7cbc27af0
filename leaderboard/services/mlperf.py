"""Importing MLPerf Training results: each `<submitter>/results/<system>/<benchmark>` set of a results tree judged
as MLCommons' result summarizer scores it (stricter, `dawnboard.validation.mlperf`), an accepted one stored as one
entry of its runs through the same judging as the API (`entry_import`). Re-importing changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dawnboard.formats.mllog import ResultSet, read_results_tree
from dawnboard.ingest import judge_mlperf_set
from dawnboard.rounds import TrainingRound
from dawnboard.rules import Track, mlperf_task_slug, mlperf_version
from dawnboard.validation.mlperf import SetVerdict
from leaderboard.models import Entry
from leaderboard.services.judging import Upload
from leaderboard.services.submissions import entry_import


@dataclass(frozen=True)
class SetImport:
    """One set's outcome, in the shape `import_mlperf --json` prints."""

    submitter: str
    system: str
    benchmark: str
    status: str  # accepted, rejected
    score_minutes: float | None
    entry_id: int | None
    errors: list[dict] = field(default_factory=list)
    runs: list[dict] = field(default_factory=list)
    already_imported: bool = False

    def as_dict(self) -> dict:
        return {
            "submitter": self.submitter,
            "system": self.system,
            "benchmark": self.benchmark,
            "status": self.status,
            "score_minutes": self.score_minutes,
            "entry_id": self.entry_id,
            "errors": self.errors,
            "runs": self.runs,
        }


def mlperf_results_import(*, root: Path, training_round: TrainingRound) -> list[SetImport]:
    """Judge and import every set under `root` (MLCommons' published layout), in sorted order; a set refused or
    unreadable stores nothing and the others go on. Raises RejectedInput when `root` holds no set at all."""
    return [
        mlperf_set_import(result_set=result_set, training_round=training_round)
        for result_set in read_results_tree(root)
    ]


def mlperf_set_import(*, result_set: ResultSet, training_round: TrainingRound) -> SetImport:
    """One set: judged alone; when accepted, stored as an entry of its runs (unless imported before)."""
    verdict = judge_mlperf_set(result_set, training_round=training_round)
    task_slug, version = mlperf_task_slug(result_set.benchmark), mlperf_version(training_round.round)
    source_name = f"{training_round.round}/{result_set.folder}"[:255]
    outcome = {"entry_id": None, "errors": [_error(issue) for issue in verdict.errors]}
    already = False
    if verdict.accepted:
        imported = entry_import(
            task_slug=task_slug,
            track=Track.TRAIN,
            source_name=source_name,
            entry=Upload(name=f"{result_set.system}.json", content=result_set.system_json)
            if result_set.system_json is not None
            else None,
            logs=[Upload(name=file.name, content=file.data) for file in result_set.files],
            version=version,
            run_record={"scaling_factor": result_set.scaling_factor} if result_set.scaling_factor is not None else None,
        )
        already = imported.status == "skipped"
        entry_id = imported.entry_id
        if already:
            entry_id = (
                Entry.objects.filter(task__slug=task_slug, track=Track.TRAIN, source_name=source_name)
                .values_list("id", flat=True)
                .first()
            )
        outcome = {"entry_id": entry_id, "errors": [_error(issue) for issue in imported.errors]}
    accepted = verdict.accepted and not outcome["errors"]
    return SetImport(
        submitter=result_set.submitter,
        system=result_set.system,
        benchmark=result_set.benchmark,
        status="accepted" if accepted else "rejected",
        score_minutes=verdict.score_minutes if accepted else None,
        entry_id=outcome["entry_id"] if accepted else None,
        errors=outcome["errors"],
        runs=_runs(verdict),
        already_imported=already,
    )


def _runs(verdict: SetVerdict) -> list[dict]:
    return [
        {
            "file": run.file,
            "status": run.status,
            "minutes": run.minutes,
            "errors": [_error(issue, line=True) for issue in run.errors],
        }
        for run in verdict.runs
    ]


def _error(issue, *, line: bool = False) -> dict:
    """An error as the import's JSON shows it: its code and message (and its line, for a run's)."""
    as_dict = issue if isinstance(issue, dict) else issue.as_dict()
    shown = {"code": as_dict["code"], "message": as_dict["message"]}
    if line:
        shown["line"] = as_dict.get("line")
    return shown
