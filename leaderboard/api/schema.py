"""The OpenAPI schema's view of authentication: a public endpoint carries no security requirement.

drf-spectacular lists every authenticator of a view that anonymous readers may use, plus an empty requirement
(`{}`) meaning "or none". Swagger UI draws a padlock on any operation with a requirement, so every public read
looked locked. Here an operation anyone may call has none; one that needs a token keeps its requirement (and
the docs' Authorize button keeps the token scheme for those). That scheme keeps its name, `tokenAuth`, with knox
underneath.
"""

from __future__ import annotations

from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from drf_spectacular.openapi import AutoSchema


class PublicAwareAutoSchema(AutoSchema):
    def get_auth(self) -> list[dict]:
        requirements = super().get_auth()  # also registers the security schemes, for the Authorize button
        return [] if {} in requirements else requirements


class TokenScheme(KnoxTokenScheme):
    """The API's token authentication (knox underneath), under the scheme name it has always had.

    drf-spectacular's knox extension matches knox's class only, not a subclass such as this site's.
    """

    target_class = "leaderboard.api.throttling.FailureLimitedTokenAuthentication"
    name = "tokenAuth"
