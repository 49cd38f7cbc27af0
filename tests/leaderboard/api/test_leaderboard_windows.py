"""The API leaderboard comes a window at a time: `limit` rows from `offset`, with the board's `count` and links to
the neighbouring windows, so a board of any size is answered in a bounded time and size."""

from __future__ import annotations

import pytest

from leaderboard.models import Entry
from tests.leaderboard.bulk import create_entries

pytestmark = pytest.mark.django_db

BOARD = "/api/v1/leaderboards/cifar10/training-time/"
PER_TASK = 30  # 18 training entries per task


@pytest.fixture
def board_entries():
    create_entries(PER_TASK)


def whole_board(anonymous_client) -> list[dict]:
    return anonymous_client.get(BOARD, {"limit": 1000}).json()["results"]


def test_a_window_is_limit_rows_from_offset_of_the_whole_board(anonymous_client, board_entries):
    board = whole_board(anonymous_client)

    window = anonymous_client.get(BOARD, {"limit": 5, "offset": 10}).json()

    assert window["count"] == len(board) == 18
    assert (window["offset"], window["limit"]) == (10, 5)
    assert window["results"] == board[10:15]
    assert [row["rank"] for row in window["results"]] == [11, 12, 13, 14, 15]


def test_following_next_walks_the_whole_board_once(anonymous_client, board_entries):
    board = whole_board(anonymous_client)
    walked, url, pages = [], f"{BOARD}?limit=4", 0

    while url is not None:
        page = anonymous_client.get(url).json()
        walked += page["results"]
        url, pages = page["next"], pages + 1

    assert walked == board
    assert pages == 5  # 4 + 4 + 4 + 4 + 2


def test_previous_leads_back_and_is_absent_at_the_top(anonymous_client, board_entries):
    top = anonymous_client.get(BOARD, {"limit": 4}).json()
    third = anonymous_client.get(BOARD, {"limit": 4, "offset": 8}).json()

    assert top["previous"] is None
    assert "offset=4" in third["previous"] and "limit=4" in third["previous"]
    assert anonymous_client.get(third["previous"]).json()["results"] == whole_board(anonymous_client)[4:8]


def test_a_window_past_the_end_is_empty_with_the_way_back(anonymous_client, board_entries):
    past = anonymous_client.get(BOARD, {"offset": 500}).json()

    assert past["results"] == [] and past["count"] == 18
    assert past["next"] is None and past["previous"] is not None


def test_the_default_window_is_the_first_hundred_rows(anonymous_client):
    create_entries(200)  # 120 training entries per task

    document = anonymous_client.get(BOARD).json()

    assert (document["count"], document["offset"], document["limit"]) == (120, 0, 100)
    assert len(document["results"]) == 100 and "offset=100" in document["next"]


@pytest.mark.parametrize("window", [{"limit": 1000}, {"limit": 3, "offset": 12}])
def test_a_window_costs_four_queries_whatever_its_size(
    anonymous_client, board_entries, django_assert_max_num_queries, window
):
    with django_assert_max_num_queries(4):  # the task version, the count, the window's ids, then their rows
        anonymous_client.get(BOARD, window)


@pytest.mark.parametrize("offset", ["-1", "x", "1.5", "²", "100000001", "9" * 40])
def test_an_offset_that_is_not_a_whole_number_in_range_is_refused(anonymous_client, offset):
    response = anonymous_client.get(BOARD, {"offset": offset})

    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "code": "invalid_offset",
            "message": "offset is a whole number from 0 to 100,000,000 (default 0).",
            "field": "offset",
        }
    ]


def test_a_policy_board_is_windowed_too(anonymous_client, board_entries):
    document = anonymous_client.get(
        "/api/v1/leaderboards/cifar10/training-cost/", {"cost_basis": "catalog-today", "limit": 2}
    ).json()

    # The bulk entries are matched to no catalog instance, so the catalog prices none of them.
    assert (document["count"], document["results"], document["next"]) == (0, [], None)
    assert Entry.objects.filter(task__slug="cifar10").count() == PER_TASK


def test_the_schema_names_the_window(anonymous_client):
    schema = anonymous_client.get("/api/schema/", {"format": "json"}).json()

    operation = schema["paths"]["/api/v1/leaderboards/{task}/{metric}/"]["get"]
    assert {"limit", "offset"} <= {parameter["name"] for parameter in operation["parameters"]}
    document = schema["components"]["schemas"]["Leaderboard"]["properties"]
    assert {"count", "offset", "limit", "next", "previous"} <= set(document)
