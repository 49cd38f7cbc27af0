"""API throttles: a flood meets 429 with Retry-After and `throttled`; a guessed-token flood is stopped first."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import override_settings
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient

from tests.factories import SubmitterFactory
from tests.leaderboard.api.helpers import submit

pytestmark = pytest.mark.django_db

TASKS_URL = "/api/v1/tasks/"
OFF = {"anon": None, "user": None, "submissions": None, "auth_failure": None}


@pytest.fixture(autouse=True)
def empty_cache():
    """Throttle counts live in the cache; each test starts with none and leaves none."""
    cache.clear()
    yield
    cache.clear()


def rates(**rates: str):
    """Turn on the named throttles (the test settings turn them all off); DRF reloads its settings."""
    return override_settings(REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {**OFF, **rates}})


def codes(response) -> list[str]:
    return [error["code"] for error in response.json()["errors"]]


def test_anonymous_reads_past_the_rate_get_429_with_retry_after(anonymous_client):
    with rates(anon="3/min"):
        statuses = [anonymous_client.get(TASKS_URL).status_code for _ in range(3)]
        refused = anonymous_client.get(TASKS_URL)

    assert statuses == [200, 200, 200]
    assert refused.status_code == 429
    assert codes(refused) == ["throttled"]
    assert 0 < int(refused["Retry-After"]) <= 60


def test_a_clients_count_is_two_numbers_whatever_the_rate(anonymous_client):
    with rates(anon="100000/min"):
        for _ in range(30):
            anonymous_client.get(TASKS_URL)

    window_start, count = cache.get("throttle_anon_127.0.0.1")
    assert count == 30 and window_start > 0  # not the time of each of the 30 requests


def test_the_window_opens_again_after_its_period(anonymous_client, monkeypatch):
    clock = [1_000_000.0]
    monkeypatch.setattr("rest_framework.throttling.SimpleRateThrottle.timer", lambda self: clock[0])
    with rates(anon="2/min"):
        first = [anonymous_client.get(TASKS_URL).status_code for _ in range(3)]
        clock[0] += 59
        still = anonymous_client.get(TASKS_URL)
        clock[0] += 1
        again = anonymous_client.get(TASKS_URL)

    assert first == [200, 200, 429]
    assert still.status_code == 429 and still["Retry-After"] == "1"
    assert again.status_code == 200


def test_submissions_past_the_rate_get_429(api_client):
    with rates(submissions="2/hour"):
        statuses = [submit(api_client, query="?dry_run=1").status_code for _ in range(2)]
        refused = submit(api_client, query="?dry_run=1")

    assert 429 not in statuses
    assert refused.status_code == 429
    assert codes(refused) == ["throttled"]
    assert int(refused["Retry-After"]) > 60


def test_submission_rate_is_per_submitter(api_client):
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Token {SubmitterFactory().token}")
    with rates(submissions="1/hour"):
        submit(api_client, query="?dry_run=1")
        refused = submit(api_client, query="?dry_run=1")
        other_first = submit(other, query="?dry_run=1")

    assert refused.status_code == 429
    assert other_first.status_code != 429


def test_forwarded_for_is_ignored_without_a_trusted_proxy(anonymous_client):
    with rates(anon="2/min"):
        for number in range(2):
            anonymous_client.get(TASKS_URL, HTTP_X_FORWARDED_FOR=f"203.0.113.{number}")
        refused = anonymous_client.get(TASKS_URL, HTTP_X_FORWARDED_FOR="203.0.113.99")

    assert refused.status_code == 429


@override_settings(BEHIND_TLS_PROXY=True)
def test_behind_the_proxy_each_forwarded_client_has_its_own_count(anonymous_client):
    with rates(anon="2/min"):
        for _ in range(2):
            anonymous_client.get(TASKS_URL, HTTP_X_FORWARDED_FOR="198.51.100.7, 203.0.113.1")
        refused = anonymous_client.get(TASKS_URL, HTTP_X_FORWARDED_FOR="203.0.113.1")
        # The proxy appends the address it saw; what the client wrote before it is not believed.
        spoofed = anonymous_client.get(TASKS_URL, HTTP_X_FORWARDED_FOR="203.0.113.1, 203.0.113.2")

    assert (refused.status_code, spoofed.status_code) == (429, 200)


def test_bad_tokens_past_the_rate_get_429_and_a_right_token_still_gets_in(submitter):
    guesser = APIClient()
    guesser.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    with rates(auth_failure="5/min"):
        statuses = [guesser.get(TASKS_URL).status_code for _ in range(5)]
        refused = guesser.get(TASKS_URL)
        guesser.credentials(HTTP_AUTHORIZATION=f"Token {submitter.token}")
        right_token_from_the_same_address = guesser.get(TASKS_URL)

    assert statuses == [401] * 5
    assert refused.status_code == 429
    assert codes(refused) == ["throttled"]
    assert 0 < int(refused["Retry-After"]) <= 60
    # A shared address (a NAT) is not locked out for the guesser's sake: only failing tokens are refused.
    assert right_token_from_the_same_address.status_code == 200


def test_failed_tokens_from_one_address_do_not_lock_out_another(submitter):
    guesser = APIClient(REMOTE_ADDR="192.0.2.1")
    guesser.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    honest = APIClient(REMOTE_ADDR="192.0.2.2")
    honest.credentials(HTTP_AUTHORIZATION=f"Token {submitter.token}")
    with rates(auth_failure="2/min"):
        for _ in range(3):
            guesser.get(TASKS_URL)
        answered = honest.get(TASKS_URL)

    assert answered.status_code == 200


def test_good_tokens_never_count_as_failures(api_client):
    with rates(auth_failure="2/min"):
        statuses = [api_client.get(TASKS_URL).status_code for _ in range(5)]

    assert statuses == [200] * 5


def test_an_expired_token_is_not_counted_as_a_guess_and_always_says_it_expired(submitter):
    AuthToken.objects.filter(user=submitter.user).update(expiry=timezone.now() - timedelta(days=1))
    expired = APIClient()
    expired.credentials(HTTP_AUTHORIZATION=f"Token {submitter.token}")
    with rates(auth_failure="2/min"):
        answers = [expired.get(TASKS_URL) for _ in range(4)]

    assert [answer.status_code for answer in answers] == [401] * 4
    assert {code for answer in answers for code in codes(answer)} == {"token_expired"}


@override_settings(BEHIND_TLS_PROXY=True)
@pytest.mark.parametrize("forwarded", ["203.0.113.5:51234", "unknown", ""])
def test_a_forwarded_for_that_is_no_address_falls_back_to_the_peer(forwarded):
    from django.test import RequestFactory

    from leaderboard.http_limits import client_ip

    request = RequestFactory().get("/", HTTP_X_FORWARDED_FOR=forwarded, REMOTE_ADDR="198.51.100.7")
    assert client_ip(request) == "198.51.100.7"


# --- on Redis, as deployed: a request is counted in one atomic round trip ----------------------------------------

REDIS_URL = "redis://127.0.0.1:6379/9"


@pytest.fixture
def redis_cache():
    """The default cache on the machine's Redis (config.redis_cache), under a key prefix of this test's own."""
    redis = pytest.importorskip("redis")
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
    except redis.exceptions.ConnectionError:
        pytest.skip("needs Redis on 127.0.0.1:6379 (the deployed cache)")
    prefix = f"throttle-test-{uuid.uuid4().hex}"
    location = {"BACKEND": "config.redis_cache.RedisCache", "LOCATION": REDIS_URL, "KEY_PREFIX": prefix}
    with override_settings(CACHES={"default": location}):
        yield cache
        client = redis.Redis.from_url(REDIS_URL)
        for key in client.scan_iter(f"{prefix}*"):
            client.delete(key)


def test_on_redis_reads_past_the_rate_get_429_and_the_count_is_one_number(anonymous_client, redis_cache):
    with rates(anon="3/min"):
        statuses = [anonymous_client.get(TASKS_URL).status_code for _ in range(3)]
        refused = anonymous_client.get(TASKS_URL)

    assert statuses == [200, 200, 200]
    assert refused.status_code == 429 and 0 < int(refused["Retry-After"]) <= 60
    opened, count = redis_cache.window_count("throttle_anon_127.0.0.1", seconds=60, now=0.0)
    assert count == 5 and opened > 1_000_000  # four requests and this one; the window opened at the first


def test_on_redis_concurrent_requests_are_each_counted_once(redis_cache):
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=8) as pool:
        counts = list(pool.map(lambda _: redis_cache.window_count("burst", seconds=60, now=1.0)[1], range(200)))

    assert sorted(counts) == list(range(1, 201))
