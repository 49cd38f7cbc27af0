"""The public pages make as many SQL queries with 10,000 entries per task as with 10, and only a few.

The boards are built once for the module (tests/leaderboard/bulk.py): first 10 entries per task, when each
page's query count is recorded, then grown to 10,000 per task, when each test requests the page again.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from dawnboard.metrics import LEADERBOARD_METRICS
from dawnboard.rules import TASKS
from leaderboard.models import Entry
from tests.leaderboard.bulk import create_entries, delete_entries

SMALL = 10
LARGE = 10_000
MAX_QUERIES = 15
# The front page shows the four boards of every task: one query per board, so its budget grows with the
# number of tasks (never with entries), beside the task versions and the submitters of every row shown.
HOME_MAX_QUERIES = 2 + len(LEADERBOARD_METRICS) * len(TASKS)
BOARD = "/tasks/cifar10/"
PAGES = {
    "home": "/",
    "board": BOARD,
    "board-filtered": f"{BOARD}?framework=PyTorch&hardware=V100&date_from=2018-01-01&date_to=2023-12-31",
    "board-by-date-descending": f"{BOARD}?sort=date&order=desc",
    "board-page-3": f"{BOARD}?page=3",
    "board-as-of": f"{BOARD}?as_of=2020-06-30",
    "board-training-cost": f"{BOARD}?metric=training-cost",
    "board-inference-latency": f"{BOARD}?metric=inference-latency",
    "board-inference-latency-p90": f"{BOARD}?metric=inference-latency&latency_stat=p90",
    "board-inference-cost": f"{BOARD}?metric=inference-cost",
    "charts": f"{BOARD}charts/",
    "entry": "/entries/{entry_id}/",
    "export-csv": f"{BOARD}export.csv",
    "export-json": f"{BOARD}export.json",
}


# Not the query count's growth with entries, which the other test checks: one known excess, kept visible.
@dataclass(frozen=True)
class Boards:
    entry_id: int
    small_query_counts: dict[str, int]

    def url(self, page: str) -> str:
        return PAGES[page].format(entry_id=self.entry_id)


def query_count(url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = Client().get(url)
    assert response.status_code == 200, url
    return len(queries)


@pytest.fixture(scope="module")
def boards(django_db_setup, django_db_blocker) -> Boards:
    with django_db_blocker.unblock():
        create_entries(SMALL)
        entry = Entry.objects.filter(task__slug="cifar10", track="train").order_by("id").first()
        small = Boards(entry_id=entry.id, small_query_counts={})
        small.small_query_counts.update({page: query_count(small.url(page)) for page in PAGES})
        create_entries(LARGE - SMALL)
    yield small
    with django_db_blocker.unblock():
        delete_entries()


@pytest.mark.django_db
def test_boards_hold_10000_entries_per_task(boards):
    assert Entry.objects.accepted().filter(task__slug="cifar10").count() == LARGE


@pytest.mark.django_db
@pytest.mark.parametrize("page", PAGES)
def test_query_count_is_the_same_with_10000_entries_per_task_as_with_10(
    boards, client, page, django_assert_num_queries
):
    with django_assert_num_queries(boards.small_query_counts[page]):
        response = client.get(boards.url(page))
    assert response.status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("page", PAGES)
def test_query_count_stays_within_budget(boards, client, page, django_assert_max_num_queries):
    with django_assert_max_num_queries(HOME_MAX_QUERIES if page == "home" else MAX_QUERIES):
        response = client.get(boards.url(page))
    assert response.status_code == 200
