"""The site's pages as the browser tests open them: realistic data with long text, every kind of page, any width.

`add_wide_entries` adds, to the DAWNBench CIFAR10 sample, a training and an inference entry whose hardware, model,
team and link are as long as real ones get; `pages` names every kind of page; `open_page` waits for what scripts
draw. conftest's `wide_board` and `sized` fixtures use them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from io import StringIO

from django.core.management import call_command

from tests.factories import entry_bytes, inference_document, training_log

HEIGHT = 900
SWAGGER_TIMEOUT_MS = 60_000
METRICS = ("training-time", "training-cost", "inference-latency", "inference-cost")
LONG_HARDWARE = (
    "8 x NVIDIA Tesla V100-SXM2-32GB (NVLink) on Google Cloud n1-highmem-96, 96 vCPUs, 624 GB memory, us-central1-f"
)
LONG_MODEL = "ResNet-50-v1.5-with-stochastic-depth-and-label-smoothing-mixed-precision-LARS-batch-65536"
LONG_TEAM = "Hyperscale Training Group: Anna Example-Longname, Bartholomew Someone, Chiara Another, D. Fourth"
LONG_URL = "https://github.com/an-organisation-with-a-long-name/a-repository-with-an-even-longer-name/tree/main/cifar10"


@dataclass
class WideBoard:
    """The entries whose text is longest, one per track."""

    train_id: int
    inference_id: int
    other_train_id: int


def add_wide_entries(board, tmp_path) -> WideBoard:
    """The sample (`board`) plus a training and an inference entry with long text, sent through `submit`."""

    def submit(track: str, document: bytes, log: bytes | None) -> int:
        entry_path = tmp_path / f"{track}.json"
        entry_path.write_bytes(document)
        arguments = [str(entry_path)]
        if log is not None:
            log_path = tmp_path / f"{track}.tsv"
            log_path.write_bytes(log)
            arguments.append(str(log_path))
        out = StringIO()
        call_command("submit", "--task", "cifar10", "--track", track, *arguments, "--json", stdout=out)
        return json.loads(out.getvalue())["entry_id"]

    long_fields = {"hardware": LONG_HARDWARE, "model": LONG_MODEL, "codeURL": LONG_URL, "author": LONG_TEAM}
    train_id = submit("train", entry_bytes(**long_fields, costPerHour=24.48), training_log())
    inference_id = submit("inference", json.dumps(inference_document(**long_fields)).encode(), None)
    return WideBoard(train_id=train_id, inference_id=inference_id, other_train_id=board.train_ids[0])


def pages(wide: WideBoard) -> dict[str, str]:
    """Every kind of page, by the name of its screenshot."""
    found = {"home": "/"}
    found.update({f"task-{metric}": f"/tasks/cifar10/?metric={metric}" for metric in METRICS})
    found.update(
        {
            "charts": "/tasks/cifar10/charts/",
            "entry-train": f"/entries/{wide.train_id}/",
            "entry-inference": f"/entries/{wide.inference_id}/",
            "compare": f"/compare/?entries={wide.train_id},{wide.other_train_id}",
            "submit": "/submit/",
            "api-docs": "/api/docs/",
        }
    )
    return found


def open_page(page, path: str) -> None:
    """Go to a page and wait until what scripts draw (plotly's charts, Swagger UI) is on it."""
    response = page.goto(path)
    assert response.status == 200, f"{path}: {response.status}"
    if page.locator("[data-chart]").count():
        page.wait_for_function(
            "() => [...document.querySelectorAll('[data-chart]')].every(chart => chart.querySelector('.main-svg'))"
        )
    if path.startswith("/api/docs/"):
        page.wait_for_selector(".swagger-ui .opblock", timeout=SWAGGER_TIMEOUT_MS)


def overflow(page) -> dict:
    return page.evaluate("() => ({scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth})")
