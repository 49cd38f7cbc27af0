from pathlib import Path

import pytest
from rest_framework.test import APIClient

from tests.factories import SubmitterFactory

SAMPLE_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "dawnbench-sample"


@pytest.fixture
def sample_dir() -> Path:
    if not (SAMPLE_DIR / "CIFAR10").is_dir():
        pytest.skip(f"the DAWNBench sample is not at {SAMPLE_DIR}")
    return SAMPLE_DIR


@pytest.fixture
def submitter(db):
    return SubmitterFactory()


@pytest.fixture
def api_client(submitter) -> APIClient:
    """An API client authenticated with a real submitter token."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {submitter.token}")
    return client


@pytest.fixture
def anonymous_client() -> APIClient:
    return APIClient()
