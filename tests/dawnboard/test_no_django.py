"""The rules package is plain Python: importing every module of it, and judging a submission, pulls in no Django
and none of the apps (`lint-imports` checks the same statically; this checks what actually loads)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """
import importlib, pkgutil, sys
import dawnboard
from dawnboard.formats.dawnbench import write_entry, write_training_log
from dawnboard.ingest import validate_dawnbench_files
from dawnboard.rules import current_rules, rules_catalog

modules = [info.name for info in pkgutil.walk_packages(dawnboard.__path__, "dawnboard.")]
for name in modules:
    importlib.import_module(name)
rules = current_rules("cifar10")
entry = write_entry({"version": "v1.0", "author": "a", "authorEmail": "a@b.c", "framework": "f", "model": "m",
                     "hardware": "h", "timestamp": "2020-01-01"})
log = write_training_log([(0, 0.5, 95.0)], metric_column=rules.log_column)
result = validate_dawnbench_files(task_slug="cifar10", track="train", entry_bytes=entry, logs=[log],
                                  catalog=rules_catalog())
assert result.accepted, result
print(len(modules))
print(sorted(name for name in sys.modules if name.split(".")[0] in ("django", "leaderboard", "pricing", "config")))
"""


def test_every_module_of_the_rules_package_imports_and_runs_without_django_or_the_apps():
    completed = subprocess.run(
        [sys.executable, "-c", PROGRAM],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": str(ROOT)},
    )

    assert completed.returncode == 0, completed.stderr
    module_count, loaded = completed.stdout.strip().splitlines()
    assert int(module_count) >= 15  # every module was walked, not just the package's __init__
    assert loaded == "[]"
