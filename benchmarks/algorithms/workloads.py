"""The CPU suite's workloads: data that ships with an installed package or comes from a published deterministic
generator, a fixed split, model, loss, evaluation, target, maximum runtime and evaluation period each. Every one
fits in memory.

- `digits_cnn`: scikit-learn's 8x8 digits (the bundled task's data and split), a small CNN; validation accuracy;
- `breast_cancer_mlp`: scikit-learn's Wisconsin breast cancer table (569 rows, 30 features, standardised by the
  training rows' statistics), a two-layer MLP; validation accuracy;
- `diabetes_mlp`: scikit-learn's diabetes regression (442 rows, 10 features; the target standardised), a two-layer
  MLP; validation mean squared error (minimised);
- `madelon_mlp`: Guyon's MADELON generator (`make_classification`), 20,000 rows, 4 classes; validation accuracy;
- `friedman_mlp`: Friedman's first regression problem (`make_friedman1`), 10,000 rows; validation mean squared
  error (minimised);
- `pydoc_transformer`: a character-level transformer language model on Python's documentation topics
  (`pydoc_data.topics`, shipped with CPython); validation cross-entropy (minimised).

Each target is one a tuned AdamW reaches inside the budget on 2 CPU cores (tests/benchmarks/algorithms).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.algorithms import spec
from benchmarks.networks.char_transformer import CharTransformer
from benchmarks.networks.digits_cnn import DigitsCNN
from benchmarks.workloads.digits import digits_split
from dawnboard.algorithms.suites import CPU_SUITE

SPLIT_SEED = 0
VALIDATION_FRACTION = 0.25


class InMemoryWorkload(spec.Workload):
    """A workload whose examples are held as tensors: batches drawn without replacement, epoch after epoch, in an
    order drawn from the data seed; evaluation over the whole validation split in one pass (and the training split's
    loss), never on the clock."""

    eval_batch_size = 1024

    def __init__(self):
        self.train_inputs, self.train_targets, self.validation_inputs, self.validation_targets = self.load()

    def load(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        raise NotImplementedError

    def build_model(self) -> nn.Module:
        raise NotImplementedError

    def init_model_fn(self, rng: spec.RandomState) -> tuple[nn.Module, None]:
        torch.manual_seed(rng)
        return self.build_model(), None

    def _build_input_queue(self, data_rng, split, data_dir, global_batch_size) -> Iterator[dict[str, torch.Tensor]]:
        inputs, targets = self.train_inputs, self.train_targets
        generator = torch.Generator().manual_seed(int(data_rng))
        while True:
            order = torch.randperm(len(inputs), generator=generator)
            for start in range(0, len(order) - global_batch_size + 1, global_batch_size):
                chosen = order[start : start + global_batch_size]
                yield {"inputs": inputs[chosen], "targets": targets[chosen]}

    @property
    def num_train_examples(self) -> int:
        return len(self.train_inputs)

    def evaluate(self, params: nn.Module, model_state) -> dict[str, float]:
        """`train/loss`, `validation/loss` and the validation metric, over whole splits, in eval mode."""
        metrics = {}
        for split, inputs, targets in (
            ("train", self.train_inputs, self.train_targets),
            ("validation", self.validation_inputs, self.validation_targets),
        ):
            outputs = torch.cat(
                [
                    self.model_fn(params, {"inputs": inputs[i : i + self.eval_batch_size]}, model_state,
                                  spec.ForwardPassMode.EVAL, 0, False)[0]
                    for i in range(0, len(inputs), self.eval_batch_size)
                ]
            )  # fmt: skip
            losses = self.loss_fn(targets, outputs)
            metrics[f"{split}/loss"] = float(losses["summed"] / losses["n_valid_examples"])
            metrics.update({f"{split}/{name}": value for name, value in self.metrics(outputs, targets).items()})
        return metrics

    def metrics(self, outputs: torch.Tensor, targets: torch.Tensor) -> dict[str, float]:
        return {}


class ClassificationWorkload(InMemoryWorkload):
    loss_type = spec.LossType.SOFTMAX_CROSS_ENTROPY

    def loss_fn(self, label_batch, logits_batch, mask_batch=None, label_smoothing=0.0):
        per_example = F.cross_entropy(logits_batch, label_batch, reduction="none", label_smoothing=label_smoothing)
        if mask_batch is not None:
            per_example = per_example * mask_batch
        valid = mask_batch.sum() if mask_batch is not None else torch.tensor(float(len(label_batch)))
        return {"summed": per_example.sum(), "n_valid_examples": valid, "per_example": per_example}

    def metrics(self, outputs, targets):
        return {"accuracy": float((outputs.argmax(dim=1) == targets).float().mean())}


class RegressionWorkload(InMemoryWorkload):
    loss_type = spec.LossType.MEAN_SQUARED_ERROR

    def loss_fn(self, label_batch, logits_batch, mask_batch=None, label_smoothing=0.0):
        per_example = (logits_batch.squeeze(-1) - label_batch) ** 2
        if mask_batch is not None:
            per_example = per_example * mask_batch
        valid = mask_batch.sum() if mask_batch is not None else torch.tensor(float(len(label_batch)))
        return {"summed": per_example.sum(), "n_valid_examples": valid, "per_example": per_example}

    def metrics(self, outputs, targets):
        return {"mean_squared_error": float(((outputs.squeeze(-1) - targets) ** 2).mean())}


class DigitsCNNWorkload(ClassificationWorkload):
    name = "digits_cnn"
    step_hint = 600  # about 28 epochs at batch 64

    def load(self):
        return _tensors(*digits_split(), targets=torch.int64)

    def build_model(self) -> nn.Module:
        return DigitsCNN(width=32)


def _table(loader: Callable, *, stratify: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A scikit-learn table split 75/25 (stratified for classes) by a fixed seed, its features standardised by the
    training rows' mean and deviation."""
    from sklearn.model_selection import train_test_split

    features, targets = loader(return_X_y=True)
    train_x, val_x, train_y, val_y = train_test_split(
        features,
        targets,
        test_size=VALIDATION_FRACTION,
        random_state=SPLIT_SEED,
        stratify=targets if stratify else None,
    )
    mean, deviation = train_x.mean(axis=0), train_x.std(axis=0) + 1e-8
    return (train_x - mean) / deviation, train_y, (val_x - mean) / deviation, val_y


def _tensors(*arrays: np.ndarray, targets: torch.dtype) -> tuple[torch.Tensor, ...]:
    """(train inputs, train targets, validation inputs, validation targets) as float32 inputs and `targets` targets."""
    return tuple(
        torch.tensor(array, dtype=torch.float32 if index % 2 == 0 else targets) for index, array in enumerate(arrays)
    )


def _mlp(
    inputs: int,
    outputs: int,
    width: int,
    *,
    activation: type[nn.Module] = nn.ReLU,
    normalisation: type[nn.Module] | None = None,
) -> nn.Module:
    """Two hidden layers of `width`, each followed by `normalisation` (if any) and `activation`."""
    layers: list[nn.Module] = []
    for size in (inputs, width):
        layers += [nn.Linear(size, width), *([normalisation(width)] if normalisation else []), activation()]
    return nn.Sequential(*layers, nn.Linear(width, outputs))


class BreastCancerMLPWorkload(ClassificationWorkload):
    name = "breast_cancer_mlp"
    step_hint = 2000

    def load(self):
        from sklearn.datasets import load_breast_cancer

        return _tensors(*_table(load_breast_cancer, stratify=True), targets=torch.int64)

    def build_model(self) -> nn.Module:
        return _mlp(30, 2, 64)


class DiabetesMLPWorkload(RegressionWorkload):
    name = "diabetes_mlp"
    step_hint = 2000

    def load(self):
        from sklearn.datasets import load_diabetes

        train_x, train_y, val_x, val_y = _table(load_diabetes, stratify=False)
        mean, deviation = train_y.mean(), train_y.std()
        return _tensors(train_x, (train_y - mean) / deviation, val_x, (val_y - mean) / deviation, targets=torch.float32)

    def build_model(self) -> nn.Module:
        return _mlp(10, 1, 64)


class MadelonMLPWorkload(ClassificationWorkload):
    """Guyon's MADELON generator as scikit-learn publishes it (`make_classification`, a fixed seed): 20,000 rows
    of 40 features (12 informative, 8 redundant), 4 classes of 2 clusters each, 2 % of labels flipped."""

    name = "madelon_mlp"
    step_hint = 4000

    def load(self):
        from sklearn.datasets import make_classification

        def generated(return_X_y: bool):
            return make_classification(
                n_samples=20_000, n_features=40, n_informative=12, n_redundant=8, n_classes=4,
                n_clusters_per_class=2, flip_y=0.02, class_sep=1.0, random_state=SPLIT_SEED,
            )  # fmt: skip

        return _tensors(*_table(generated, stratify=True), targets=torch.int64)

    def build_model(self) -> nn.Module:
        return _mlp(40, 4, 128)


class FriedmanMLPWorkload(RegressionWorkload):
    """Friedman's first regression problem (1991) as scikit-learn publishes it (`make_friedman1`, a fixed seed):
    10,000 rows of 10 features, 5 of them used, Gaussian noise of deviation 1; the target standardised."""

    name = "friedman_mlp"
    step_hint = 3000

    def load(self):
        from sklearn.datasets import make_friedman1

        def generated(return_X_y: bool):
            return make_friedman1(n_samples=10_000, n_features=10, noise=1.0, random_state=SPLIT_SEED)

        train_x, train_y, val_x, val_y = _table(generated, stratify=False)
        mean, deviation = train_y.mean(), train_y.std()
        return _tensors(train_x, (train_y - mean) / deviation, val_x, (val_y - mean) / deviation, targets=torch.float32)

    def build_model(self) -> nn.Module:
        return _mlp(10, 1, 128)


class PydocTransformerWorkload(InMemoryWorkload):
    """A character-level causal transformer language model (`benchmarks.networks.char_transformer`: 2 layers, width
    64, 4 heads, context 64) on the text of Python's own documentation topics, which ship with CPython
    (`pydoc_data.topics`, about 465,000 characters, 103 distinct): its first 90 % trains (windows drawn at random
    offsets), its last 10 % validates (the first 256 whole windows). Validation cross-entropy in nats a character,
    minimised."""

    name = "pydoc_transformer"
    step_hint = 3000
    loss_type = spec.LossType.SOFTMAX_CROSS_ENTROPY
    context = 64
    evaluation_windows = 256

    def load(self):
        import pydoc_data.topics

        text = "\n\n".join(pydoc_data.topics.topics[key] for key in sorted(pydoc_data.topics.topics))
        self.characters = sorted(set(text))
        lookup = {character: index for index, character in enumerate(self.characters)}
        ids = torch.tensor([lookup[character] for character in text], dtype=torch.int64)
        cut = int(len(ids) * 0.9)
        train, validation = ids[:cut], ids[cut:]
        return train, None, self._windows(validation), None

    def _windows(self, ids: torch.Tensor) -> torch.Tensor:
        span = self.context + 1
        return ids[: (len(ids) // span) * span].view(-1, span)[: self.evaluation_windows]

    def build_model(self) -> nn.Module:
        return CharTransformer(len(self.characters), self.context)

    def _build_input_queue(self, data_rng, split, data_dir, global_batch_size):
        generator = torch.Generator().manual_seed(int(data_rng))
        offsets = torch.arange(self.context + 1)
        while True:
            starts = torch.randint(
                0, len(self.train_inputs) - self.context - 1, (global_batch_size,), generator=generator
            )
            windows = self.train_inputs[starts[:, None] + offsets]
            yield {"inputs": windows[:, :-1], "targets": windows[:, 1:]}

    def loss_fn(self, label_batch, logits_batch, mask_batch=None, label_smoothing=0.0):
        per_example = F.cross_entropy(
            logits_batch.flatten(0, 1), label_batch.flatten(), reduction="none", label_smoothing=label_smoothing
        ).view(label_batch.shape)
        return {"summed": per_example.sum(), "n_valid_examples": torch.tensor(float(per_example.numel())),
                "per_example": per_example.mean(dim=1)}  # fmt: skip

    def evaluate(self, params: nn.Module, model_state) -> dict[str, float]:
        metrics = {}
        train_windows = self._windows(self.train_inputs[-len(self.validation_inputs.flatten()) * 2 :])
        for split, windows in (("train", train_windows), ("validation", self.validation_inputs)):
            logits, _ = self.model_fn(
                params, {"inputs": windows[:, :-1]}, model_state, spec.ForwardPassMode.EVAL, 0, False
            )
            losses = self.loss_fn(windows[:, 1:], logits)
            metrics[f"{split}/loss"] = float(losses["summed"] / losses["n_valid_examples"])
        return metrics

    @property
    def num_train_examples(self) -> int:
        return len(self.train_inputs) - self.context


WORKLOADS: dict[str, type[InMemoryWorkload]] = {
    workload.name: workload
    for workload in (
        DigitsCNNWorkload,
        BreastCancerMLPWorkload,
        DiabetesMLPWorkload,
        MadelonMLPWorkload,
        FriedmanMLPWorkload,
        PydocTransformerWorkload,
    )
}


class MadelonMLPTanhWorkload(MadelonMLPWorkload):
    """Held-out variant of madelon_mlp: tanh in place of ReLU."""

    name = "madelon_mlp_tanh"

    def build_model(self) -> nn.Module:
        return _mlp(40, 4, 128, activation=nn.Tanh)


class MadelonMLPLayerNormWorkload(MadelonMLPWorkload):
    """Held-out variant of madelon_mlp: a layer norm after each hidden layer."""

    name = "madelon_mlp_layernorm"

    def build_model(self) -> nn.Module:
        return _mlp(40, 4, 128, normalisation=nn.LayerNorm)


class FriedmanMLPWideWorkload(FriedmanMLPWorkload):
    """Held-out variant of friedman_mlp: hidden layers four times as wide."""

    name = "friedman_mlp_wide"

    def build_model(self) -> nn.Module:
        return _mlp(10, 1, 512)


# Held-out variants (AlgoPerf v0.5): never tuned on; one is sampled by seed for each base workload that has some,
# and the base workload's time counts only if the same trials reach the variant's target too. Which base each
# variant belongs to is the suite's rule (`CPU_SUITE`); here are their classes.
VARIANTS: dict[str, type[InMemoryWorkload]] = {
    variant.name: variant for variant in (MadelonMLPTanhWorkload, MadelonMLPLayerNormWorkload, FriedmanMLPWideWorkload)
}
HELD_OUT: dict[str, tuple[type[InMemoryWorkload], ...]] = {
    base: tuple(VARIANTS[name] for name in CPU_SUITE.variants_of(base))
    for base in CPU_SUITE.base_workloads
    if CPU_SUITE.variants_of(base)
}


def sampled_held_out(bases: list[str], seed: int) -> dict[str, str]:
    """One held-out variant for each base workload that has some, drawn by `seed`: variant name -> base name."""
    import random

    chooser = random.Random(seed)
    return {chooser.choice(HELD_OUT[base]).name: base for base in bases if base in HELD_OUT}


def workload_class(name: str) -> type[spec.Workload]:
    """A workload of a suite or a held-out variant, by its name (its class: building one reads its data)."""
    from benchmarks.algorithms.gpu_workloads import GPU_WORKLOADS  # the reference recipes, loaded only when asked

    return (WORKLOADS | VARIANTS | GPU_WORKLOADS)[name]


def build_workload(name: str, data_dir: str | None = None) -> spec.Workload:
    """A workload built by its name: a GPU-sized one reads `data_dir` (DatasetMissing without its data)."""
    kind = workload_class(name)
    return kind(data_dir) if getattr(kind, "reads_data_dir", False) else kind()
