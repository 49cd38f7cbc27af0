"""The browsable API: a browser (Accept: text/html) following any GET address of the API gets a page, never a 500."""

from __future__ import annotations

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from benchmarks.models import ReferenceRun
from dawnboard.metrics import LEADERBOARD_METRICS
from leaderboard.models import AlgorithmResult
from pricing.models import InstanceType, Provider
from tests.factories import inference_document
from tests.leaderboard.api.helpers import json_bytes, submit

pytestmark = pytest.mark.django_db

API_PREFIX = "api/v1/"
UNKNOWN_ID = 999_999


def api_route_names() -> set[str]:
    """Every named route under /api/v1/ (leaderboard, benchmarks and pricing), as `namespace:name`."""
    names = set()
    for top in get_resolver().url_patterns:
        if isinstance(top, URLResolver) and str(top.pattern).startswith(API_PREFIX):
            names |= {f"{top.namespace}:{p.name}" for p in top.url_patterns if isinstance(p, URLPattern)}
    return names


@pytest.fixture
def addresses(api_client) -> dict[str, list[tuple[str, int, int]]]:
    """Each API route with addresses to read on it (real objects' ids, unknown ids, a few parameters), each with
    the status an anonymous reader and a submitter get."""
    train = submit(api_client)
    inference = submit(api_client, track="inference", entry=json_bytes(inference_document()), log=None)
    assert train.status_code == inference.status_code == 201, (train.json(), inference.json())
    entry_id = train.json()["entry_url"].rstrip("/").rsplit("/", 1)[1]
    run = ReferenceRun.objects.create(task_slug="digits", recipe="cnn", progress={"epoch": 1, "step": 3})
    provider, _ = Provider.objects.get_or_create(slug="browsable-cloud")
    instance = InstanceType.objects.create(provider=provider, name="gpu.small", accelerator="V100")
    algorithm = AlgorithmResult.objects.create(
        suite="cpu", ruleset="external", name="adamw", source=AlgorithmResult.Source.BUNDLE, times={}
    )
    return {
        "api:root": [("/api/v1/", 200, 200)],
        "api:submission-create": [
            ("/api/v1/submissions/", 401, 200),
            ("/api/v1/submissions/?status=accepted", 401, 200),
            ("/api/v1/submissions/?status=nonsense", 401, 400),
        ],
        "api:submission-detail": [
            (f"/api/v1/submissions/{train.json()['id']}/", 401, 200),
            (f"/api/v1/submissions/{UNKNOWN_ID}/", 401, 404),
        ],
        "api:entry-list": [
            ("/api/v1/entries/", 200, 200),
            ("/api/v1/entries/?task=cifar10&track=train&framework=torch", 200, 200),
            ("/api/v1/entries/?page=99", 404, 404),
        ],
        "api:entry-detail": [(f"/api/v1/entries/{entry_id}/", 200, 200), (f"/api/v1/entries/{UNKNOWN_ID}/", 404, 404)],
        "api:entry-file": [  # a download, whatever the reader accepts
            (f"/api/v1/entries/{entry_id}/files/entry/", 200, 200),
            (f"/api/v1/entries/{entry_id}/files/log/", 200, 200),
            (f"/api/v1/entries/{entry_id}/files/nonsense/", 404, 404),
            (f"/api/v1/entries/{UNKNOWN_ID}/files/log/", 404, 404),
        ],
        "api:leaderboard": [
            *[(f"/api/v1/leaderboards/cifar10/{metric}/", 200, 200) for metric in LEADERBOARD_METRICS],
            ("/api/v1/leaderboards/cifar10/training-time/?limit=0", 400, 400),
            ("/api/v1/leaderboards/nowhere/training-time/", 404, 404),
        ],
        "api:task-list": [("/api/v1/tasks/", 200, 200)],
        "api:task-sensitivity": [
            ("/api/v1/tasks/cifar10/sensitivity/", 200, 200),
            ("/api/v1/tasks/nowhere/sensitivity/", 404, 404),
        ],
        "benchmarks-api:reference-run-create": [("/api/v1/reference-runs/", 401, 403)],  # staff only, POST only
        "benchmarks-api:reference-run-detail": [
            (f"/api/v1/reference-runs/{run.id}/", 200, 200),
            (f"/api/v1/reference-runs/{UNKNOWN_ID}/", 404, 404),
        ],
        "pricing-api:instance-list": [
            ("/api/v1/pricing/instances/", 200, 200),
            ("/api/v1/pricing/instances/?accelerator=V100", 200, 200),
        ],
        "api:algorithm-result-create": [("/api/v1/algorithms/results/", 401, 405)],  # POST only
        "api:algorithm-result": [
            (f"/api/v1/algorithms/results/{algorithm.id}/", 200, 200),
            (f"/api/v1/algorithms/results/{UNKNOWN_ID}/", 404, 404),
        ],
        "api:algorithm-board": [
            ("/api/v1/algorithms/cpu/external/", 200, 200),
            ("/api/v1/algorithms/nowhere/external/", 404, 404),
        ],
        "pricing-api:instance-detail": [
            (f"/api/v1/pricing/instances/{instance.id}/", 200, 200),
            (f"/api/v1/pricing/instances/{UNKNOWN_ID}/", 404, 404),
        ],
    }


@pytest.mark.parametrize("reader", ["anonymous", "submitter"])
def test_every_api_address_answers_a_browser_with_a_page_or_a_client_error(
    reader, addresses, api_client, anonymous_client: APIClient
):
    assert set(addresses) == api_route_names(), "a new API route: add its addresses to `addresses`"
    client = api_client if reader == "submitter" else anonymous_client
    expected_column = 1 if reader == "anonymous" else 2

    answers = {}
    for address in (address for route in addresses.values() for address in route):
        response = client.get(address[0], HTTP_ACCEPT="text/html")
        answers[address[0]] = response.status_code
        if response.status_code == 200 and address not in addresses["api:entry-file"]:
            assert response["Content-Type"].startswith("text/html"), address[0]

    assert answers == {address[0]: address[expected_column] for route in addresses.values() for address in route}
