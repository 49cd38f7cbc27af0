"""The shipped baselines, each an AlgoPerf-style submission module with its search space beside it
(`<name>_search_space.json`, AlgoPerf's format): `adamw`, `sgd_nesterov`, `nadamw` and `schedule_free_adamw`."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

from dawnboard.algorithms.search_space import SearchSpace
from dawnboard.algorithms.search_space import search_space as read_search_space

HERE = Path(__file__).resolve().parent
BASELINES = ("adamw", "sgd_nesterov", "nadamw", "schedule_free_adamw")


def baseline(name: str) -> ModuleType:
    """The baseline's submission module. Raises KeyError for a name not shipped."""
    if name not in BASELINES:
        raise KeyError(name)
    from importlib import import_module

    return import_module(f"benchmarks.algorithms.baselines.{name}")


def search_space(name: str) -> SearchSpace:
    """The baseline's search space, read from its JSON."""
    return read_search_space(json.loads((HERE / f"{name}_search_space.json").read_text(encoding="utf-8")))
