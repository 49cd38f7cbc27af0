"""Text a submitter wrote is isolated on every page: a right-to-left override in it cannot reorder the page."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from rest_framework.test import APIClient

from leaderboard.templatetags.board import BIDI_CONTROLS, as_json, user_text
from tests.factories import SubmitterFactory, entry_bytes, inference_document
from tests.leaderboard.api.helpers import json_bytes, submit

pytestmark = pytest.mark.django_db

RLO = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: "Team \u202eevil" shows as "Team live", and so does what follows it
VOID_ELEMENTS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# The submitted texts; each holds a different directional control, so each is found wherever it is shown.
SUBMITTED = {
    "author": f"Team {RLO}evil",
    "model": "ResNet \u202d9 \u2067x",
    "framework": "PyTorch \u2066two\u2069 \u200f",
    "hardware": f"<script>alert(1)</script> 8 V100 {RLO}",
    "commitHash": "abc\u2068def",
    "logFilename": f"log{RLO}vst.tsv",
    "misc": {f"batch{RLO}Size": f"512{RLO}"},
}
SUBMITTER_NAME = f"Lab {RLO}one"


class IsolationCheck(HTMLParser):
    """Collects the text shown outside any `<bdi>` or `dir="auto"` element that holds a directional control.

    Text only: an attribute cannot hold an element (the page's <title> is text, and counts). Scripts are data for
    the charts, not text shown.
    """

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open: list[tuple[str, bool]] = []  # (tag, whether it isolates its content)
        self.unisolated: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in VOID_ELEMENTS:
            self.open.append((tag, tag == "bdi" or dict(attrs).get("dir") == "auto"))

    def handle_endtag(self, tag):
        while self.open and self.open.pop()[0] != tag:
            pass  # an element its parent's end closed (a <p> before a </td>, say)

    def handle_data(self, data):
        in_script = any(tag in ("script", "style") for tag, _ in self.open)
        isolated = any(isolates for _, isolates in self.open)
        if not in_script and not isolated and any(control in data for control in BIDI_CONTROLS):
            self.unisolated.append(data)


def unisolated_text(html: str) -> list[str]:
    check = IsolationCheck()
    check.feed(html)
    check.close()
    return check.unisolated


@pytest.fixture
def entries(db) -> tuple[int, int]:
    """A training and an inference entry whose every text field holds a directional control, submitted by a
    submitter whose name holds one too."""
    submitter = SubmitterFactory(name=SUBMITTER_NAME, email="lab@example.org")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {submitter.token}")
    train = submit(client, entry=entry_bytes(**SUBMITTED, codeURL=f"https://example.org/{RLO}repo", notes=RLO))
    inference_fields = {name: value for name, value in SUBMITTED.items() if name != "logFilename"}
    inference = submit(client, track="inference", entry=json_bytes(inference_document(**inference_fields)), log=None)
    assert train.status_code == inference.status_code == 201, (train.json(), inference.json())
    return tuple(int(verdict.json()["entry_url"].rstrip("/").rsplit("/", 1)[1]) for verdict in (train, inference))


def pages(entries: tuple[int, int]) -> dict[str, str]:
    train, inference = entries
    return {
        "home": "/",
        "task board": "/tasks/cifar10/",
        "inference board": "/tasks/cifar10/?metric=inference-latency",
        "training entry": f"/entries/{train}/",
        "inference entry": f"/entries/{inference}/",
        "compare": f"/compare/?ids={train}&ids={inference}",
        "charts": "/tasks/cifar10/charts/",
    }


PAGE_NAMES = ["home", "task board", "inference board", "training entry", "inference entry", "compare", "charts"]
# What each page shows of the submitted texts (the model on all of them).
SHOWN_ON = {
    "home": ["author", "model", "framework", "hardware"],
    "task board": ["author", "model", "framework", "hardware"],
    "inference board": ["author", "model", "framework", "hardware"],
    "training entry": ["author", "model", "framework", "hardware", "commitHash", "logFilename"],
    "inference entry": ["author", "model", "framework", "hardware", "commitHash"],
    "compare": ["author", "model", "framework", "hardware"],
    "charts": ["author", "model", "hardware"],
}


@pytest.mark.parametrize("page", PAGE_NAMES)
def test_every_directional_control_on_a_page_is_inside_an_isolate(client, entries, page):
    response = client.get(pages(entries)[page])

    assert response.status_code == 200
    assert unisolated_text(response.content.decode()) == []


@pytest.mark.parametrize("page", PAGE_NAMES)
def test_the_submitted_texts_are_shown_each_in_its_own_bdi(client, entries, page):
    html = client.get(pages(entries)[page]).content.decode()

    for field in SHOWN_ON[page]:
        shown = SUBMITTED[field].replace("<", "&lt;").replace(">", "&gt;")
        assert f"<bdi>{shown}</bdi>" in html, field


@pytest.mark.parametrize("page", PAGE_NAMES)
def test_isolated_text_is_still_escaped(client, entries, page):
    html = client.get(pages(entries)[page]).content.decode()

    assert "<script>alert(1)" not in html
    assert "<bdi>&lt;script&gt;alert(1)&lt;/script&gt; 8 V100" in html


def test_the_entry_page_names_its_submitter_in_a_bdi(client, entries):
    html = client.get(pages(entries)["training entry"]).content.decode()

    assert f'<strong class="submitter"><bdi>{SUBMITTER_NAME}</bdi></strong>' in html


def test_the_entry_page_title_drops_directional_controls(client, entries):
    html = client.get(pages(entries)["training entry"]).content.decode()

    assert "<title>ResNet 9 x · Dawnboard</title>" in html


def test_json_fields_show_directional_controls_as_their_escapes(client, entries):
    html = client.get(pages(entries)["training entry"]).content.decode()

    assert "&quot;batch\\u202eSize&quot;: &quot;512\\u202e&quot;" in html  # misc: the same JSON, made visible
    assert "<pre>&quot;\\u202e&quot;</pre>" in html  # a field DAWNBench does not document


def test_user_text_escapes_and_isolates():
    assert user_text("<b>Lab</b>") == "<bdi>&lt;b&gt;Lab&lt;/b&gt;</bdi>"
    assert user_text("") == user_text(None) == ""


def test_as_json_escapes_directional_controls_only():
    assert as_json({"name": f"é {RLO}"}) == '{\n  "name": "é \\u202e"\n}'
