"""The site's pages as the browser tests open them: realistic data with long text, every kind of page, any width.

`add_wide_entries` adds, to the DAWNBench CIFAR10 sample, a training and an inference entry whose hardware, model,
team and link are as long as real ones get, and a digits inference entry measured by Dawnboard's harness (its page
draws the latency histogram; on the home page digits' training boards stay empty) and a results bundle on the CPU
suite's algorithm board, its algorithm's name as long as a bundle's may be; `add_crossing_entries` adds
three training entries whose curves cross the threshold early, in the middle and at their last point. `pages`
names every kind of page; `open_page` waits for what scripts draw. conftest's `wide_board`, `crossing_entries`
and `sized` fixtures use them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from io import StringIO

from django.core.management import call_command

from dawnboard.algorithms.bundles import bundle_archive
from dawnboard.algorithms.suites import CPU_SUITE
from leaderboard.models import Submission
from leaderboard.services import Upload, submission_create
from leaderboard.services.algorithms import algorithm_bundle_submit
from tests.dawnboard.algorithms.bundle_fixtures import bundle, constant
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
NOT_FOUND = "/no-such-page/"
HISTOGRAM_BINS = 40
# cifar10's threshold is 94 %: each log crosses it at the row its name says, the last one only just.
CROSSING_LOGS = {
    "early": [(0, 0.01, 80.0), (1, 0.02, 94.3), *((epoch, 0.01 * (epoch + 1), 95.0) for epoch in range(2, 10))],
    "middle": [(epoch, 0.01 * (epoch + 1), 85.0 + epoch * 1.5) for epoch in range(10)],
    "last": [(epoch, 0.01 * (epoch + 1), 70.0 + epoch * 2.67) for epoch in range(10)],
}


@dataclass
class WideBoard:
    """The entries whose text is longest, one per track."""

    train_id: int
    inference_id: int
    other_train_id: int
    measured_id: int
    algorithm_id: int


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
    return WideBoard(
        train_id=train_id,
        inference_id=inference_id,
        other_train_id=board.train_ids[0],
        measured_id=add_measured_entry(),
        algorithm_id=add_algorithm_result(),
    )


LONG_ALGORITHM = "schedule_free_adamw_with_warmup_and_decoupled_weight_decay_tuned_per_workload_by_quasi_random_search"


def add_algorithm_result() -> int:
    """A results bundle on the CPU suite's board, with the longest name a bundle may give its algorithm."""
    suite = CPU_SUITE
    fast = constant(dict.fromkeys(suite.base_workloads, 2.0))
    slow = constant(dict.fromkeys(suite.base_workloads, 3.0))
    upload = Upload("bundle.zip", bundle_archive(bundle(suite, fast, slow, name=LONG_ALGORITHM[:100])))
    return algorithm_bundle_submit(bundle=upload, submitter=None).id


def add_measured_entry() -> int:
    """A digits inference entry as `measure_inference --submit` sends it: its run record holds a histogram."""
    edges = [round(0.4 * index / HISTOGRAM_BINS, 6) for index in range(HISTOGRAM_BINS + 1)]
    counts = [0] * HISTOGRAM_BINS
    counts[3], counts[4], counts[5], counts[-1] = 6_000, 3_500, 480, 20
    record = {
        "task": "digits",
        "backend": "onnxruntime",
        "backend_version": "1.32.0",
        "items": sum(counts),
        "threads": 2,
        "latency_ms": {"mean": 0.05, "p50": 0.041, "p90": 0.049, "p99": 0.0531, "max": 0.4},
        "histogram": {"edges_ms": edges, "counts": counts},
        "model_sha256": "ab" * 32,
    }
    document = inference_document(latency=0.05, top1Accuracy=98.4, model="Small CNN in ONNX", hardware=LONG_HARDWARE)
    outcome = submission_create(
        task_slug="digits",
        track="inference",
        entry=Upload("entry.json", json.dumps(document).encode()),
        logs=[],
        source=Submission.Source.MEASURED,
        run_record=record,
    )
    assert outcome.status == "accepted", outcome.errors
    return outcome.entry_id


def add_crossing_entries(tmp_path) -> dict[str, int]:
    """Training entries whose curves cross the threshold early, in the middle and at their last point, by id."""
    found = {}
    for name, rows in CROSSING_LOGS.items():
        entry_path, log_path = tmp_path / f"{name}.json", tmp_path / f"{name}.tsv"
        entry_path.write_bytes(entry_bytes(model=f"Crossing {name}"))
        log_path.write_bytes(training_log(rows))
        out = StringIO()
        call_command(
            "submit", "--task", "cifar10", "--track", "train", str(entry_path), str(log_path), "--json", stdout=out
        )
        found[name] = json.loads(out.getvalue())["entry_id"]
    return found


def pages(wide: WideBoard) -> dict[str, str]:
    """Every kind of page, by the name of its screenshot."""
    found = {"home": "/"}
    found.update({f"task-{metric}": f"/tasks/cifar10/?metric={metric}" for metric in METRICS})
    found.update(
        {
            "task-empty": "/tasks/cifar10/?metric=training-time&hardware=no-such-hardware",
            "charts": "/tasks/cifar10/charts/",
            "sensitivity": "/tasks/cifar10/sensitivity/",
            "entry-train": f"/entries/{wide.train_id}/",
            "entry-inference": f"/entries/{wide.inference_id}/",
            "entry-measured": f"/entries/{wide.measured_id}/",
            "compare": f"/compare/?entries={wide.train_id},{wide.other_train_id}",
            "submit": "/submit/",
            "not-found": NOT_FOUND,
            "api-docs": "/api/docs/",
            "algorithms": "/algorithms/cpu/external/",
            "algorithm": f"/algorithms/results/{wide.algorithm_id}/",
        }
    )
    return found


def site_pages(wide: WideBoard) -> dict[str, str]:
    """`pages` less the API docs, whose layout is Swagger UI's."""
    return {name: path for name, path in pages(wide).items() if name != "api-docs"}


def chart_pages(wide: WideBoard) -> dict[str, str]:
    """The pages that draw plotly charts: every kind of chart is on one of them."""
    names = ("charts", "sensitivity", "entry-train", "entry-measured", "compare", "algorithms", "algorithm")
    return {name: path for name, path in pages(wide).items() if name in names}


def open_page(page, path: str) -> None:
    """Go to a page and wait until what scripts draw (plotly's charts, Swagger UI) is on it."""
    response = page.goto(path)
    expected = 404 if path == NOT_FOUND else 200
    assert response.status == expected, f"{path}: {response.status}"
    if page.locator("[data-chart]").count():
        # charts.js marks a chart drawn once plotly has settled its margins (they move as text pushes them).
        page.wait_for_function(
            "() => [...document.querySelectorAll('[data-chart]')].every(chart => chart.dataset.drawn)"
        )
    if path.startswith("/api/docs/"):
        page.wait_for_selector(".swagger-ui .opblock", timeout=SWAGGER_TIMEOUT_MS)


def overflow(page) -> dict:
    return page.evaluate("() => ({scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth})")
