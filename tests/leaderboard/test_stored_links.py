"""Links stored before codeURL was checked (a `javascript:` one, say) are never rendered as an href; cached
pages are kept per host, since they write absolute links."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from leaderboard.models import Entry
from tests.factories import entry_bytes
from tests.leaderboard.api.helpers import submit

pytestmark = pytest.mark.django_db

SCRIPT_LINK = "javascript:alert(document.cookie)"


@pytest.fixture
def entry_with_a_script_link(api_client) -> Entry:
    entry_id = submit(api_client).json()["entry_url"].rstrip("/").rsplit("/", 1)[-1]
    Entry.objects.filter(id=entry_id).update(code_url=SCRIPT_LINK)  # as an entry stored before the check
    return Entry.objects.get(id=entry_id)


@pytest.mark.parametrize("url", ["/", "/tasks/cifar10/", "/entries/{id}/"])
def test_a_stored_script_link_is_never_an_href(client, entry_with_a_script_link, url):
    page = client.get(url.format(id=entry_with_a_script_link.id)).content.decode()
    assert 'href="javascript:' not in page
    assert "href=&quot;javascript" not in page


def test_a_web_link_is_still_a_link(client, api_client):
    code_url = "https://github.com/example/run"
    response = submit(api_client, entry=entry_bytes(codeURL=code_url))
    entry_id = response.json()["entry_url"].rstrip("/").rsplit("/", 1)[-1]
    page = client.get(f"/entries/{entry_id}/").content.decode()
    assert f'href="{code_url}"' in page


def test_cached_pages_are_kept_per_host(client, api_client, settings):
    settings.PAGE_CACHE_SECONDS = 60
    settings.ALLOWED_HOSTS = ["testserver", "mirror.example.org"]
    cache.clear()
    entry_id = submit(api_client).json()["entry_url"].rstrip("/").rsplit("/", 1)[-1]
    first = client.get(f"/entries/{entry_id}/").content.decode()
    mirror = client.get(f"/entries/{entry_id}/", HTTP_HOST="mirror.example.org").content.decode()
    assert "http://testserver/" in first
    assert "http://mirror.example.org/" in mirror and "http://testserver/" not in mirror
    cache.clear()
