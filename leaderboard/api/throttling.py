"""API throttles: per address, per user, per submitter's submissions, and per address's failed tokens.

Every throttle keys an anonymous client by `client_ip` (X-Forwarded-For only behind the TLS proxy; DRF's own
`get_ident` would believe any X-Forwarded-For) and reads its rate from DEFAULT_THROTTLE_RATES when a request
comes, not when the class is imported, so a change of settings takes effect at once. Over a rate the answer
is 429 with Retry-After and the code `throttled`.
"""

from __future__ import annotations

import math
from datetime import UTC

from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone
from knox.auth import TokenAuthentication
from knox.crypto import hash_token
from knox.models import get_token_model
from knox.settings import knox_settings
from rest_framework import exceptions, throttling
from rest_framework.authentication import get_authorization_header
from rest_framework.settings import api_settings

from leaderboard.http_limits import client_ip

# The code of a token that was right but is past its expiry, beside DRF's `authentication_failed` for the rest.
TOKEN_EXPIRED = "token_expired"


class _LiveRates:
    """Rates and client addresses as this site defines them; mixed in before a DRF throttle class."""

    scope: str

    def get_rate(self) -> str | None:
        rates = api_settings.DEFAULT_THROTTLE_RATES
        if self.scope not in rates:
            raise ImproperlyConfigured(f"No throttle rate is set for the scope {self.scope!r}.")
        return rates[self.scope]

    def get_ident(self, request) -> str:
        return client_ip(request)


class _FixedWindowThrottle(throttling.SimpleRateThrottle):
    """Counts requests in a window that opens with a client's first request and lasts the rate's period.

    DRF's own throttles keep every request's time in the window and read and write that whole list on each
    request: at a rate of thousands a minute, a list of thousands of floats pickled twice per request, the
    bulk of a cached API read's time. Here a client's state is two numbers, whatever the rate, and on Redis
    (config.redis_cache) counting a request is one atomic round trip. Every request counts, refused ones too.
    """

    def allow_request(self, request, view) -> bool:
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = self.timer()
        self.window_start, count = window_count(self.cache, self.key, seconds=self.duration, now=self.now)
        return count <= self.num_requests

    def wait(self) -> float:
        """Seconds until the window closes and the count starts again."""
        return max(self.window_start + self.duration - self.now, 1)


def window_count(cache, key: str, *, seconds: int, now: float) -> tuple[float, int]:
    """Count one more request under `key`: (when its window opened, requests in it, this one included).

    The cache's own one-round-trip counter where it has one; otherwise a read and a write, which a burst of
    concurrent requests can race by a few counts, as DRF's own throttles can.
    """
    if hasattr(cache, "window_count"):
        return cache.window_count(key, seconds=seconds, now=now)
    opened, count = cache.get(key, (now, 0))
    if now >= opened + seconds:
        opened, count = now, 0
    cache.set(key, (opened, count + 1), math.ceil(opened + seconds - now))
    return opened, count + 1


# DRF's classes come before `_FixedWindowThrottle`, so that ScopedRateThrottle picks the scope's rate first.
class AnonThrottle(_LiveRates, throttling.AnonRateThrottle, _FixedWindowThrottle):
    """Anonymous requests, per client address (THROTTLE_ANON_RATE)."""


class UserThrottle(_LiveRates, throttling.UserRateThrottle, _FixedWindowThrottle):
    """Requests per authenticated user (THROTTLE_USER_RATE); anonymous ones meet AnonThrottle alone."""

    def get_cache_key(self, request, view) -> str | None:
        if not (request.user and request.user.is_authenticated):
            return None
        return super().get_cache_key(request, view)


class ScopedThrottle(_LiveRates, throttling.ScopedRateThrottle, _FixedWindowThrottle):
    """Views that name a `throttle_scope`, e.g. submissions per submitter (THROTTLE_SUBMISSION_RATE)."""


class AuthFailureThrottle(_LiveRates, throttling.SimpleRateThrottle):
    """Failed token authentications per client address (THROTTLE_AUTH_FAILURE_RATE).

    Unlike the other throttles, asking does not count: only `record_failure` does, so a client with a good
    token is never slowed by it.
    """

    scope = "auth_failure"

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}

    def allow_request(self, request, view) -> bool:
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        self.now = self.timer()
        self.history = [moment for moment in self.cache.get(self.key, []) if moment > self.now - self.duration]
        return len(self.history) < self.num_requests

    def wait(self) -> float:
        """Seconds until the oldest failure that still counts expires, so one more try is allowed."""
        expiring = self.history[min(self.num_requests, len(self.history)) - 1]
        return max(self.duration - (self.now - expiring), 1)

    def record_failure(self) -> None:
        if self.rate is None:
            return
        self.history.insert(0, self.now)
        self.cache.set(self.key, self.history, self.duration)


class FailureLimitedTokenAuthentication(TokenAuthentication):
    """Token authentication (knox: tokens stored hashed) that answers 429 instead of 401 to an address past too
    many wrong tokens, and `token_expired` to a right token past its expiry.

    DRF authenticates before it throttles, so without this a flood of guessed tokens meets only 401s. Only
    failures count and only failures are refused: a valid token from the same address (a shared NAT) still
    gets in, since a token is not guessed (256 random bits, of which the admin shows 40; one migrated from
    before knox, 160, of which it shows 60), and a flood is slowed down all the same. An expired token is a
    real one, not a guess: it is not counted, and always gets its own answer, which says what to do.
    """

    def authenticate(self, request):
        words = get_authorization_header(request).split()
        if not words or words[0].lower() != self.authenticate_header(request).lower().encode():
            return None
        try:
            return super().authenticate(request)
        except exceptions.AuthenticationFailed as failed:
            if failed.get_codes() == TOKEN_EXPIRED:
                raise
            failures = AuthFailureThrottle()
            if not failures.allow_request(request, None):
                raise exceptions.Throttled(
                    wait=failures.wait(), detail="Too many failed token authentications from this address."
                ) from None
            failures.record_failure()
            raise

    def authenticate_credentials(self, token: bytes):
        """The token's user, found by the token's digest (the primary key): one indexed read.

        Unlike knox's own, this neither deletes an expired token (it keeps answering `token_expired`, and
        stays listed in the admin until `rotate_token` replaces it) nor reads the user's other tokens.
        """
        try:
            digest = hash_token(token.decode())
        except UnicodeError:
            raise exceptions.AuthenticationFailed("Invalid token.") from None
        stored = get_token_model().objects.select_related("user").filter(digest=digest).first()
        if stored is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        if stored.expiry is not None and stored.expiry <= timezone.now():
            raise exceptions.AuthenticationFailed(
                f"This token expired on {stored.expiry.astimezone(UTC):%Y-%m-%d %H:%M} UTC. Ask the site's staff "
                f"for a new one: they issue it with `manage.py rotate_token {stored.user.get_username()}`.",
                code=TOKEN_EXPIRED,
            )
        if knox_settings.AUTO_REFRESH and stored.expiry is not None:
            self.renew_token(stored)
        return self.validate_user(stored)
