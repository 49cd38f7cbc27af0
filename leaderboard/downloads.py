"""Files served for download, under a name every browser reads.

A name outside ASCII goes in RFC 6266's `filename*` (UTF-8, percent-encoded) with an ASCII `filename` beside it
for the clients that read only that; written straight into the header it would be MIME-encoded, which no
browser decodes. Either way only letters, digits, dots, dashes and underscores are kept: no quote, slash or
bidirectional control can reach the reader's disk.
"""

from __future__ import annotations

from urllib.parse import quote

from django.http import HttpResponse

CONTENT_TYPES = {"entry": "application/json", "log": "text/tab-separated-values"}


def attachment_disposition(name: str, *, fallback: str) -> str:
    """The Content-Disposition of a file named `name` (`fallback` when nothing of the name can be kept)."""
    kept = "".join(character for character in name if character.isalnum() or character in "._-") or fallback
    ascii_kept = "".join(character for character in kept if character.isascii())
    stem, _, extension = ascii_kept.rpartition(".") if "." in ascii_kept else (ascii_kept, "", "")
    if not stem.strip("._-"):  # nothing but its extension is ASCII, e.g. 日本語ログ.tsv: log.tsv
        ascii_kept = f"{fallback}.{extension}" if extension else fallback
    if ascii_kept == kept:
        return f'attachment; filename="{kept}"'
    return f"attachment; filename=\"{ascii_kept}\"; filename*=UTF-8''{quote(kept, safe='')}"


def file_download(content: bytes, *, name: str, role: str) -> HttpResponse:
    """An entry's file (`role`: entry, log, log-N) as an attachment."""
    response = HttpResponse(content, content_type=CONTENT_TYPES[role.partition("-")[0]])
    response["Content-Disposition"] = attachment_disposition(name, fallback=role)
    return response
