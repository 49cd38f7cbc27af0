"""How far to trust an entry: its verification level, the verdict of a reproduction of it, and what it says was
evaluated. Plain functions over what the site knows of an entry; the site stores their answers on the entry.

The five levels, from the least evidence to the most (an entry holds the highest that applies):
- `self-reported`: claimed figures no log supports (a DAWNBench inference entry's latency);
- `log-verified`: every figure on the board recomputed from the entry's logs (a training log; LoadGen's logs of
  an inference entry);
- `compliance-checked`: MLPerf Training logs that pass MLCommons' compliance checker for their round, beside
  Dawnboard's stricter judge;
- `measured`: produced by Dawnboard's own reference job or inference harness, with its run record;
- `reproduced`: another run of the same recipe (a reference run, or a second party's entry marked as a
  reproduction) reached the threshold within the original's epochs to accuracy plus the spread of the recipe's
  runs (`reproduction_verdict`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from dawnboard import display


class Verification(StrEnum):
    SELF_REPORTED = "self-reported"
    LOG_VERIFIED = "log-verified"
    COMPLIANCE_CHECKED = "compliance-checked"
    MEASURED = "measured"
    REPRODUCED = "reproduced"

    @property
    def description(self) -> str:
        return VERIFICATION_DESCRIPTIONS[self]


VERIFICATION_DESCRIPTIONS = {
    Verification.SELF_REPORTED: "Claimed figures without a log that supports them.",
    Verification.LOG_VERIFIED: "Every figure on the board recomputed from the entry's logs.",
    Verification.COMPLIANCE_CHECKED: (
        "MLPerf logs that pass MLCommons' compliance checker for their round and Dawnboard's stricter rules."
    ),
    Verification.MEASURED: "Produced by Dawnboard's own reference job or inference harness, with its run record.",
    Verification.REPRODUCED: (
        "Another run of the same recipe reached the threshold within the original's epochs plus the spread of the "
        "recipe's runs."
    ),
}
VERIFICATION_LEVELS = tuple(level.value for level in Verification)  # least evidence first


@dataclass(frozen=True)
class Evidence:
    """What the site knows of an entry that bears on its level.

    Attributes:
        figures_from_logs: every figure the entry is ranked by was recomputed from its logs (a training entry's
            time; an inference entry's latency from LoadGen's logs).
        compliance_checked: its MLPerf logs passed MLCommons' compliance checker (and were accepted by ours).
        measured: Dawnboard's reference job or inference harness produced it, and its run record is stored.
        reproduced: a reproduction of it succeeded (`reproduction_verdict`).
    """

    figures_from_logs: bool = False
    compliance_checked: bool = False
    measured: bool = False
    reproduced: bool = False


def verification_level(evidence: Evidence) -> Verification:
    """The highest level the evidence supports."""
    if evidence.reproduced:
        return Verification.REPRODUCED
    if evidence.measured:
        return Verification.MEASURED
    if evidence.compliance_checked:
        return Verification.COMPLIANCE_CHECKED
    if evidence.figures_from_logs:
        return Verification.LOG_VERIFIED
    return Verification.SELF_REPORTED


@dataclass(frozen=True)
class Reproduction:
    """One reproduction of an entry: the reproducing entry and the epochs at which it reached the threshold."""

    entry_id: int
    epochs: float


@dataclass(frozen=True)
class ReproductionVerdict:
    """Whether an entry was reproduced: by the first reproduction within the allowance, else not by any.

    Attributes:
        reproduced: some reproduction reached the threshold within `allowed_epochs`.
        original_epochs: the original's epochs to accuracy.
        spread_epochs: the spread (slowest less fastest) of the epochs to accuracy of the recipe's runs.
        allowed_epochs: original_epochs + spread_epochs.
        reproductions: every reproduction considered, earliest first.
        deciding_entry: the reproduction that decided it (the first within the allowance; else the fastest).
        reason: one sentence with the figures, for the entry page.
    """

    reproduced: bool
    original_epochs: float
    spread_epochs: float
    allowed_epochs: float
    reproductions: tuple[Reproduction, ...]
    deciding_entry: int
    reason: str

    def as_dict(self) -> dict:
        return {
            "status": "reproduced" if self.reproduced else "not reproduced",
            "original_epochs": self.original_epochs,
            "spread_epochs": self.spread_epochs,
            "allowed_epochs": self.allowed_epochs,
            "reproductions": [{"entry": one.entry_id, "epochs": one.epochs} for one in self.reproductions],
            "deciding_entry": self.deciding_entry,
            "reason": self.reason,
        }


def reproduction_verdict(
    *, original_epochs: float, reproductions: Sequence[Reproduction], recipe_run_epochs: Sequence[float]
) -> ReproductionVerdict | None:
    """The verdict on an entry with these reproductions (None: it has none).

    A reproduction succeeds when it reached the threshold within the original's epochs to accuracy plus the spread
    of the recipe's runs: the slowest less the fastest epochs to accuracy of every successful run of the recipe's
    reference runs (0 with fewer than two). One success reproduces the entry.
    """
    if not reproductions:
        return None
    spread = max(recipe_run_epochs) - min(recipe_run_epochs) if len(recipe_run_epochs) >= 2 else 0.0
    allowed = original_epochs + spread
    within = [one for one in reproductions if one.epochs <= allowed]
    deciding = within[0] if within else min(reproductions, key=lambda one: (one.epochs, one.entry_id))
    others = f" (the fastest of {len(reproductions)} reproductions)" if len(reproductions) > 1 and not within else ""
    reason = (
        f"Entry {deciding.entry_id}{others} reached the threshold at epoch {display.number(deciding.epochs)}; "
        f"the original's epoch {display.number(original_epochs)}, plus a spread of {display.number(spread)} epochs "
        f"over the recipe's {len(recipe_run_epochs)} run(s), allows {display.number(allowed)}."
    )
    return ReproductionVerdict(
        reproduced=bool(within),
        original_epochs=original_epochs,
        spread_epochs=spread,
        allowed_epochs=allowed,
        reproductions=tuple(reproductions),
        deciding_entry=deciding.entry_id,
        reason=reason,
    )


class Evaluated(StrEnum):
    """What an entry says it was evaluated on, as a filter: the whole split, with exclusions, or nothing said."""

    WHOLE = "whole"
    WITH_EXCLUSIONS = "with-exclusions"
    UNSTATED = "unstated"

    @property
    def label(self) -> str:
        return {"whole": "the whole split", "with-exclusions": "with exclusions", "unstated": "not stated"}[self.value]


# The entry fields that say what was evaluated: Dawnboard's two, and DAWNBench's ImageNet `usedBlacklist` (whether
# the blacklisted validation images were left out; issue 36 of stanford-futuredata/dawn-bench-entries).
EVALUATION_SPLIT_FIELD = "evaluationSplit"
EVALUATION_EXCLUSIONS_FIELD = "evaluationExclusions"
USED_BLACKLIST_FIELD = "usedBlacklist"
BLACKLIST_EXCLUSION = "ImageNet's blacklisted validation images (usedBlacklist)"
NO_EXCLUSIONS = ("", "none")


@dataclass(frozen=True)
class EvaluationStatement:
    """What an entry states of its evaluation: the split (empty: not said) and the exclusions (empty: none said)."""

    split: str = ""
    exclusions: str = ""
    stated: bool = False  # it said anything: a split, exclusions, or none

    @property
    def evaluated(self) -> Evaluated:
        if self.exclusions:
            return Evaluated.WITH_EXCLUSIONS
        return Evaluated.WHOLE if self.stated else Evaluated.UNSTATED


def evaluation_statement(fields: Mapping[str, Any]) -> EvaluationStatement:
    """What an entry's fields (as checked: `evaluationSplit` and `evaluationExclusions` text, `usedBlacklist` a
    boolean) say was evaluated. `usedBlacklist: false` states the whole set; an exclusions text of "none" none."""
    split = str(fields.get(EVALUATION_SPLIT_FIELD) or "").strip()
    exclusions = str(fields.get(EVALUATION_EXCLUSIONS_FIELD) or "").strip()
    stated = bool(split) or fields.get(EVALUATION_EXCLUSIONS_FIELD) is not None
    if exclusions.lower() in NO_EXCLUSIONS:
        exclusions = ""
    blacklist = fields.get(USED_BLACKLIST_FIELD)
    if isinstance(blacklist, bool):
        stated = True
        if blacklist:
            exclusions = f"{exclusions}; {BLACKLIST_EXCLUSION}" if exclusions else BLACKLIST_EXCLUSION
    return EvaluationStatement(split=split, exclusions=exclusions, stated=stated)


def verification_levels_asked(value: str) -> tuple[str, ...]:
    """The levels a `?verification=` filter asks for: one level or several, comma-separated. Raises ValueError
    naming the known levels for anything else."""
    asked = tuple(dict.fromkeys(part.strip() for part in value.split(",") if part.strip()))
    unknown = [part for part in asked if part not in VERIFICATION_LEVELS]
    if not asked or unknown:
        shown = (unknown[0] if unknown else value)[:50]
        raise ValueError(f"Unknown verification level '{shown}'; use one or more of: {', '.join(VERIFICATION_LEVELS)}.")
    return asked
