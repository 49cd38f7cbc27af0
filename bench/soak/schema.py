"""schemathesis against the API's own OpenAPI schema, authenticated as a submitter: no answer may be a 5xx.

schemathesis runs from .venv-soak (requirements-soak.txt, made by `make soak`): installed in .venv, its
pytest plugin would load into every `make test`.
"""

from __future__ import annotations

import re
import subprocess
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass

from bench.soak.stack import ROOT, Stack

SCHEMATHESIS = ROOT / ".venv-soak" / "bin" / "schemathesis"
MAX_EXAMPLES = 30
MAX_SECONDS = 90
# A real board, so the leaderboard's query parameters are fuzzed past the 404 of a random task and metric.
CONFIG = """
[parameters]
"path.task" = "cifar10"
"path.metric" = "training-time"
"""


@dataclass
class SchemaResult:
    ran: bool
    operations: int = 0
    cases: int = 0
    server_errors: int = 0
    other_failures: int = 0
    exit_code: int | None = None
    detail: str = ""


def run(stack: Stack, *, max_examples: int = MAX_EXAMPLES, max_seconds: int = MAX_SECONDS) -> SchemaResult:
    if not SCHEMATHESIS.exists():
        return SchemaResult(ran=False, detail=f"{SCHEMATHESIS.relative_to(ROOT)} is missing: run `make soak`")
    report = stack.workdir / "schemathesis.xml"
    (stack.workdir / "schemathesis.toml").write_text(CONFIG)  # read from the working directory
    command = [
        str(SCHEMATHESIS),
        "run",
        f"{stack.base_url}/api/schema/",
        "--header",
        f"Authorization: Token {stack.tokens[-1]}",
        "--checks",
        "not_a_server_error",
        "--max-examples",
        str(max_examples),
        "--max-time",
        str(max_seconds),
        "--phases",
        "examples,coverage,fuzzing",
        "--workers",
        "1",  # with 2, CPython 3.11's ast.parse in two threads at once broke schemathesis itself once
        "--request-timeout",
        "20",
        "--seed",
        "1",
        "--generation-database",
        "none",
        "--continue-on-failure",
        "--no-color",
        "--report",
        "junit",
        "--report-junit-path",
        str(report),
    ]
    try:
        completed = subprocess.run(
            command, cwd=stack.workdir, capture_output=True, text=True, timeout=max_seconds + 120
        )
    except subprocess.TimeoutExpired:
        return SchemaResult(ran=True, detail=f"schemathesis ran past {max_seconds + 120} s and was stopped")
    (stack.workdir / "schemathesis.log").write_text(completed.stdout + completed.stderr)
    result = SchemaResult(ran=True, exit_code=completed.returncode)
    if generated := re.search(r"(\d+) generated", completed.stdout):
        result.cases = int(generated.group(1))
    if not report.exists():
        result.detail = (completed.stdout + completed.stderr)[-1500:]
        result.other_failures = 1
        return result
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        result.operations += 1
        for failure in [*case.iter("failure"), *case.iter("error")]:
            text = f"{failure.get('message', '')} {failure.text or ''}"
            if "Server error" in text or "server error" in text:
                result.server_errors += 1
                if len(result.detail) < 3000:
                    result.detail += f"{case.get('name')}: {text.strip()[:600]}\n"
            else:
                result.other_failures += 1
    if result.operations == 0 or (completed.returncode != 0 and not result.server_errors + result.other_failures):
        result.other_failures += 1
        result.detail = (completed.stdout + completed.stderr)[-1500:]
    return result
