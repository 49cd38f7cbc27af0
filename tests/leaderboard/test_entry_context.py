"""An entry's page puts it in context: its rank on each board of its track, a way back to the board, the
recomputation in words, "not given" for fields it left out, and its warnings grouped by whether to look."""

from __future__ import annotations

import re

import pytest

from dawnboard.errors import WarningCode, needs_attention
from dawnboard.metrics import INFERENCE_COST, TRAINING_COST, TRAINING_TIME
from leaderboard import selectors, views
from leaderboard.models import Entry
from tests.factories import entry_bytes, entry_document, inference_document, training_log
from tests.leaderboard.api.helpers import json_bytes, submit

pytestmark = pytest.mark.django_db

RANK = re.compile(r'<li data-metric="([a-z-]+)" data-rank="(\d+)">')


def log_crossing_at(hours: float) -> bytes:
    """A log that reaches cifar10's 94 % at `hours`, on its third row (line 4), epoch 2."""
    return training_log([(0, hours / 3, 80.0), (1, hours / 2, 90.5), (2, hours, 94.1), (3, hours * 2, 94.5)])


@pytest.fixture
def board(api_client) -> dict[str, Entry]:
    """Four training entries: `fast` is first on time but, dearer per hour, last on cost; `free` gives no price.

    Their hardware is in no price catalog, so no entry carries a price warning."""
    for model, hours, price in (("fast", 0.01, 40.0), ("middle", 0.02, 1.0), ("slow", 0.04, 1.0), ("free", 0.03, None)):
        document = entry_document(model=model, hardware="1 home-built accelerator", costPerHour=price)
        if price is None:
            del document["costPerHour"]
        assert submit(api_client, entry=json_bytes(document), log=log_crossing_at(hours)).status_code == 201
    return {entry.model: entry for entry in Entry.objects.all()}


def page_ranks(client, entry: Entry) -> dict[str, int]:
    return {metric: int(rank) for metric, rank in RANK.findall(client.get(f"/entries/{entry.id}/").content.decode())}


def api_ranks(client, metric: str) -> dict[int, int]:
    results = client.get(f"/api/v1/leaderboards/cifar10/{metric}/").json()["results"]
    return {row["entry_id"]: row["rank"] for row in results}


def test_each_entry_page_gives_the_rank_the_board_gives_it(client, board):
    by_metric = {metric: api_ranks(client, metric) for metric in (TRAINING_TIME.slug, TRAINING_COST.slug)}

    for entry in board.values():
        expected = {metric: ranks[entry.id] for metric, ranks in by_metric.items() if entry.id in ranks}
        assert page_ranks(client, entry) == expected
    assert page_ranks(client, board["fast"]) == {TRAINING_TIME.slug: 1, TRAINING_COST.slug: 3}


def test_the_rank_says_of_how_many_and_links_to_the_board_by_that_metric(client, board):
    html = client.get(f"/entries/{board['middle'].id}/").content.decode()

    assert re.search(r"<strong>#2</strong> of 4 on <a href=\"/tasks/cifar10/\?metric=training-time\">", html)
    assert re.search(r"<strong>#1</strong> of 3 on <a href=\"/tasks/cifar10/\?metric=training-cost\">", html)


def test_an_entry_off_a_board_says_why(client, board):
    html = client.get(f"/entries/{board['free'].id}/").content.decode()

    assert '<li data-metric="training-cost">Not ranked' in html
    assert "it has no training cost figure" in html


def test_an_inference_entry_is_ranked_on_the_inference_boards_only(client, api_client):
    assert submit(api_client, track="inference", entry=json_bytes(inference_document()), log=None).status_code == 201
    entry = Entry.objects.get()

    ranks = selectors.entry_board_ranks(entry)

    assert [(rank.metric.track, rank.rank, rank.board_size) for rank in ranks] == [("inference", 1, 1)] * 2
    assert ranks[-1].metric == INFERENCE_COST


def test_a_withdrawn_entry_is_ranked_nowhere(client, board):
    Entry.objects.filter(id=board["fast"].id).update(status=Entry.Status.WITHDRAWN)

    assert {rank.rank for rank in selectors.entry_board_ranks(Entry.objects.get(id=board["fast"].id))} == {None}
    assert page_ranks(client, board["middle"])[TRAINING_TIME.slug] == 1


def test_the_page_links_back_to_its_task_board(client, board):
    html = client.get(f"/entries/{board['slow'].id}/").content.decode()

    assert 'id="board-link" href="/tasks/cifar10/?metric=training-time"' in html


def test_a_board_link_opens_the_page_that_holds_the_rank():
    assert views._board_url("cifar10", TRAINING_TIME, rank=views.PAGE_SIZE) == "/tasks/cifar10/?metric=training-time"
    assert views._board_url("cifar10", TRAINING_TIME, rank=views.PAGE_SIZE + 1).endswith("&page=2")


def test_the_time_to_accuracy_is_explained_from_the_log_row_that_reached_the_threshold(client, board):
    html = client.get(f"/entries/{board['slow'].id}/").content.decode()
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html.split('id="time-to-accuracy"')[1].split("</p>")[0]))

    assert "at or above 94 %" in text
    assert "line 4, epoch 2," in text  # the third row of the log, after its header
    assert "0.04 h = 0:02:24" in text  # 0.04 h is 144 s


def test_fields_left_out_read_not_given(client, board):
    html = client.get(f"/entries/{board['slow'].id}/").content.decode()
    fields = dict(re.findall(r"<tr><th>([^<]+)</th><td>(.*?)</td></tr>", html.split('class="fields"')[1]))

    for name in ("Code", "Commit", "Log file name"):
        assert "not given" in fields[name], name


def test_a_given_code_link_is_shown_not_not_given(client, api_client):
    entry = entry_bytes(codeURL="https://example.com/code", commitHash="abc123")
    assert submit(api_client, entry=entry).status_code == 201

    html = client.get(f"/entries/{Entry.objects.get().id}/").content.decode()

    assert 'href="https://example.com/code"' in html and "<code><bdi>abc123</bdi></code>" in html
    assert html.count("not given</span></td></tr>") == 1  # the log file name alone


def test_warnings_are_grouped_by_whether_a_person_should_look(client, board):
    warnings = [
        {"code": WarningCode.CRLF_LINE_ENDINGS, "message": "CRLF."},
        {"code": WarningCode.REPEATED_EPOCH, "message": "Epochs repeat.", "line": 3},
    ]
    assert needs_attention(WarningCode.REPEATED_EPOCH) and not needs_attention(WarningCode.CRLF_LINE_ENDINGS)
    Entry.objects.filter(id=board["slow"].id).update(warnings=warnings)

    html = client.get(f"/entries/{board['slow'].id}/").content.decode()
    attention = html.split('id="warnings-attention"')[1].split("</div>")[0]
    notes = html.split('id="warnings-notes"')[1].split("</div>")[0]

    assert "<code>repeated_epoch</code>" in attention and "crlf_line_endings" not in attention
    assert "<code>crlf_line_endings</code>" in notes and "repeated_epoch" not in notes


def test_an_entry_without_warnings_has_no_groups(client, board):
    html = client.get(f"/entries/{board['slow'].id}/").content.decode()

    assert 'id="warnings-attention"' not in html and 'id="warnings-notes"' not in html
    assert "None: the files were read as they are." in html
