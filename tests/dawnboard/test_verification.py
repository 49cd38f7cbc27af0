"""How far to trust an entry, as plain functions: the level its evidence gives, a reproduction's verdict, what it says
was evaluated, and the filters' parsing."""

from __future__ import annotations

import pytest

from dawnboard.verification import (
    Evaluated,
    Evidence,
    Reproduction,
    Verification,
    evaluation_statement,
    reproduction_verdict,
    verification_level,
    verification_levels_asked,
)


@pytest.mark.parametrize(
    ("evidence", "level"),
    [
        (Evidence(), Verification.SELF_REPORTED),
        (Evidence(figures_from_logs=True), Verification.LOG_VERIFIED),
        (Evidence(figures_from_logs=True, compliance_checked=True), Verification.COMPLIANCE_CHECKED),
        (Evidence(figures_from_logs=True, measured=True), Verification.MEASURED),
        (Evidence(figures_from_logs=True, compliance_checked=True, measured=True), Verification.MEASURED),
        (Evidence(figures_from_logs=True, measured=True, reproduced=True), Verification.REPRODUCED),
        (Evidence(reproduced=True), Verification.REPRODUCED),
    ],
)
def test_an_entry_holds_the_highest_level_its_evidence_supports(evidence, level):
    assert verification_level(evidence) == level


def test_no_reproduction_gives_no_verdict():
    assert reproduction_verdict(original_epochs=2, reproductions=[], recipe_run_epochs=[3.0]) is None


def test_a_reproduction_within_the_originals_epochs_reproduces_it():
    verdict = reproduction_verdict(
        original_epochs=24, reproductions=[Reproduction(entry_id=7, epochs=24)], recipe_run_epochs=[24]
    )

    assert verdict.reproduced and (verdict.spread_epochs, verdict.allowed_epochs, verdict.deciding_entry) == (0, 24, 7)
    assert verdict.as_dict()["status"] == "reproduced"


def test_the_spread_of_the_recipes_runs_is_allowed_on_top_of_the_originals_epochs():
    # Runs of the recipe reached the threshold at epochs 22, 23 and 25: a spread of 3, so 24 + 3 = 27 is allowed.
    runs = [22.0, 25.0, 23.0]

    within = reproduction_verdict(original_epochs=24, reproductions=[Reproduction(1, 27)], recipe_run_epochs=runs)
    beyond = reproduction_verdict(original_epochs=24, reproductions=[Reproduction(1, 27.5)], recipe_run_epochs=runs)

    assert within.reproduced and within.allowed_epochs == 27
    assert not beyond.reproduced
    assert (
        "Entry 1 reached the threshold at epoch 27.5; the original's epoch 24, plus a spread of 3 epochs over the "
        in (beyond.reason)
    )


def test_one_success_among_reproductions_decides_and_a_failure_names_the_fastest():
    reproductions = [Reproduction(1, 30), Reproduction(2, 24), Reproduction(3, 26)]

    reproduced = reproduction_verdict(original_epochs=24, reproductions=reproductions, recipe_run_epochs=[24])
    not_reproduced = reproduction_verdict(original_epochs=20, reproductions=reproductions, recipe_run_epochs=[24])

    assert reproduced.reproduced and reproduced.deciding_entry == 2
    assert not not_reproduced.reproduced and not_reproduced.deciding_entry == 2
    assert "(the fastest of 3 reproductions)" in not_reproduced.reason


@pytest.mark.parametrize(
    ("fields", "split", "exclusions", "evaluated"),
    [
        ({}, "", "", Evaluated.UNSTATED),
        ({"evaluationSplit": "validation"}, "validation", "", Evaluated.WHOLE),
        ({"evaluationExclusions": "none"}, "", "", Evaluated.WHOLE),
        ({"evaluationExclusions": ""}, "", "", Evaluated.WHOLE),
        ({"evaluationExclusions": None}, "", "", Evaluated.UNSTATED),
        ({"usedBlacklist": False}, "", "", Evaluated.WHOLE),
        (
            {"usedBlacklist": True},
            "",
            "ImageNet's blacklisted validation images (usedBlacklist)",
            Evaluated.WITH_EXCLUSIONS,
        ),
        (
            {"evaluationSplit": "dev", "evaluationExclusions": "questions without answers", "usedBlacklist": True},
            "dev",
            "questions without answers; ImageNet's blacklisted validation images (usedBlacklist)",
            Evaluated.WITH_EXCLUSIONS,
        ),
    ],
)
def test_what_an_entry_says_was_evaluated(fields, split, exclusions, evaluated):
    statement = evaluation_statement(fields)

    assert (statement.split, statement.exclusions, statement.evaluated) == (split, exclusions, evaluated)


def test_verification_filters_take_one_level_or_several_once_each():
    assert verification_levels_asked("measured") == ("measured",)
    assert verification_levels_asked(" measured, reproduced ,measured") == ("measured", "reproduced")


@pytest.mark.parametrize("value", ["", ",", "trusted", "measured,trusted", "Measured"])
def test_an_unknown_verification_level_is_refused_naming_the_levels(value):
    with pytest.raises(ValueError, match="self-reported, log-verified, compliance-checked, measured, reproduced"):
        verification_levels_asked(value)
