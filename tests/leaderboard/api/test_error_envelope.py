"""A form over Django's limits (fields, files), or a Django 404 in a view, gets the API's envelope and a code, not
Django's HTML page or a repr."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import Http404

from leaderboard.api.errors import envelope_exception_handler
from leaderboard.models import Submission
from tests.leaderboard.api.helpers import SUBMISSIONS_URL

pytestmark = pytest.mark.django_db


def test_a_form_of_a_thousand_fields_is_refused_with_too_many_fields(api_client):
    fields = {"task": "cifar10", "track": "train", **{f"field{number}": "x" for number in range(1000)}}

    response = api_client.post(SUBMISSIONS_URL, fields, format="multipart")

    assert response.status_code == 400 and response["Content-Type"] == "application/json"
    [error] = response.json()["errors"]
    assert error["code"] == "too_many_fields" and "DATA_UPLOAD_MAX_NUMBER_FIELDS" in error["message"]
    assert not Submission.objects.exists()


def test_a_form_of_150_files_is_refused_with_too_many_files(api_client):
    files = {f"file{number}": SimpleUploadedFile(f"{number}.tsv", b"x") for number in range(150)}

    response = api_client.post(SUBMISSIONS_URL, {"task": "cifar10", "track": "train", **files}, format="multipart")

    assert response.status_code == 400 and response["Content-Type"] == "application/json"
    [error] = response.json()["errors"]
    assert error["code"] == "too_many_files" and "entry and log" in error["message"]
    assert not Submission.objects.exists()


def test_outside_the_api_a_bad_request_is_still_the_html_page(client, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 5

    response = client.post("/admin/login/", {f"field{number}": "x" for number in range(10)})

    assert response.status_code == 400 and response["Content-Type"].startswith("text/html")


def test_any_views_django_404_is_not_found_with_its_message():
    """get_object_or_404 in any API view: the envelope's `not_found`, not `error` and the repr of a dict."""
    response = envelope_exception_handler(Http404("No reference run matches the given query."), {"view": None})

    assert response.status_code == 404
    assert response.data["errors"] == [{"code": "not_found", "message": "No reference run matches the given query."}]


@pytest.mark.parametrize("address", ["/api/v1/reference-runs/999999/", "/api/v1/pricing/instances/999999/"])
def test_an_unknown_object_of_a_generic_view_is_not_found_in_the_envelope(anonymous_client, address):
    """The probe's reference-run 404 said `{'detail': ErrorDetail(...)}` with the code `error`."""
    response = anonymous_client.get(address)

    assert response.status_code == 404
    [error] = response.json()["errors"]
    assert error["code"] == "not_found"
    assert "ErrorDetail" not in error["message"] and "{" not in error["message"]
