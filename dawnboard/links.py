"""Links an entry gives (its codeURL) that a page can render as an href: absolute http(s), nothing else."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

WEB_SCHEMES = ("http", "https")
# Whitespace and control characters (C0, DEL, C1): no link needs one, and browsers drop some of them
# when they read a scheme, which is how `java\tscript:` slips past a naive check.
FORBIDDEN_CHARACTERS = re.compile(r"[\s\x00-\x1f\x7f-\x9f]")


def is_web_link(url: str) -> bool:
    """Whether a link can be rendered as an href safely: absolute http(s) with a host.

    A `javascript:` or `data:` link would run in the reader's browser; a relative one would point into
    Dawnboard itself. Validation refuses any other codeURL, and the pages ask this again of every stored
    link, so one stored before the check is inert.
    """
    try:
        parts = None if FORBIDDEN_CHARACTERS.search(url) else urlsplit(url)
        return bool(parts is not None and parts.scheme in WEB_SCHEMES and parts.port != 0 and parts.hostname)
    except ValueError:  # an unclosed IPv6 bracket, or a port that is not a number from 1 to 65535
        return False
