"""The DAWNBench v1.0 entry file: a UTF-8 JSON object. Read it exactly; write it so it reads back the same."""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from dawnboard.documents import NonFiniteNumber, plain_json
from dawnboard.errors import ErrorCode, Issue, RejectedInput
from dawnboard.formats.dawnbench.text import decode_utf8


def read_entry(raw: bytes) -> dict:
    """Decode and parse the JSON, refusing what is not a UTF-8 JSON object.

    Numbers with a fraction or exponent come back as `Decimal`, exactly as written, so money is never
    rounded through a float; NaN and Infinity literals come back as `NonFiniteNumber`.
    """
    text, _ = decode_utf8(raw, what="entry")
    try:
        document = json.loads(text, parse_float=Decimal, parse_constant=NonFiniteNumber)
    except json.JSONDecodeError as error:
        raise RejectedInput(
            Issue(ErrorCode.INVALID_JSON, f"The entry is not valid JSON: {error.msg}.", line=error.lineno)
        ) from None
    except (ValueError, ArithmeticError, RecursionError) as error:  # huge integers or exponents; absurd nesting
        raise RejectedInput(Issue(ErrorCode.INVALID_JSON, f"The entry cannot be read as JSON: {error}.")) from None
    if not isinstance(document, dict):
        raise RejectedInput(
            Issue(ErrorCode.NOT_OBJECT, f"The entry must be a JSON object, not a {type(document).__name__}.")
        )
    return document


def write_entry(document: Mapping[str, Any]) -> bytes:
    """The entry as UTF-8 JSON that `read_entry` gives back unchanged.

    A `Decimal` is written as the float nearest to it (the format has no other number). Text outside
    ASCII is written as JSON escapes, so any string (a lone surrogate included) reads back the same. NaN
    and Infinity raise ValueError: no DAWNBench reader accepts them.
    """
    text = json.dumps(plain_json(document), indent=2, allow_nan=False)
    return (text + "\n").encode("ascii")
