"""Fixtures for the rules package's tests: the task catalog, and builders for entries and logs, all in code.

No database and no Django: the rules package is plain Python, and the catalog is its own. Fixtures are
session-scoped because they are pure (hypothesis refuses function-scoped fixtures inside `@given`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import pytest

from dawnboard.ingest import validate_dawnbench_files
from dawnboard.rules import TaskRules, current_rules, rules_catalog

CATALOG = rules_catalog()
RULES = {slug: current_rules(slug) for slug in CATALOG}

# A metric value that passes each task's threshold, and one that does not, in the task's scale.
PASSING = {"cifar10": 94.5, "imagenet": 93.5, "squad": 0.8}
FAILING = {"cifar10": 50.0, "imagenet": 60.0, "squad": 0.4}

DEFAULT = object()  # "not given", as opposed to None ("no file sent")
SAMPLE_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "dawnbench-sample"


@pytest.fixture(scope="session")
def catalog() -> dict[str, dict[str, TaskRules]]:
    return CATALOG


@pytest.fixture(scope="session")
def entry_document() -> Callable[..., dict]:
    """Build a valid entry document for a task and track; keyword arguments override or add fields."""

    def build(*, task: str = "cifar10", track: str = "train", without: Iterable[str] = (), **fields) -> dict:
        document = {
            "version": "v1.0",
            "author": "Stanford DAWN",
            "authorEmail": "dawn@example.org",
            "framework": "PyTorch 1.0",
            "codeURL": "https://github.com/example/cifar10-fast",
            "model": "ResNet-9",
            "hardware": "1 x V100 (AWS p3.2xlarge)",
            "costPerHour": 3.06,
            "timestamp": "2018-04-20",
            "misc": {"batchSize": 512},
        }
        if track == "inference":
            # cost = costPerHour x latency / 3.6e6, so these three agree exactly.
            document.update({"latency": 10.0, "cost": 8.5e-06, RULES[task].inference_fields[0]: PASSING[task]})
        document.update(fields)
        for name in without:
            del document[name]
        return document

    return build


@pytest.fixture(scope="session")
def entry_json(entry_document) -> Callable[..., bytes]:
    """The entry document of `entry_document(...)` as the JSON bytes a submitter uploads."""

    def build(**kwargs) -> bytes:
        return json.dumps(entry_document(**kwargs)).encode()

    return build


@pytest.fixture(scope="session")
def training_log() -> Callable[..., bytes]:
    """Build TSV log bytes from rows of cells; cells are written with `str`, so a string is written verbatim.

    The default is a valid cifar10 log crossing 94 % on its fourth row (line 5).
    """

    def build(
        rows: Sequence[Sequence[object]] | None = None,
        *,
        columns: Sequence[str] = ("epoch", "hours", "top1Accuracy"),
        line_end: str = "\n",
        bom: bool = False,
    ) -> bytes:
        if rows is None:
            rows = [(0, 0.01, 60.5), (1, 0.02, 85.25), (2, 0.03, 93.5), (3, 0.04, 94.25), (4, 0.05, 94.75)]
        lines = ["\t".join(columns)] + ["\t".join(str(cell) for cell in row) for row in rows]
        text = line_end.join(lines) + line_end
        return (b"\xef\xbb\xbf" if bom else b"") + text.encode()

    return build


@pytest.fixture(scope="session")
def passing_log(training_log) -> Callable[[str], bytes]:
    """A valid log for any task: two rows, the second passing the threshold."""

    def build(task: str = "cifar10") -> bytes:
        rules = RULES[task]
        return training_log(
            [(0, 0.5, FAILING[task]), (1, 1.0, PASSING[task])], columns=("epoch", "hours", rules.log_column)
        )

    return build


@pytest.fixture(scope="session")
def submit(catalog, entry_json, passing_log) -> Callable[..., object]:
    """Call `validate_dawnbench_files` with the task catalog; the entry and log default to valid ones.

    Pass `entry=None` or `log=None` to send no file at all.
    """

    def run(*, task: str = "cifar10", track: str = "train", entry: object = DEFAULT, log: object = DEFAULT):
        if entry is DEFAULT:
            entry = entry_json(task=task if task in RULES else "cifar10", track=track)
        if log is DEFAULT:
            log = passing_log(task) if track == "train" and task in RULES else None
        return validate_dawnbench_files(
            task_slug=task, track=track, entry_bytes=entry, logs=[] if log is None else [log], catalog=catalog
        )

    return run


@pytest.fixture(scope="session")
def dawnbench_sample() -> Path:
    """The real DAWNBench CIFAR10 entries, when the shared folder is there."""
    if not SAMPLE_DIR.is_dir():
        pytest.skip(f"DAWNBench sample not found at {SAMPLE_DIR}")
    return SAMPLE_DIR
