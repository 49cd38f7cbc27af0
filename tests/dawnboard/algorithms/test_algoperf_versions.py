"""AlgoPerf v0.5 and v0.6 as Dawnboard suites: the facts that could be copied wrong (names, metric columns and
directions, held-out variants, budgets, studies), checked against what AlgoPerf's code and published logs hold."""

from __future__ import annotations

import re

import pytest

from dawnboard.algorithms.algoperf_versions import ALGOPERF_0_5, ALGOPERF_0_6, ALGOPERF_VERSIONS

BASES = [
    "criteo1tb",
    "fastmri",
    "imagenet_resnet",
    "imagenet_vit",
    "librispeech_conformer",
    "librispeech_deepspeech",
    "ogbg",
    "wmt",
]

# Real header lines of published eval_measurements.csv files, one per base workload (mlcommons/
# submissions_algorithms@12c8e4e, previous_leaderboards/algoperf_v06/logs/external_tuning/baseline/study_0/
# <workload>_jax/trial_1/eval_measurements.csv; v0.5's have the same columns).
_PREFIX = (
    "accumulated_eval_time,accumulated_logging_time,accumulated_submission_time,global_step,preemption_count,score,"
)
HEADERS = {
    "criteo1tb": "test/loss,test/num_examples,total_duration,train/loss,validation/loss,validation/num_examples",
    "fastmri": "test/loss,test/num_examples,test/ssim,total_duration,train/loss,train/ssim,validation/loss,"
    "validation/num_examples,validation/ssim",
    "imagenet_resnet": "test/accuracy,test/loss,test/num_examples,total_duration,train/accuracy,train/loss,"
    "validation/accuracy,validation/loss,validation/num_examples",
    "imagenet_vit": "test/accuracy,test/loss,test/num_examples,total_duration,train/accuracy,train/loss,"
    "validation/accuracy,validation/loss,validation/num_examples",
    "librispeech_conformer": "test/ctc_loss,test/num_examples,test/wer,total_duration,train/ctc_loss,train/wer,"
    "validation/ctc_loss,validation/num_examples,validation/wer",
    "librispeech_deepspeech": "test/ctc_loss,test/num_examples,test/wer,total_duration,train/ctc_loss,train/wer,"
    "validation/ctc_loss,validation/num_examples,validation/wer",
    "ogbg": "test/accuracy,test/loss,test/mean_average_precision,test/num_examples,total_duration,train/accuracy,"
    "train/loss,train/mean_average_precision,validation/accuracy,validation/loss,validation/mean_average_precision,"
    "validation/num_examples",
    "wmt": "test/accuracy,test/bleu,test/loss,test/num_examples,total_duration,train/accuracy,train/bleu,train/loss,"
    "validation/accuracy,validation/bleu,validation/loss,validation/num_examples",
}

ALL = [ALGOPERF_0_5, ALGOPERF_0_6]


def test_versions_are_keyed_and_named():
    assert ALGOPERF_VERSIONS == {"0.5": ALGOPERF_0_5, "0.6": ALGOPERF_0_6}
    assert (ALGOPERF_0_5.name, ALGOPERF_0_6.name) == ("algoperf-0.5", "algoperf-0.6")


@pytest.mark.parametrize("suite", ALL, ids=lambda suite: suite.name)
def test_the_eight_base_workloads(suite):
    assert sorted(suite.base_workloads) == BASES


@pytest.mark.parametrize("suite", ALL, ids=lambda suite: suite.name)
def test_names_are_unique_and_carry_no_framework_suffix(suite):
    names = [workload.name for workload in suite.workloads]
    assert len(names) == len(set(names))
    assert not [name for name in names if re.search(r"_(jax|pytorch)$", name)]


@pytest.mark.parametrize("suite", ALL, ids=lambda suite: suite.name)
def test_each_target_column_is_in_the_published_header(suite):
    for workload in suite.workloads:
        base = workload.base or workload.name
        assert workload.target.metric in (_PREFIX + HEADERS[base]).split(","), workload.name


@pytest.mark.parametrize("suite", ALL, ids=lambda suite: suite.name)
def test_directions_follow_the_metric(suite):
    for workload in suite.workloads:
        lower = workload.target.metric in ("validation/loss", "validation/wer")
        assert workload.target.higher_is_better is not lower, workload.name


def test_imagenet_targets_are_accuracies_not_error_rates():
    for suite in ALL:
        assert suite.workload("imagenet_resnet").target.value == pytest.approx(0.77431)
        assert suite.workload("imagenet_vit").target.value == pytest.approx(0.77309)
    assert ALGOPERF_0_5.workload("imagenet_resnet_large_bn_init").target.value == pytest.approx(0.76526)


def test_v05_held_out_variants_one_per_dataset():
    assert ALGOPERF_0_5.scored_variants
    assert ALGOPERF_0_5.variants == {
        "criteo1tb_embed_init": "criteo1tb",
        "fastmri_tanh": "fastmri",
        "imagenet_resnet_large_bn_init": "imagenet_resnet",
        "librispeech_conformer_layernorm": "librispeech_conformer",
        "ogbg_model_size": "ogbg",
        "wmt_glu_tanh": "wmt",
    }
    # Sampled per dataset, so the second ImageNet and LibriSpeech workloads have none.
    for base in BASES:
        expected = 0 if base in ("imagenet_vit", "librispeech_deepspeech") else 1
        assert len(ALGOPERF_0_5.variants_of(base)) == expected, base


def test_v05_variants_extend_their_base_and_share_its_budget():
    for variant, base in ALGOPERF_0_5.variants.items():
        assert base in ALGOPERF_0_5.base_workloads
        assert variant.startswith(base + "_")  # AlgoPerf finds the base by its name
        rules, base_rules = ALGOPERF_0_5.workload(variant), ALGOPERF_0_5.workload(base)
        assert (rules.max_runtime_s, rules.eval_period_s) == (base_rules.max_runtime_s, base_rules.eval_period_s)
        assert rules.target.metric == base_rules.target.metric
        assert rules.target.higher_is_better == base_rules.target.higher_is_better


def test_v06_has_no_held_out_variants():
    assert not ALGOPERF_0_6.scored_variants
    assert ALGOPERF_0_6.variants == {}


def test_studies_trials_and_self_tuning_budgets():
    assert (ALGOPERF_0_5.studies, ALGOPERF_0_5.trials, ALGOPERF_0_5.self_tuning_runtime_factor) == (5, 5, 3.0)
    assert (ALGOPERF_0_6.studies, ALGOPERF_0_6.trials, ALGOPERF_0_6.self_tuning_runtime_factor) == (3, 5, 1.5)
    assert ALGOPERF_0_5.trials_per_study("self") == ALGOPERF_0_6.trials_per_study("self") == 1
    assert ALGOPERF_0_5.budget_s("fastmri", "self") == 3 * 8859
    assert ALGOPERF_0_6.budget_s("fastmri", "self") == 1.5 * 4430


def test_budgets_changed_from_v05_to_v06_but_targets_and_eval_periods_did_not():
    v05 = {name: ALGOPERF_0_5.workload(name).max_runtime_s for name in BASES}
    v06 = {name: ALGOPERF_0_6.workload(name).max_runtime_s for name in BASES}
    assert v05 == {
        "criteo1tb": 7703,
        "fastmri": 8859,
        "imagenet_resnet": 63008,
        "imagenet_vit": 77520,
        "librispeech_conformer": 61068,
        "librispeech_deepspeech": 55506,
        "ogbg": 18477,
        "wmt": 48151,
    }
    assert v06 == {
        "criteo1tb": 7703,
        "fastmri": 4430,
        "imagenet_resnet": 66159,
        "imagenet_vit": 69768,
        "librispeech_conformer": 58015,
        "librispeech_deepspeech": 44405,
        "ogbg": 12011,
        "wmt": 43336,
    }
    for name in BASES:
        assert ALGOPERF_0_5.workload(name).target == ALGOPERF_0_6.workload(name).target
        assert ALGOPERF_0_5.workload(name).eval_period_s == ALGOPERF_0_6.workload(name).eval_period_s


@pytest.mark.parametrize("suite", ALL, ids=lambda suite: suite.name)
def test_every_figure_names_a_pinned_commit(suite):
    for rules in (*suite.workloads, suite):
        assert "mlcommons/" in rules.source and re.search(r"@[0-9a-f]{40}\b", rules.source), rules.source
