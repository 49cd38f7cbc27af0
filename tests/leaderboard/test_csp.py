"""Content-Security-Policy: every page forbids inline and foreign scripts, and no page needs one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.models import Entry
from tests.factories import entry_bytes, training_log

pytestmark = pytest.mark.django_db

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
SCRIPT_TAG = re.compile(r"<script\b([^>]*)>(.*?)</script>", re.IGNORECASE | re.DOTALL)
# An attribute such as onclick= or onload=: the browser runs its value as script.
EVENT_HANDLER = re.compile(r"<[^>]+\son[a-z]+\s*=", re.IGNORECASE)


@pytest.fixture
def entry_id(api_client) -> int:
    files = {"entry": SimpleUploadedFile("e.json", entry_bytes()), "log": SimpleUploadedFile("l.tsv", training_log())}
    response = api_client.post("/api/v1/submissions/", {"task": "cifar10", "track": "train", **files})
    return Entry.objects.get(submission_id=response.json()["id"]).id


@pytest.fixture
def pages(entry_id) -> list[str]:
    return [
        "/",
        "/tasks/cifar10/",
        "/tasks/cifar10/charts/",
        f"/entries/{entry_id}/",
        "/submit/",
        "/api/docs/",
        "/admin/login/",
    ]


def directives(response) -> dict[str, list[str]]:
    policy = response["Content-Security-Policy"]
    parsed = [part.split() for part in policy.split(";") if part.strip()]
    return {name: sources for name, *sources in parsed}


def inline_scripts(html: str) -> list[str]:
    """Script elements that would execute without a src: JSON data blocks are not executed."""
    return [
        body.strip()[:80]
        for attributes, body in SCRIPT_TAG.findall(html)
        if "src=" not in attributes and 'type="application/json"' not in attributes
    ]


def test_every_page_allows_scripts_from_this_site_only(client, pages):
    for path in pages:
        response = client.get(path)

        assert response.status_code == 200, path
        policy = directives(response)
        assert policy["script-src"] == ["'self'"], path
        assert policy["default-src"] == ["'self'"], path
        assert policy["object-src"] == ["'none'"], path
        assert policy["frame-ancestors"] == ["'none'"], path
        assert policy["base-uri"] == ["'self'"], path
        assert policy["form-action"] == ["'self'"], path


def test_no_page_holds_an_inline_script_or_event_handler(client, pages):
    found = {}
    for path in pages:
        html = client.get(path).content.decode()
        problems = inline_scripts(html) + EVENT_HANDLER.findall(html) + re.findall(r"javascript:", html, re.I)
        if problems:
            found[path] = problems

    assert found == {}


def test_no_template_holds_an_inline_script_or_event_handler():
    found = {}
    for template in TEMPLATES.rglob("*.html"):
        text = template.read_text()
        problems = inline_scripts(text) + EVENT_HANDLER.findall(text) + re.findall(r"javascript:", text, re.I)
        if problems:
            found[str(template.relative_to(TEMPLATES))] = problems

    assert found == {}


def test_the_api_docs_start_up_script_is_a_file_of_this_site(client):
    html = client.get("/api/docs/").content.decode()
    [script_url] = re.findall(r'<script src="(/api/docs/\?script=[^"]*)"', html)

    script = client.get(script_url.replace("&amp;", "&"))

    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert b"SwaggerUIBundle" in script.content


def test_the_staff_pages_carry_the_policy_too(client):
    client.force_login(get_user_model().objects.create_superuser("staff", "staff@example.org", "x"))

    response = client.get("/admin/")

    assert directives(response)["script-src"] == ["'self'"]
