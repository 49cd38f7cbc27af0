"""How far to trust each entry, kept current: its verification level (`dawnboard.verification`), the verdict of its
reproductions, and its convergence against Dawnboard's reference runs, recomputed whenever an entry that bears on
them is stored or withdrawn (a reference run of its recipe, a reproduction of it, the entry itself).

A recipe's reference runs are the accepted entries of reference runs whose run record names it; the entries they
are compared with are its seed entries (named by the recipe, `dawnboard.recipes`) and the entries marked as
reproducing one of them.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.db.models import Q

from dawnboard.recipes import RECIPES, recipes_reproducing
from dawnboard.rules import Track
from dawnboard.validation.convergence import reference_convergence
from dawnboard.verification import Evidence, Reproduction, Verification, reproduction_verdict, verification_level
from leaderboard.models import Entry, Run, Submission

MEASURING_SOURCES = (Submission.Source.REFERENCE, Submission.Source.MEASURED)
REFERENCE_RUNS_KIND = "reference-runs"  # `Entry.convergence["kind"]` of a check against Dawnboard's reference runs
RCP_KIND = "rcp"  # of MLCommons' RCP check of an MLPerf set


def entry_evidence(entry: Entry) -> Evidence:
    """What the site knows of an entry that bears on its level."""
    return Evidence(
        figures_from_logs=entry.track == Track.TRAIN or bool(entry.loadgen_scenario),
        compliance_checked=bool(entry.compliance and entry.compliance.get("passed")),
        measured=entry.submission.source in MEASURING_SOURCES and entry.submission.run_record is not None,
        reproduced=bool(entry.reproduction and entry.reproduction.get("status") == "reproduced"),
    )


def entry_verification_refresh(*, entry: Entry) -> Verification:
    """Derive the entry's level again and store it where it moved (its stored catalog costs follow, by signal)."""
    level = verification_level(entry_evidence(entry))
    if entry.verification != level:
        entry.verification = level.value
        entry.save(update_fields=["verification"])
    return level


def entry_trust_refresh(*, entry: Entry) -> None:
    """After an entry is stored or withdrawn: its own level and convergence, and those of every entry it bears on
    (the seed it reproduces; for a reference run, its recipe's seeds and their reproductions)."""
    with transaction.atomic():
        affected: dict[int, Entry] = {entry.id: entry}
        recipe = recipe_of_record(entry.submission.run_record)
        if entry.submission.source == Submission.Source.REFERENCE and recipe:
            affected |= {one.id: one for one in recipe_compared_entries(task_id=entry.task_id, recipe=recipe)}
        if entry.reproduces_id:
            affected.setdefault(entry.reproduces_id, entry.reproduces)
        for one in affected.values():
            if one.status == Entry.Status.ACCEPTED:
                _reproduction_store(one)
                _reference_convergence_store(one)
            entry_verification_refresh(entry=one)


def entries_trust_refresh(*, entries: Iterable[Entry]) -> int:
    """Every entry's verdicts and level derived again (`verify_entries`); returns how many moved level."""
    moved = 0
    for entry in entries:
        before = entry.verification
        if entry.status == Entry.Status.ACCEPTED and entry.track == Track.TRAIN:
            _reproduction_store(entry)
            _reference_convergence_store(entry)
        moved += entry_verification_refresh(entry=entry) != before
    return moved


def recipe_of_record(record: dict | None) -> str:
    """The recipe a reference run's record names (a record of several runs: its first run's)."""
    if not isinstance(record, dict):
        return ""
    runs = record.get("runs")
    if isinstance(runs, list) and runs and isinstance(runs[0], dict):
        record = runs[0]
    recipe = record.get("recipe")
    return recipe if isinstance(recipe, str) else ""


def recipe_reference_entries(*, task_id: int, recipes: Iterable[str]) -> list[Entry]:
    """The accepted entries of reference runs of these recipes on the task, earliest first."""
    wanted = set(recipes)
    references = (
        Entry.objects.accepted()
        .filter(task_id=task_id, track=Track.TRAIN, submission__source=Submission.Source.REFERENCE)
        .select_related("submission")
        .order_by("created_at", "id")
    )
    return [entry for entry in references if recipe_of_record(entry.submission.run_record) in wanted]


def recipe_compared_entries(*, task_id: int, recipe: str) -> list[Entry]:
    """The recipe's seed entries on the board and the entries reproducing them."""
    seeds = next((spec.reproduces for spec in RECIPES if spec.name == recipe), ())
    if not seeds:
        return []
    return list(
        Entry.objects.accepted()
        .filter(task_id=task_id, track=Track.TRAIN)
        .filter(Q(source_name__in=seeds) | Q(reproduces__source_name__in=seeds))
        .select_related("submission", "task")
    )


def _seed_recipes(entry: Entry) -> list[str]:
    """The recipes whose reference runs an entry is compared with: a seed's own, or those of the seed it reproduces."""
    seed = entry if entry.source_name else entry.reproduces
    if seed is None or not seed.source_name:
        return []
    return [recipe.name for recipe in recipes_reproducing(entry.task.slug, seed.source_name)]


def _successful_epochs(entry_ids: Iterable[int]) -> list[float]:
    return list(
        Run.objects.filter(
            entry_id__in=list(entry_ids), status=Run.Status.SUCCESS, time_to_accuracy_epoch__isnull=False
        )
        .order_by("entry_id", "position")
        .values_list("time_to_accuracy_epoch", flat=True)
    )


def _reproduction_store(entry: Entry) -> None:
    """The verdict of the entry's accepted reproductions, against the spread of its recipe's runs: every successful
    run of its reproductions and of the reference runs of the recipes that reproduce it."""
    reproductions = list(
        entry.reproductions.accepted().order_by("created_at", "id").only("id", "time_to_accuracy_epoch")
    )
    verdict = None
    if reproductions and entry.time_to_accuracy_epoch is not None:
        references = recipe_reference_entries(task_id=entry.task_id, recipes=_seed_recipes(entry))
        run_epochs = _successful_epochs({one.id for one in reproductions} | {one.id for one in references})
        verdict = reproduction_verdict(
            original_epochs=entry.time_to_accuracy_epoch,
            reproductions=[
                Reproduction(entry_id=one.id, epochs=one.time_to_accuracy_epoch)
                for one in reproductions
                if one.time_to_accuracy_epoch is not None
            ],
            recipe_run_epochs=run_epochs,
        )
    document = verdict.as_dict() if verdict else None
    if entry.reproduction != document:
        entry.reproduction = document
        entry.save(update_fields=["reproduction"])


def _reference_convergence_store(entry: Entry) -> None:
    """A DAWNBench-format entry of a recipe with reference runs (a seed, or a reproduction of one), not itself a
    reference run: its epochs to accuracy against those of the recipe's reference runs. An MLPerf set keeps its RCP
    verdict."""
    if (entry.convergence or {}).get("kind") == RCP_KIND:
        return
    document = None
    is_reference = entry.submission.source == Submission.Source.REFERENCE
    recipes = [] if is_reference else _seed_recipes(entry)
    if recipes and entry.time_to_accuracy_epoch is not None:
        references = recipe_reference_entries(task_id=entry.task_id, recipes=recipes)
        if references:
            check = reference_convergence(
                entry.time_to_accuracy_epoch, _successful_epochs(one.id for one in references)
            )
            document = {"kind": REFERENCE_RUNS_KIND, "recipes": recipes, **check.as_dict()}
    if entry.convergence != document:
        entry.convergence = document
        entry.save(update_fields=["convergence"])
