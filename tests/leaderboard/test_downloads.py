"""Files served for download under a name every browser reads (RFC 6266's filename* beside an ASCII filename)."""

from __future__ import annotations

from urllib.parse import unquote

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.downloads import attachment_disposition
from leaderboard.models import Entry
from tests.factories import entry_bytes, training_log
from tests.leaderboard.api.helpers import SUBMISSIONS_URL


@pytest.mark.parametrize(
    ("name", "header"),
    [
        ("log.tsv", 'attachment; filename="log.tsv"'),
        (
            "日本語ログ.tsv",
            "attachment; filename=\"log.tsv\"; filename*=UTF-8''%E6%97%A5%E6%9C%AC%E8%AA%9E%E3%83%AD%E3%82%B0.tsv",
        ),
        ("résumé.tsv", "attachment; filename=\"rsum.tsv\"; filename*=UTF-8''r%C3%A9sum%C3%A9.tsv"),
        ('a"b/../c\r\n.json', 'attachment; filename="ab..c.json"'),  # no quote, slash or line break reaches it
        ("\u202egpj.tsv", 'attachment; filename="gpj.tsv"'),  # nor a bidirectional override
        ("", 'attachment; filename="log"'),
    ],
)
def test_the_disposition_names_the_file_for_every_browser(name, header):
    assert attachment_disposition(name, fallback="log") == header


@pytest.mark.django_db
def test_a_log_named_in_japanese_downloads_under_its_name(api_client, client):
    response = api_client.post(
        SUBMISSIONS_URL,
        {
            "task": "cifar10",
            "track": "train",
            "entry": SimpleUploadedFile("entry.json", entry_bytes()),
            "log": SimpleUploadedFile("日本語ログ.tsv", training_log()),
        },
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    entry = Entry.objects.get()

    for address in (f"/entries/{entry.id}/files/log/", f"/api/v1/entries/{entry.id}/files/log/"):
        disposition = client.get(address)["Content-Disposition"]
        assert disposition.isascii() and "=?utf-8?" not in disposition, disposition  # not MIME-encoded
        assert unquote(disposition.split("filename*=UTF-8''")[1]) == "日本語ログ.tsv"
