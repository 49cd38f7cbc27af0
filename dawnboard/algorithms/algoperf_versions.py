"""AlgoPerf's own suites, v0.5 and v0.6, as `SuiteRules`: what `import_algoperf` scores AlgoPerf's published logs
(mlcommons/submissions_algorithms, `previous_leaderboards/algoperf_v05|v06/logs/<ruleset>/<submission>/study_<k>/
<workload>_<jax|pytorch>/trial_<j>/eval_measurements.csv`) against.

Every figure is copied from AlgoPerf's code at a pinned commit of mlcommons/algorithmic-efficiency:

- v0.5 (the 2024 competition): commit 698e945 (main, 2024-04-09). Its workload figures are the same at every main
  commit from there to bf61255 (2025-02-04), which spans the competition's runs (May to August 2024); the earlier tag
  v0.5.0 (5b4914f) still had WMT variant targets that were lowered on 2024-04-08 (cf436b0) before the runs.
- v0.6: commit 2c90454 (main, 2025-09-05, docs/DOCUMENTATION.md "Version: 0.6.0"). The v0.6 budgets came in with
  PR #838 (merged to main at 9653f18, 2025-02-11) and are unchanged from there to 2c90454; the published v0.6 logs
  were run in March 2025.

Targets are the values the logs' columns hold: ImageNet's code returns `1 - error_rate` for the `accuracy` metric,
so its targets are accuracies (0.77431, 0.77309), matching the `validation/accuracy` column of the published CSVs.
Cross-checked against mlcommons/submissions_algorithms@12c8e4e `scoring/workload_targets_v05.json` and
`scoring/workload_targets.json`, which AlgoPerf's scoring reads (identical targets).
"""

from __future__ import annotations

from dawnboard.algorithms.scoring import Target
from dawnboard.algorithms.suites import SuiteRules, WorkloadRules

ALGORITHMIC_EFFICIENCY = "mlcommons/algorithmic-efficiency"
SUBMISSIONS_ALGORITHMS = "mlcommons/submissions_algorithms"
V05_COMMIT = "698e945a5ad674897cf79e2945dcc15b51a59ab9"
V06_COMMIT = "2c90454fc05d5bdf3598b0c7651e611f132a7060"
SUBMISSIONS_COMMIT = "12c8e4ea93dc41a1ff6abc3debba9accd8ac1e3a"

# The metric's direction, as AlgoPerf's scoring has it (scoring/performance_profile.py: MIN_EVAL_METRICS has loss,
# wer, ...; MAX_EVAL_METRICS has mean_average_precision, ssim, accuracy, bleu).
_HIGHER_IS_BETTER = {
    "loss": False,
    "wer": False,
    "ssim": True,
    "accuracy": True,
    "mean_average_precision": True,
    "bleu": True,
}

# Each base workload: its metric, validation target, and where the target, the budget and the eval period are
# defined (relative to the package root: `algorithmic_efficiency/workloads/` at v0.5, `algoperf/workloads/` at v0.6).
_BASE_TARGETS: dict[str, tuple[str, float]] = {
    "criteo1tb": ("loss", 0.123735),
    "fastmri": ("ssim", 0.723653),
    "imagenet_resnet": ("accuracy", 1 - 0.22569),  # the code's own expression: 0.77431
    "imagenet_vit": ("accuracy", 1 - 0.22691),  # the code's own expression: 0.77309
    "librispeech_conformer": ("wer", 0.085884),
    "librispeech_deepspeech": ("wer", 0.119936),
    "ogbg": ("mean_average_precision", 0.28098),
    "wmt": ("bleu", 30.8491),
}
_BASE_FILES = {
    "criteo1tb": "criteo1tb/workload.py",
    "fastmri": "fastmri/workload.py",
    "imagenet_resnet": "imagenet_resnet/workload.py",
    "imagenet_vit": "imagenet_vit/workload.py",
    "librispeech_conformer": "librispeech_conformer/workload.py",
    # Target and budget in the framework files; the eval period inherited from librispeech_conformer/workload.py.
    "librispeech_deepspeech": "librispeech_deepspeech/librispeech_jax/workload.py",
    "ogbg": "ogbg/workload.py",
    "wmt": "wmt/workload.py",
}

# eval_period_time_sec, the same in both versions.
_EVAL_PERIOD_S = {
    "criteo1tb": 2 * 60,
    "fastmri": 80,
    "imagenet_resnet": 510,
    "imagenet_vit": 7 * 60,
    "librispeech_conformer": 24 * 60,
    "librispeech_deepspeech": 24 * 60,  # not overridden: LibriSpeechConformerWorkload's
    "ogbg": 4 * 60,
    "wmt": 14 * 60,
}

# max_allowed_runtime_sec (the external-tuning budget). PR #838 ("Update max allowed runtimes", commit 03bc79e)
# changed them for v0.6; criteo1tb's stayed 7703.
_RUNTIME_S = {
    "0.5": {
        "criteo1tb": 7703,
        "fastmri": 8859,
        "imagenet_resnet": 63_008,
        "imagenet_vit": 77_520,
        "librispeech_conformer": 61_068,
        "librispeech_deepspeech": 55_506,
        "ogbg": 18_477,
        "wmt": 48_151,
    },
    "0.6": {
        "criteo1tb": 7_703,
        "fastmri": 4_430,
        "imagenet_resnet": 66_159,
        "imagenet_vit": 69_768,
        "librispeech_conformer": 58_015,
        "librispeech_deepspeech": 44_405,
        "ogbg": 12_011,
        "wmt": 43_336,
    },
}

# v0.5's held-out workloads: one variant sampled per dataset (6 datasets, so imagenet_vit and librispeech_deepspeech
# have none) by scoring/algoperf_v05/generate_held_out_workloads.py with seed 3438810845, recorded in
# scoring/algoperf_v05/held_out_workloads_algoperf_v05.json (both repositories). Each gates the base workload whose
# name it extends (AlgoPerf's base_workload_name: the base name is a substring). A variant keeps its base's budget
# and eval period (its class overrides only the targets).
_V05_HELD_OUT: dict[str, tuple[str, str, float, str]] = {
    # variant: (base, metric, target, the file and class defining the target)
    "criteo1tb_embed_init": (
        "criteo1tb",
        "loss",
        0.129657,
        "criteo1tb/criteo1tb_jax/workload.py (Criteo1TbDlrmSmallEmbedInitWorkload)",
    ),
    "fastmri_tanh": ("fastmri", "ssim", 0.717840, "fastmri/fastmri_jax/workload.py (FastMRITanhWorkload)"),
    "imagenet_resnet_large_bn_init": (
        "imagenet_resnet",
        "accuracy",
        0.76526,
        "imagenet_resnet/imagenet_jax/workload.py (ImagenetResNetLargeBNScaleWorkload)",
    ),
    "librispeech_conformer_layernorm": (
        "librispeech_conformer",
        "wer",
        0.09731,
        "librispeech_conformer/librispeech_jax/workload.py (LibriSpeechConformerLayerNormWorkload)",
    ),
    "ogbg_model_size": (
        "ogbg",
        "mean_average_precision",
        0.269446,
        "ogbg/ogbg_jax/workload.py (OgbgModelSizeWorkload)",
    ),
    # Lowered from 29.6517 (tag v0.5.0) to 29.5779 by cf436b0 on 2024-04-08, before the competition's runs; the
    # scoring's workload_targets_v05.json has 29.5779 too.
    "wmt_glu_tanh": ("wmt", "bleu", 29.5779, "wmt/wmt_jax/workload.py (WmtWorkloadGLUTanH)"),
}


def _source(commit: str, package: str, *paths: str) -> str:
    return f"{ALGORITHMIC_EFFICIENCY}@{commit}: " + "; ".join(f"{package}/workloads/{path}" for path in paths)


def _target(metric: str, value: float) -> Target:
    return Target(f"validation/{metric}", value, _HIGHER_IS_BETTER[metric])


def _base_workloads(version: str, commit: str, package: str) -> tuple[WorkloadRules, ...]:
    return tuple(
        WorkloadRules(
            name=name,
            target=_target(metric, value),
            max_runtime_s=float(_RUNTIME_S[version][name]),
            eval_period_s=float(_EVAL_PERIOD_S[name]),
            source=_source(commit, package, _BASE_FILES[name]),
        )
        for name, (metric, value) in _BASE_TARGETS.items()
    )


def _v05_variants() -> tuple[WorkloadRules, ...]:
    return tuple(
        WorkloadRules(
            name=name,
            target=_target(metric, value),
            max_runtime_s=float(_RUNTIME_S["0.5"][base]),
            eval_period_s=float(_EVAL_PERIOD_S[base]),
            base=base,
            source=_source(V05_COMMIT, "algorithmic_efficiency", path, _BASE_FILES[base])
            + f"; sampled: {SUBMISSIONS_ALGORITHMS}@{SUBMISSIONS_COMMIT}:"
            " scoring/algoperf_v05/held_out_workloads_algoperf_v05.json",
        )
        for name, (base, metric, value, path) in _V05_HELD_OUT.items()
    )


ALGOPERF_0_5 = SuiteRules(
    name="algoperf-0.5",
    workloads=_base_workloads("0.5", V05_COMMIT, "algorithmic_efficiency") + _v05_variants(),
    # DOCUMENTATION.md: O=5 trials, S=5 studies; scoring/performance_profile.py: NUM_TRIALS = 5, NUM_STUDIES = 5.
    studies=5,
    trials=5,
    # submission_runner.py: `3 * workload.max_allowed_runtime_sec` for the self-tuning ruleset.
    self_tuning_runtime_factor=3.0,
    scored_variants=True,
    source=(
        f"{ALGORITHMIC_EFFICIENCY}@{V05_COMMIT}: DOCUMENTATION.md (Tuning, Scoring), submission_runner.py,"
        f" scoring/performance_profile.py; {SUBMISSIONS_ALGORITHMS}@{SUBMISSIONS_COMMIT}:"
        " scoring/workload_targets_v05.json, scoring/algoperf_v05/held_out_workloads_algoperf_v05.json"
    ),
)

ALGOPERF_0_6 = SuiteRules(
    name="algoperf-0.6",
    workloads=_base_workloads("0.6", V06_COMMIT, "algoperf"),
    # docs/DOCUMENTATION.md: 5 tuning trials, 3 independent studies; scoring/performance_profile.py: NUM_STUDIES = 3.
    studies=3,
    trials=5,
    # submission_runner.py: `1.5 * workload.max_allowed_runtime_sec` (commit ff0086c, "Use 1.5 instead of 3x").
    self_tuning_runtime_factor=1.5,
    # CHANGELOG 0.6.0: "Remove held-out workloads from the benchmark".
    scored_variants=False,
    source=(
        f"{ALGORITHMIC_EFFICIENCY}@{V06_COMMIT}: docs/DOCUMENTATION.md, docs/CHANGELOG.md, submission_runner.py,"
        f" scoring/performance_profile.py; {SUBMISSIONS_ALGORITHMS}@{SUBMISSIONS_COMMIT}: scoring/workload_targets.json"
    ),
)

ALGOPERF_VERSIONS: dict[str, SuiteRules] = {"0.5": ALGOPERF_0_5, "0.6": ALGOPERF_0_6}
