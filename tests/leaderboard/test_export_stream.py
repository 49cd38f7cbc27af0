"""A board's export streams: its rows are read and written a batch at a time, never all held in memory, and the
file is the whole board as it stood."""

from __future__ import annotations

import csv
import io
import json

import pytest

from leaderboard import views
from leaderboard.selectors import boards
from tests.leaderboard.bulk import create_entries

pytestmark = pytest.mark.django_db

EXPORT = "/tasks/cifar10/export.csv"


@pytest.fixture
def board_entries():
    create_entries(50)  # 30 training entries per task


@pytest.fixture
def records_made(monkeypatch) -> list[int]:
    """How many rows the export has turned into records so far."""
    made = []
    real = views.export_record

    def counting(row, **kwargs):
        made.append(row.entry_id)
        return real(row, **kwargs)

    monkeypatch.setattr(views, "export_record", counting)
    return made


def test_the_export_is_streamed_a_batch_at_a_time(client, board_entries, records_made, monkeypatch):
    monkeypatch.setattr(boards, "ROWS_READ_AT_ONCE", 4)
    response = client.get(EXPORT)
    lines = iter(response.streaming_content)

    header = next(lines)
    first_row = next(lines)

    assert response.streaming
    assert header.decode().startswith("rank,value,unit,model")
    assert first_row.decode().startswith("1,")
    assert len(records_made) == 1  # nothing read ahead of what was written
    rest = b"".join(lines)
    assert len(records_made) == 30 and rest.count(b"\n") == 29


def test_the_streamed_csv_is_the_whole_board_in_rank_order(client, board_entries):
    text = b"".join(client.get(EXPORT).streaming_content).decode()
    rows = list(csv.DictReader(io.StringIO(text)))

    board = client.get("/api/v1/leaderboards/cifar10/training-time/", {"limit": 1000}).json()["results"]
    assert [int(row["entry_id"]) for row in rows] == [row["entry_id"] for row in board]
    assert [int(row["rank"]) for row in rows] == list(range(1, 31))


def test_a_filtered_json_export_streams_rows_with_their_ranks_on_the_whole_board(client, board_entries):
    response = client.get("/tasks/cifar10/export.json", {"framework": "PyTorch", "sort": "date"})
    document = json.loads(b"".join(response.streaming_content))

    assert response.streaming and response["Content-Type"] == "application/json"
    assert document["task"] == "cifar10" and document["metric"] == "training-time"
    assert document["results"] and all("PyTorch" in row["framework"] for row in document["results"])
    dates = [row["date"] for row in document["results"]]
    assert dates == sorted(dates)
    ranks = {row["entry_id"]: row["rank"] for row in document["results"]}
    board = client.get("/api/v1/leaderboards/cifar10/training-time/", {"limit": 1000}).json()["results"]
    assert ranks == {row["entry_id"]: row["rank"] for row in board if row["entry_id"] in ranks}
