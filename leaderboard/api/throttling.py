"""API throttles: per address, per user, per submitter's submissions, and per address's failed tokens.

Every throttle keys an anonymous client by `client_ip` (X-Forwarded-For only behind the TLS proxy; DRF's own
`get_ident` would believe any X-Forwarded-For) and reads its rate from DEFAULT_THROTTLE_RATES when a request
comes, not when the class is imported, so a change of settings takes effect at once. Over a rate the answer
is 429 with Retry-After and the code `throttled`.
"""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured
from rest_framework import exceptions, throttling
from rest_framework.authentication import TokenAuthentication, get_authorization_header
from rest_framework.settings import api_settings

from leaderboard.http_limits import client_ip


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


class AnonThrottle(_LiveRates, throttling.AnonRateThrottle):
    """Anonymous requests, per client address (THROTTLE_ANON_RATE)."""


class UserThrottle(_LiveRates, throttling.UserRateThrottle):
    """Requests per authenticated user, or per address for anonymous ones (THROTTLE_USER_RATE)."""


class ScopedThrottle(_LiveRates, throttling.ScopedRateThrottle):
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
    """Token authentication that answers 429 instead of 401 to an address past too many wrong tokens.

    DRF authenticates before it throttles, so without this a flood of guessed tokens meets only 401s. Only
    failures count and only failures are refused: a valid token from the same address (a shared NAT) still
    gets in, since a token of 160 random bits is not guessed, and a flood is slowed down all the same.
    """

    def authenticate(self, request):
        words = get_authorization_header(request).split()
        if not words or words[0].lower() != self.keyword.lower().encode():
            return None
        try:
            return super().authenticate(request)
        except exceptions.AuthenticationFailed:
            failures = AuthFailureThrottle()
            if not failures.allow_request(request, None):
                raise exceptions.Throttled(
                    wait=failures.wait(), detail="Too many failed token authentications from this address."
                ) from None
            failures.record_failure()
            raise
