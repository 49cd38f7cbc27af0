"""What a reference run is asked to do: the recipe, the data, the device, the seed and the stopping rule."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any


class EchoStage(StrEnum):
    """Where data echoing repeats the upstream output ("Faster Neural Network Training with Data Echoing",
    Choi et al. 2019): each example before augmentation and batching, or each whole batch."""

    EXAMPLE = "example"
    BATCH = "batch"


class Device(StrEnum):
    CPU = "cpu"
    CUDA = "cuda"


@dataclass(frozen=True)
class RunConfig:
    """One run. `max_epochs` None means the recipe's own schedule length.

    Attributes:
        overrides: recipe settings replacing its defaults (tests shrink a model; `--embeddings` sets one).
        shuffle_buffer: items the echo stage shuffles among, so repeats of an item are spread apart.
    """

    task: str
    recipe: str
    data_dir: Path | None = None
    device: Device = Device.CPU
    seed: int = 0
    max_epochs: int | None = None
    echo_factor: int = 1
    echo_stage: EchoStage = EchoStage.EXAMPLE
    shuffle_buffer: int = 1024
    overrides: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        if self.echo_factor < 1:
            raise ValueError("The echo factor must be at least 1.")
        if self.max_epochs is not None and self.max_epochs < 1:
            raise ValueError("--max-epochs must be at least 1.")
        if self.shuffle_buffer < 1:
            raise ValueError("The shuffle buffer must hold at least one item.")

    @property
    def command(self) -> str:
        """The `run_reference` command line of this run (data and output folders left out: they are local)."""
        words = [
            ".venv/bin/python",
            "manage.py",
            "run_reference",
            self.task,
            "--recipe",
            self.recipe,
            "--seed",
            str(self.seed),
        ]
        words += ["--device", str(self.device)]
        if self.max_epochs is not None:
            words += ["--max-epochs", str(self.max_epochs)]
        if self.echo_factor != 1:
            words += ["--echo-factor", str(self.echo_factor), "--echo-stage", str(self.echo_stage)]
        if self.overrides.get("embeddings"):
            words += ["--embeddings", str(self.overrides["embeddings"])]
        return " ".join(words)

    @property
    def runs_the_recipe_as_published(self) -> bool:
        """Whether a run of this configuration reproduces the recipe's seed entries: no data echoing, and no
        setting changed other than the word vectors a reader starts from."""
        return self.echo_factor == 1 and set(self.overrides) <= {"embeddings"}

    def with_seed(self, seed: int) -> RunConfig:
        return RunConfig(**{**self.__dict__, "seed": seed})

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON: what the run record keeps."""
        plain = asdict(self)
        plain["data_dir"] = str(self.data_dir) if self.data_dir is not None else None
        plain["device"] = str(self.device)
        plain["echo_stage"] = str(self.echo_stage)
        return plain
