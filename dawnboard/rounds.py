"""Every MLPerf Training round from v0.7 to v6.1, as data: its benchmarks, how many runs each needs, how many the
olympic mean drops, and the quality each run must reach.

Written out here, never read from MLCommons' package at run time; `tests/dawnboard/test_rounds.py` checks every
figure against the installed `mlperf-logging` (4.1.68). Sources, in the mlcommons/logging repository:

- `mlperf_logging/benchmark_meta.py`: the benchmarks allowed in each round (`_ALL_ALLOWED_BENCHMARKS['training']`)
  and the result files (runs) each benchmark needs (`_ALL_RESULT_FILE_COUNTS['training']`).
- `mlperf_logging/compliance_checker/training_<ruleset>/closed_<benchmark>.yaml`: the closed division's quality
  target, the `ATLEAST_ONE_CHECK` of the `eval_accuracy` key (`aggregated_eval_accuracy` for stable_diffusion),
  and the metadata key its `CHECK` requires (`epoch_num`, `samples_count`, `step_num`): the unit progress is
  counted in. Each `QualityTarget.source` quotes its check as written there.
- `mlperf_logging/result_summarizer/result_summarizer.py` (`_compute_strong_score_standalone`): the olympic mean
  drops 4 runs each side for unet3d, 1 for every other benchmark; and mlcommons/training_policies
  `training_rules.adoc` (the "Benchmark results" section: the required runs and olympic scoring).

The open division is not described: since v1.0 its checker requires no target, and Dawnboard compares times
only at one target. Benchmarks were renamed over the rounds (ssd became retinanet in v5.0, gnn became rgat);
each round keeps the name its logs write in `submission_benchmark`.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

EPOCHS, SAMPLES, STEPS = "epochs", "samples", "steps"
# The MLLOG metadata key that counts a run's progress, per unit.
PROGRESS_KEYS = {EPOCHS: "epoch_num", SAMPLES: "samples_count", STEPS: "step_num"}

QUALITY_KEY = "eval_accuracy"  # the MLLOG key of every benchmark's quality, whatever the metric measures
IN_VALUE, IN_METADATA = "value", "metadata"  # where a sub-metric is found (see QualityTarget)

BENCHMARK_META = "mlperf_logging/benchmark_meta.py"
CHECKER = "mlperf_logging/compliance_checker"
SUMMARIZER = "mlperf_logging/result_summarizer/result_summarizer.py (_compute_strong_score_standalone)"
RULES = "mlcommons/training_policies training_rules.adoc (Benchmark results: runs, olympic scoring)"


@dataclass(frozen=True, kw_only=True)
class QualityTarget:
    """The quality a run must reach, as the closed division's compliance checker tests it.

    A value reaches the target when it is on the right side of `bound` (inclusive unless `bound_inclusive` is
    False) and not past `limit` (a value no real evaluation gives: an accuracy of 1.0, a loss of 0), as the
    checker's `ATLEAST_ONE_CHECK` writes it.

    Attributes:
        metric: the MLLOG key holding the quality, "eval_accuracy" in every round.
        bound: the target, in the metric's own scale (a fraction, a loss, a FID...).
        higher_is_better: True for accuracies, False for losses, error rates and FID.
        sub_metric: for a benchmark judged on several numbers at once, the one this target reads; None otherwise.
        sub_metric_in: where the sub-metric is: IN_VALUE (the record's value is an object keyed by sub-metric,
            maskrcnn's {"BBOX": .., "SEGM": ..}) or IN_METADATA (one record per sub-metric, named by
            metadata["metric"], grouped by their progress: stable_diffusion's FID and CLIP); None without one.
        bound_inclusive: whether a value equal to `bound` reaches it (qwen35_397b_grpo's check is strict).
        limit: the far end of the values that count, or None.
        limit_inclusive: whether a value equal to `limit` still counts.
        large_batch_bound, large_batch_from: v0.7 BERT only: the target is `large_batch_bound` when the run's
            global_batch_size is at least `large_batch_from`.
        source: the checker's file and check this target is read from (in the round's `source` folder).
    """

    metric: str = QUALITY_KEY
    bound: Decimal
    higher_is_better: bool
    sub_metric: str | None = None
    sub_metric_in: str | None = None
    bound_inclusive: bool = True
    limit: Decimal | None = None
    limit_inclusive: bool = False
    large_batch_bound: Decimal | None = None
    large_batch_from: int | None = None
    source: str

    def bound_for(self, global_batch_size: float | None) -> Decimal:
        """The bound a run with this global batch size must reach (None: the run did not log one)."""
        if self.large_batch_from is not None and global_batch_size is not None:
            if global_batch_size >= self.large_batch_from:
                return self.large_batch_bound
        return self.bound

    def reached_by(self, value: float, *, global_batch_size: float | None = None) -> bool:
        """Whether `value` reaches the target. Compared as the checker does, against the bound as a float (so
        a logged 0.72 reaches a target written 0.720); NaN reaches nothing."""
        bound = float(self.bound_for(global_batch_size))
        if self.higher_is_better:
            reached = value >= bound if self.bound_inclusive else value > bound
        else:
            reached = value <= bound if self.bound_inclusive else value < bound
        return reached and not self._past_limit(value)

    def _past_limit(self, value: float) -> bool:
        if self.limit is None:
            return False
        limit = float(self.limit)
        if self.higher_is_better:
            return value > limit if self.limit_inclusive else value >= limit
        return value < limit if self.limit_inclusive else value <= limit

    @property
    def label(self) -> str:
        """e.g. "eval_accuracy >= 0.759", "eval_accuracy[FID] <= 90.0"."""
        name = self.metric if self.sub_metric is None else f"{self.metric}[{self.sub_metric}]"
        sign = (">" if self.higher_is_better else "<") + ("=" if self.bound_inclusive else "")
        return f"{name} {sign} {self.bound}"


@dataclass(frozen=True, kw_only=True)
class RoundBenchmark:
    """One benchmark as a round defines it.

    Attributes:
        name: as logs write it in `submission_benchmark` and results trees name its folder.
        required_runs: the result files (runs) a set must hold.
        dropped_each_side: runs the olympic mean drops from each end (failed runs first from the slow end).
        targets: every one must be reached, by one evaluation.
        convergence_unit: what counts progress: EPOCHS, SAMPLES or STEPS (see `progress_key`).
        description: the task, the model, the data and the metric, in a line.
    """

    name: str
    required_runs: int
    dropped_each_side: int
    targets: tuple[QualityTarget, ...]
    convergence_unit: str
    description: str

    @property
    def progress_key(self) -> str:
        """The metadata key of a quality record that says how far the run was: "epoch_num", "samples_count"..."""
        return PROGRESS_KEYS[self.convergence_unit]


@dataclass(frozen=True, kw_only=True)
class TrainingRound:
    """One MLPerf Training round: "v2.0", checked by MLCommons' ruleset "2.0.0"."""

    round: str
    ruleset: str
    benchmarks: tuple[RoundBenchmark, ...]
    source: str

    @property
    def benchmark_names(self) -> tuple[str, ...]:
        return tuple(benchmark.name for benchmark in self.benchmarks)

    def benchmark(self, name: str) -> RoundBenchmark | None:
        """The benchmark of this round named `name`, or None."""
        return next((benchmark for benchmark in self.benchmarks if benchmark.name == name), None)


# _ALL_RESULT_FILE_COUNTS['training'] in benchmark_meta.py (ncf, gone before v0.7, left out).
REQUIRED_RUNS = {
    "bert": 10,
    "dlrm": 5,
    "dlrm_dcnv2": 10,
    "gnmt": 10,
    "gpt3": 3,
    "maskrcnn": 5,
    "minigo": 10,
    "resnet": 5,
    "ssd": 5,
    "retinanet": 5,
    "stable_diffusion": 10,
    "transformer": 10,
    "rnnt": 10,
    "unet3d": 40,
    "gnn": 10,
    "rgat": 10,
    "llama2_70b_lora": 10,
    "llama31_405b": 3,
    "llama31_8b": 10,
    "flux1": 10,
    "gpt_oss_20b": 10,
    "deepseekv3_671b": 3,
    "qwen35_397b_grpo": 3,
    "dlrmv4": 10,
}
DROPPED_EACH_SIDE_UNET3D = 4  # result_summarizer: max_dropped_scores = 4 if benchmark == "unet3d" else 1


def _benchmark(name: str, targets: tuple[QualityTarget, ...], unit: str, description: str) -> RoundBenchmark:
    return RoundBenchmark(
        name=name,
        required_runs=REQUIRED_RUNS[name],
        dropped_each_side=DROPPED_EACH_SIDE_UNET3D if name == "unet3d" else 1,
        targets=targets,
        convergence_unit=unit,
        description=description,
    )


def _at_least(bound: str, *, below: str | None, below_inclusive: bool = False, check: str, file: str) -> QualityTarget:
    """A higher-is-better target: `value >= bound` (and under `below`), as `file`'s `check` writes it."""
    return QualityTarget(
        bound=Decimal(bound),
        higher_is_better=True,
        limit=None if below is None else Decimal(below),
        limit_inclusive=below_inclusive,
        source=f"{file}: {check}",
    )


def _at_most(bound: str, *, above: str, check: str, file: str) -> QualityTarget:
    """A lower-is-better target: `value <= bound and value > above`, as `file`'s `check` writes it."""
    return QualityTarget(bound=Decimal(bound), higher_is_better=False, limit=Decimal(above), source=f"{file}: {check}")


# --- The benchmarks, each as long as its closed_<name>.yaml check stays the same. ---

BERT_V07 = _benchmark(
    "bert",
    (
        QualityTarget(
            bound=Decimal("0.712"),
            higher_is_better=True,
            limit=Decimal("1.0"),
            large_batch_bound=Decimal("0.706"),
            large_batch_from=8192,
            source="closed_bert.yaml: (v['value'] >= 0.712 if s['global_batch_size'] < 8192 else v['value'] >= 0.706)"
            " and v['value'] < 1.0",
        ),
    ),
    EPOCHS,
    "BERT-large pre-training on Wikipedia; masked-LM accuracy (0.712, or 0.706 from a global batch of 8192).",
)
BERT = _benchmark(
    "bert",
    (_at_least("0.720", below="1.0", check="(v['value'] >= 0.720) and v['value'] < 1.0", file="closed_bert.yaml"),),
    EPOCHS,
    "BERT-large pre-training on Wikipedia; masked-LM accuracy.",
)
DLRM = _benchmark(
    "dlrm",
    (_at_least("0.8025", below="1.0", check="v['value'] >= 0.8025 and v['value'] < 1.0", file="closed_dlrm.yaml"),),
    EPOCHS,
    "DLRM recommendation on Criteo Terabyte click logs; AUC.",
)
GNMT = _benchmark(
    "gnmt",
    (_at_least("0.240", below="1", check="v['value'] >= 0.240 and v['value'] < 1", file="closed_gnmt.yaml"),),
    EPOCHS,
    "GNMT translation on WMT16 English-German; BLEU as a fraction.",
)
TRANSFORMER = _benchmark(
    "transformer",
    (_at_least("0.2500", below="1", check="v['value'] >= 0.2500 and v['value'] < 1", file="closed_transformer.yaml"),),
    EPOCHS,
    "Transformer (big) translation on WMT17 English-German; BLEU as a fraction.",
)
MASKRCNN = _benchmark(
    "maskrcnn",
    tuple(
        QualityTarget(
            bound=Decimal(bound),
            higher_is_better=True,
            sub_metric=sub_metric,
            sub_metric_in=IN_VALUE,
            limit=Decimal("1.0"),
            source="closed_maskrcnn.yaml: v['value']['BBOX'] >= 0.377 and v['value']['BBOX'] < 1.0 and "
            "v['value']['SEGM'] >= 0.339 and v['value']['SEGM'] < 1.0",
        )
        for sub_metric, bound in (("BBOX", "0.377"), ("SEGM", "0.339"))
    ),
    EPOCHS,
    "Mask R-CNN detection and segmentation on COCO 2017; box mAP (BBOX) and mask mAP (SEGM), both.",
)
MINIGO = _benchmark(
    "minigo",
    (_at_least("0.5", below="1.0", check="v['value'] >= 0.5 and v['value'] < 1.0", file="closed_minigo.yaml"),),
    EPOCHS,
    "MiniGo reinforcement learning on 9x9 Go; win rate against the reference model.",
)
RESNET = _benchmark(
    "resnet",
    (_at_least("0.7590", below="1.0", check="v['value'] >= 0.7590 and v['value'] < 1.0", file="closed_resnet.yaml"),),
    EPOCHS,
    "ResNet-50 v1.5 image classification on ImageNet; top-1 accuracy.",
)
SSD_RESNET34 = _benchmark(
    "ssd",
    (_at_least("0.230", below="1.0", check="v['value'] >= 0.230 and v['value'] < 1.0", file="closed_ssd.yaml"),),
    EPOCHS,
    "SSD (ResNet-34 backbone) object detection on COCO 2017; mAP.",
)
SSD_RETINANET = _benchmark(
    "ssd",
    (_at_least("0.340", below="1.0", check="v['value'] >= 0.340 and v['value'] < 1.0", file="closed_ssd.yaml"),),
    EPOCHS,
    "RetinaNet (ResNeXt-50 backbone) object detection on an OpenImages subset, logged as ssd; mAP.",
)
RNNT = _benchmark(
    "rnnt",
    (_at_most("0.058", above="0.0", check="v['value'] <= 0.058 and v['value'] > 0.0", file="closed_rnnt.yaml"),),
    EPOCHS,
    "RNN-T speech recognition on LibriSpeech; word error rate.",
)
UNET3D = _benchmark(
    "unet3d",
    (_at_least("0.908", below=None, check="v['value'] >= 0.908", file="closed_unet3d.yaml"),),
    EPOCHS,
    "3D U-Net segmentation on KiTS19 kidney tumours; mean DICE score.",
)
DLRM_DCNV2 = _benchmark(
    "dlrm_dcnv2",
    (
        _at_least(
            "0.80275",
            below="1.0",
            below_inclusive=True,
            check="v['value'] >= 0.80275 and v['value'] <= 1.0",
            file="closed_dlrm_dcnv2.yaml",
        ),
    ),
    EPOCHS,
    "DLRM-DCNv2 recommendation on Criteo 4TB multi-hot; AUC.",
)
GPT3 = _benchmark(
    "gpt3",
    (_at_most("2.69", above="2.6", check="(v['value'] <= 2.69) and v['value'] > 2.6", file="closed_gpt3.yaml"),),
    EPOCHS,
    "GPT-3 175B pre-training on C4; log perplexity.",
)


def _stable_diffusion(unit: str) -> RoundBenchmark:
    check = "closed_stable_diffusion.yaml: (0.0 <= v['value']['FID'] <= 90.0) and (0.15 <= v['value']['CLIP'] <= 1.0)"
    targets = (
        QualityTarget(
            bound=Decimal("90.0"),
            higher_is_better=False,
            sub_metric="FID",
            sub_metric_in=IN_METADATA,
            limit=Decimal("0.0"),
            limit_inclusive=True,
            source=check,
        ),
        QualityTarget(
            bound=Decimal("0.15"),
            higher_is_better=True,
            sub_metric="CLIP",
            sub_metric_in=IN_METADATA,
            limit=Decimal("1.0"),
            limit_inclusive=True,
            source=check,
        ),
    )
    description = (
        "Stable Diffusion v2 text-to-image on LAION-400M, evaluated on COCO; FID and CLIP score at one checkpoint."
    )
    return _benchmark("stable_diffusion", targets, unit, description)


STABLE_DIFFUSION_V31 = _stable_diffusion(STEPS)  # v3.1 groups FID and CLIP by metadata step_num
STABLE_DIFFUSION = _stable_diffusion(SAMPLES)  # from v4.0, by samples_count
LLAMA2_70B_LORA = _benchmark(
    "llama2_70b_lora",
    (
        _at_most(
            "0.925", above="0.0", check="(v['value'] <= 0.925) and v['value'] > 0.0", file="closed_llama2_70b_lora.yaml"
        ),
    ),
    SAMPLES,
    "Llama 2 70B LoRA fine-tuning on SCROLLS GovReport; evaluation loss.",
)
GNN = _benchmark(
    "gnn",
    (_at_least("0.72", below="1.0", check="v['value'] >= 0.72 and v['value'] < 1.0", file="closed_gnn.yaml"),),
    EPOCHS,
    "R-GAT graph neural network node classification on IGBH-full, logged as gnn; accuracy.",
)
RGAT = _benchmark(
    "rgat",
    (_at_least("0.72", below="1.0", check="v['value'] >= 0.72 and v['value'] < 1.0", file="closed_rgat.yaml"),),
    EPOCHS,
    "R-GAT graph neural network node classification on IGBH-full; accuracy.",
)
RETINANET = _benchmark(
    "retinanet",
    (_at_least("0.340", below="1.0", check="v['value'] >= 0.340 and v['value'] < 1.0", file="closed_retinanet.yaml"),),
    EPOCHS,
    "RetinaNet (ResNeXt-50 backbone) object detection on an OpenImages subset; mAP.",
)
LLAMA31_405B = _benchmark(
    "llama31_405b",
    (_at_most("5.6", above="0.0", check="(v['value'] <= 5.6) and v['value'] > 0.0", file="closed_llama31_405b.yaml"),),
    SAMPLES,
    "Llama 3.1 405B pre-training on C4; log perplexity.",
)
LLAMA31_8B = _benchmark(
    "llama31_8b",
    (_at_most("3.3", above="0.0", check="(v['value'] <= 3.3) and v['value'] > 0.0", file="closed_llama31_8b.yaml"),),
    SAMPLES,
    "Llama 3.1 8B pre-training on C4; log perplexity.",
)
FLUX1 = _benchmark(
    "flux1",
    (_at_most("0.586", above="0.0", check="v['value'] <= 0.586 and v['value'] > 0.0", file="closed_flux1.yaml"),),
    SAMPLES,
    "FLUX.1 text-to-image training; validation loss.",
)
GPT_OSS_20B = _benchmark(
    "gpt_oss_20b",
    (_at_most("3.34", above="0.0", check="(v['value'] <= 3.34) and v['value'] > 0.0", file="closed_gpt_oss_20b.yaml"),),
    SAMPLES,
    "gpt-oss 20B mixture-of-experts language model pre-training; evaluation loss.",
)
DEEPSEEKV3_671B = _benchmark(
    "deepseekv3_671b",
    (
        _at_most(
            "3.6", above="0.0", check="(v['value'] <= 3.6) and v['value'] > 0.0", file="closed_deepseekv3_671b.yaml"
        ),
    ),
    SAMPLES,
    "DeepSeek-V3 671B mixture-of-experts language model pre-training; evaluation loss.",
)
QWEN35_397B_GRPO = _benchmark(
    "qwen35_397b_grpo",
    (
        QualityTarget(
            bound=Decimal("0.69"),
            higher_is_better=True,
            bound_inclusive=False,
            limit=Decimal("1.0"),
            limit_inclusive=True,
            source="closed_qwen35_397b_grpo.yaml: v['value'] > s['target_accuracy'] with 'target_accuracy': 0.69 "
            "(BEGIN), CHECK 0.0 <= v['value'] <= 1.0",
        ),
    ),
    SAMPLES,
    "Qwen3.5 397B reinforcement learning with GRPO; validation accuracy, strictly above the target.",
)
DLRMV4 = _benchmark(
    "dlrmv4",
    (
        QualityTarget(
            bound=Decimal("0.75"),
            higher_is_better=True,
            limit=Decimal("1.0"),
            limit_inclusive=True,
            source="closed_dlrmv4.yaml: v['value'] >= s['target_accuracy'] with 'target_accuracy': 0.75 (BEGIN), "
            "CHECK 0.0 <= v['value'] <= 1.0",
        ),
    ),
    SAMPLES,
    "DLRM v4 recommendation; evaluation accuracy.",
)


def _round(name: str, ruleset: str, *benchmarks: RoundBenchmark) -> TrainingRound:
    source = f"{BENCHMARK_META} ('{ruleset[:-2]}'); {CHECKER}/training_{ruleset}/; {SUMMARIZER}; {RULES}"
    return TrainingRound(round=name, ruleset=ruleset, benchmarks=benchmarks, source=source)


# In benchmark_meta.py's order, each name once (its 4.0 list names stable_diffusion twice).
TRAINING_ROUNDS: tuple[TrainingRound, ...] = (
    _round("v0.7", "0.7.0", BERT_V07, DLRM, GNMT, MASKRCNN, MINIGO, RESNET, SSD_RESNET34, TRANSFORMER),
    _round("v1.0", "1.0.0", BERT, DLRM, MASKRCNN, MINIGO, RESNET, SSD_RESNET34, RNNT, UNET3D),
    _round("v1.1", "1.1.0", BERT, DLRM, MASKRCNN, MINIGO, RESNET, SSD_RESNET34, RNNT, UNET3D),
    _round("v2.0", "2.0.0", BERT, DLRM, MASKRCNN, MINIGO, RESNET, SSD_RETINANET, RNNT, UNET3D),
    _round("v2.1", "2.1.0", BERT, DLRM, MASKRCNN, MINIGO, RESNET, SSD_RETINANET, RNNT, UNET3D),
    _round("v3.0", "3.0.0", BERT, DLRM_DCNV2, GPT3, MASKRCNN, RESNET, SSD_RETINANET, RNNT, UNET3D),
    _round(
        "v3.1",
        "3.1.0",
        BERT,
        DLRM_DCNV2,
        GPT3,
        MASKRCNN,
        RESNET,
        SSD_RETINANET,
        RNNT,
        UNET3D,
        STABLE_DIFFUSION_V31,
    ),
    _round(
        "v4.0", "4.0.0", BERT, DLRM_DCNV2, GPT3, RESNET, SSD_RETINANET, UNET3D, STABLE_DIFFUSION, LLAMA2_70B_LORA, GNN
    ),
    _round("v4.1", "4.1.0", BERT, DLRM_DCNV2, GPT3, SSD_RETINANET, STABLE_DIFFUSION, LLAMA2_70B_LORA, GNN),
    _round("v5.0", "5.0.0", BERT, DLRM_DCNV2, RETINANET, STABLE_DIFFUSION, LLAMA2_70B_LORA, RGAT, LLAMA31_405B),
    _round("v5.1", "5.1.0", LLAMA31_8B, DLRM_DCNV2, RETINANET, FLUX1, LLAMA2_70B_LORA, RGAT, LLAMA31_405B),
    _round("v6.0", "6.0.0", LLAMA31_8B, DLRM_DCNV2, FLUX1, LLAMA2_70B_LORA, LLAMA31_405B, GPT_OSS_20B, DEEPSEEKV3_671B),
    _round("v6.1", "6.1.0", LLAMA31_8B, FLUX1, LLAMA2_70B_LORA, GPT_OSS_20B, DEEPSEEKV3_671B, QWEN35_397B_GRPO, DLRMV4),
)


def round_named(name: str) -> TrainingRound:
    """The round written `name` ("v2.0").

    Raises:
        KeyError: naming the known rounds.
    """
    for training_round in TRAINING_ROUNDS:
        if training_round.round == name:
            return training_round
    known = ", ".join(training_round.round for training_round in TRAINING_ROUNDS)
    raise KeyError(f"{name!r} is not an MLPerf Training round Dawnboard knows; known rounds: {known}")
