"""The charts page on boards of a few thousand entries: its figures and tables hold every Pareto point and every
record of the boards (worked out here from the boards themselves), and it makes as many SQL queries as with a
handful of entries.

The boards are built once for the module (tests/leaderboard/bulk.py): first SMALL entries per task, when the
page's query count is recorded, then grown to LARGE.
"""

from __future__ import annotations

import json
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from dawnboard.metrics import INFERENCE_COST, INFERENCE_LATENCY, LEADERBOARD_METRICS, TRAINING_COST, TRAINING_TIME
from leaderboard.charts import plotly_text
from leaderboard.models import Entry
from leaderboard.selectors import leaderboard_entries
from tests.leaderboard.bulk import create_entries, delete_entries

SMALL = 10
LARGE = 2500
URL = "/tasks/cifar10/charts/"
TRADEOFFS = {"time-cost": (TRAINING_TIME, TRAINING_COST), "latency-cost": (INFERENCE_LATENCY, INFERENCE_COST)}


def page_queries() -> int:
    with CaptureQueriesContext(connection) as queries:
        response = Client().get(URL)
    assert response.status_code == 200
    return len(queries)


@pytest.fixture(scope="module")
def small_board_queries(django_db_setup, django_db_blocker) -> int:
    with django_db_blocker.unblock():
        create_entries(SMALL)
        queries = page_queries()
        create_entries(LARGE - SMALL)
    yield queries
    with django_db_blocker.unblock():
        delete_entries()


@pytest.fixture
def html(small_board_queries, client) -> str:
    return client.get(URL).content.decode()


def board(metric) -> list[tuple]:
    """(id, date, value) of every entry on the metric's board of cifar10."""
    entries = leaderboard_entries(task_slug="cifar10", metric_slug=metric.slug)
    return [(entry_id, date, float(value)) for entry_id, date, value in entries.values_list("id", "date", metric.field)]


def pareto_ids(x_metric, y_metric) -> list[int]:
    """The entries no other beats on both figures, in x order (of twins, the earlier id)."""
    y_of = {entry_id: value for entry_id, _, value in board(y_metric)}
    points = sorted((x, y_of[entry_id], entry_id) for entry_id, _, x in board(x_metric) if entry_id in y_of)
    front, best = [], float("inf")
    for _, y, entry_id in points:
        if y < best:
            front.append(entry_id)
            best = y
    return front


def record_ids(metric) -> list[int]:
    """The entries that beat every earlier one by date (on one day, the board's first: lower value, then id)."""
    records, best = [], float("inf")
    for entry_id, _, value in sorted(board(metric), key=lambda row: (row[1], row[2], row[0])):
        if value < best:
            records.append(entry_id)
            best = value
    return records


def labels(entry_ids: list[int]) -> list[str]:
    names = {entry.id: entry for entry in Entry.objects.filter(id__in=entry_ids)}
    return [
        f"{plotly_text(names[i].model)} ({plotly_text(names[i].author)}, {plotly_text(names[i].hardware)})"
        for i in entry_ids
    ]


def figure(html: str, name: str) -> dict:
    found = re.search(rf'<script id="figure-{name}" type="application/json">(.*?)</script>', html, re.S)
    return json.loads(found.group(1))


def trace(figure: dict, name: str) -> dict:
    return next(trace for trace in figure["data"] if trace["name"] == name)


def hover_labels(trace: dict) -> list[str]:
    return [text.split("<br>")[0] for text in trace["hovertext"]]


def linked_ids(html: str, section: str, table: str) -> list[int]:
    part = html.split(f'<section id="{section}">')[1].split(f'<table class="{table}">')[1].split("</table>")[0]
    return [int(entry_id) for entry_id in re.findall(r'href="/entries/(\d+)/"', part)]


@pytest.mark.django_db
@pytest.mark.parametrize("name", TRADEOFFS)
def test_each_tradeoff_chart_draws_every_pareto_point_of_the_board(html, name):
    front = pareto_ids(*TRADEOFFS[name])
    plotted = figure(html, name)

    assert hover_labels(trace(plotted, "Pareto front")) == labels(front)
    assert set(labels(front)) <= set(hover_labels(trace(plotted, "entries")))
    assert linked_ids(html, name, "pareto") == front


@pytest.mark.django_db
@pytest.mark.parametrize("metric", LEADERBOARD_METRICS.values(), ids=LEADERBOARD_METRICS)
def test_each_record_chart_draws_every_record_of_the_board(html, metric):
    records = record_ids(metric)
    plotted = figure(html, f"record-{metric.slug}")

    assert hover_labels(trace(plotted, "new record")) == labels(records)
    assert linked_ids(html, f"record-{metric.slug}", "records") == records


@pytest.mark.django_db
def test_the_page_says_how_many_entries_each_scatter_draws(html):
    trained = len(board(TRAINING_COST))

    drawn = len(trace(figure(html, "time-cost"), "entries")["x"])

    assert drawn < trained
    assert f"{drawn:,} of {trained:,} entries drawn" in html


@pytest.mark.django_db
def test_the_page_makes_as_many_queries_as_on_a_board_of_10(small_board_queries):
    assert Entry.objects.filter(task__slug="cifar10").count() == LARGE

    assert page_queries() == small_board_queries
