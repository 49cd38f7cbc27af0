"""Compare: ids from the boards' checkboxes (`?ids=1&ids=2`) or older links (`?entries=1,2`), at most 8; what is
no entry is named on the page; only the rows that apply to the compared entries' tracks."""

from __future__ import annotations

import re

import pytest
from django.http import QueryDict

from leaderboard.forms import CompareForm
from leaderboard.models import Entry
from tests.factories import entry_bytes, inference_document
from tests.leaderboard.api.helpers import json_bytes, submit

pytestmark = pytest.mark.django_db


@pytest.fixture
def trained(api_client) -> list[int]:
    for n in range(9):
        assert submit(api_client, entry=entry_bytes(model=f"model-{n}")).status_code == 201
    return list(Entry.objects.order_by("id").values_list("id", flat=True))


@pytest.fixture
def inferred(api_client) -> int:
    assert submit(api_client, track="inference", entry=json_bytes(inference_document()), log=None).status_code == 201
    return Entry.objects.get(track="inference").id


def compared(html: str) -> list[int]:
    head = html.split('<table class="comparison">')[1].split("</thead>")[0]
    return [int(entry_id) for entry_id in re.findall(r'href="/entries/(\d+)/">#', head)]


def problems(html: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for code, text in re.findall(r'<li data-problem="([a-z_]+)">(.*?)</li>', html):
        found.setdefault(code, []).append(text)
    return found


def row_labels(html: str) -> list[str]:
    return re.findall(r'<tr data-row="([^"]+)">', html)


def test_repeated_ids_as_the_board_checkboxes_send_them_are_compared_in_order(client, trained):
    html = client.get("/compare/", {"ids": [trained[2], trained[0]]}).content.decode()

    assert compared(html) == [trained[2], trained[0]]
    assert problems(html) == {}


def test_the_older_comma_separated_form_still_works_and_mixes_with_ids(client, trained):
    assert compared(client.get(f"/compare/?entries={trained[0]},{trained[1]}").content.decode()) == trained[:2]
    html = client.get(f"/compare/?ids={trained[3]}&entries={trained[4]}").content.decode()
    assert compared(html) == [trained[3], trained[4]]


def test_an_id_of_no_entry_is_named_and_the_others_are_still_compared(client, trained):
    html = client.get("/compare/", {"ids": [trained[0], 999999]}).content.decode()

    assert compared(html) == [trained[0]]
    assert problems(html) == {"no_entry": ["Entry 999999 does not exist or was withdrawn."]}


def test_a_value_that_is_no_id_is_named(client, trained):
    html = client.get("/compare/", {"ids": ["abc", trained[0], "0"]}).content.decode()

    assert compared(html) == [trained[0]]
    assert problems(html) == {"not_an_id": ["&#x27;abc&#x27; is not an entry id.", "&#x27;0&#x27; is not an entry id."]}


def test_a_withdrawn_entry_is_named_not_compared(client, trained):
    Entry.objects.filter(id=trained[1]).update(status=Entry.Status.WITHDRAWN)

    html = client.get("/compare/", {"ids": [trained[0], trained[1]]}).content.decode()

    assert compared(html) == [trained[0]] and list(problems(html)) == ["no_entry"]


def test_only_the_first_eight_are_compared_and_the_page_says_so(client, trained):
    html = client.get("/compare/", {"ids": trained}).content.decode()

    assert compared(html) == trained[:8]
    assert list(problems(html)) == ["too_many"] and "only the first 8 are compared" in problems(html)["too_many"][0]


def test_training_entries_get_no_latency_rows(client, trained):
    labels = row_labels(client.get("/compare/", {"ids": trained[:2]}).content.decode())

    assert "Time to accuracy" in labels and "Training cost" in labels
    assert "Latency" not in labels and "Cost per 10,000 items" not in labels


def test_inference_entries_get_no_training_rows_and_a_mix_gets_both(client, trained, inferred):
    alone = row_labels(client.get("/compare/", {"ids": [inferred]}).content.decode())
    mixed = row_labels(client.get("/compare/", {"ids": [trained[0], inferred]}).content.decode())

    assert "Latency" in alone and "Time to accuracy" not in alone and "Epoch reached" not in alone
    assert {"Latency", "Time to accuracy"} <= set(mixed)


def test_the_compared_entries_are_ticked_in_the_pages_own_form(client, trained):
    html = client.get("/compare/", {"ids": trained[:2]}).content.decode()
    form = html.split('<form class="filters" method="get" action="/compare/">')[1].split("</form>")[0]

    ticked = re.findall(r'<input type="checkbox" name="ids" value="(\d+)" checked>', form)
    assert [int(entry_id) for entry_id in ticked] == trained[:2]


def test_the_form_reads_both_parameters_once_each_in_order():
    form = CompareForm(QueryDict("ids=3&ids=x&entries=1,%203,,2&ids=01"))

    result = form.compared()

    assert result.ids == [3, 1, 2]
    assert result.problems == [("not_an_id", "'x' is not an entry id")]


def test_the_checkbox_and_the_comma_forms_of_one_comparison_share_a_canonical_query():
    ticked, _ = CompareForm(QueryDict("ids=4&ids=2")).canonical_query()
    typed, parsed = CompareForm(QueryDict("entries=4, 2")).canonical_query()

    assert ticked == typed and parsed
    assert ticked.urlencode() == "ids=4&ids=2"


def test_a_query_with_a_problem_is_not_canonical():
    assert CompareForm(QueryDict("ids=1&ids=nope")).canonical_query()[1] is False
    assert CompareForm(QueryDict("&".join(f"ids={n}" for n in range(1, 10)))).canonical_query()[1] is False
