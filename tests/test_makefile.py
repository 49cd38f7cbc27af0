"""`make help` lists every target of the Makefile, each with what it does."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_make_help_lists_every_target_with_what_it_does():
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    targets = re.findall(r"^([a-z][a-z-]*):", (ROOT / "Makefile").read_text(), flags=re.MULTILINE)

    listed = subprocess.run(["make", "-s", "help"], cwd=ROOT, capture_output=True, text=True, timeout=30, check=True)

    described = dict(line.split(None, 1) for line in listed.stdout.splitlines() if line.strip())
    assert sorted(described) == sorted(set(targets))
    assert all(len(text) > 10 for text in described.values())
