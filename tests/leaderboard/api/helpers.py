"""What the API tests share: posting a submission and building entry documents."""

from __future__ import annotations

import json

from django.core.files.uploadedfile import SimpleUploadedFile

from tests.factories import entry_bytes, training_log

SUBMISSIONS_URL = "/api/v1/submissions/"
DEFAULT = object()  # "use the valid default", as opposed to None ("send no file")
# The default `training_log()` crosses cifar10's 94.0 on its third row: epoch 2, hour 0.03, line 4.
DEFAULT_ROWS = [(0, 0.01, 80.0), (1, 0.02, 90.5), (2, 0.03, 94.1), (3, 0.04, 94.5)]
# That log, always the same bytes: for a test of one run sent twice, or of the rows as written. (`submit` sends a
# log of a run of its own each time, as each entry of a real board is.)
DEFAULT_LOG = training_log(DEFAULT_ROWS)


def submit(client, *, task="cifar10", track="train", entry=DEFAULT, log=DEFAULT, query=""):
    """POST a multipart submission; the entry and (for training) the log default to valid ones."""
    if entry is DEFAULT:
        entry = entry_bytes()
    if log is DEFAULT:
        log = training_log() if track == "train" else None
    data = {"task": task, "track": track}
    if entry is not None:
        data["entry"] = SimpleUploadedFile("entry.json", entry, content_type="application/json")
    if log is not None:
        data["log"] = SimpleUploadedFile("log.tsv", log, content_type="text/tab-separated-values")
    return client.post(SUBMISSIONS_URL + query, data, format="multipart")


def json_bytes(document: dict) -> bytes:
    return json.dumps(document).encode()


def without(document: dict, *names: str) -> dict:
    return {name: value for name, value in document.items() if name not in names}
