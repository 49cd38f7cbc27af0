"""The DAWNBench v1.0 entry file: a UTF-8 JSON object. Read it exactly; write it so it reads back the same."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from dawnboard.documents import NonFiniteNumber, OutOfRangeNumber, plain_json, published
from dawnboard.errors import ErrorCode, Issue, RejectedInput
from dawnboard.formats.dawnbench.text import decode_utf8

# An entry is a dozen fields and a few notes in `misc`: the largest real DAWNBench entry is about 1 KB.
MAX_ENTRY_BYTES = 1_048_576
# Digits an integer may have before it is read as out of range (one of 302 digits already is): Python
# refuses to convert more than 4,300, which would fail the whole document instead of naming the field.
MAX_INTEGER_DIGITS = 400


def entry_size_issue(size_bytes: int) -> Issue | None:
    """`entry_too_large` for an entry over MAX_ENTRY_BYTES: asked of an upload's size before its bytes are read."""
    if size_bytes <= MAX_ENTRY_BYTES:
        return None
    return Issue(
        ErrorCode.ENTRY_TOO_LARGE,
        f"The entry is {size_bytes:,} bytes; at most {MAX_ENTRY_BYTES:,} (1 MiB). An entry is a few fields: "
        "'misc' is for a few notes about the run, not for data.",
    )


def read_entry(raw: bytes) -> dict:
    """Decode and parse the JSON, refusing what is over MAX_ENTRY_BYTES or is not a UTF-8 JSON object.

    Numbers with a fraction or exponent come back as `Decimal`, exactly as written, so money is never
    rounded through a float; NaN and Infinity literals come back as `NonFiniteNumber`, and numbers no
    reader can hold as `OutOfRangeNumber`, so that validation names their field.
    """
    if too_large := entry_size_issue(len(raw)):
        raise RejectedInput(too_large)
    text, _ = decode_utf8(raw, what="entry")
    try:
        document = json.loads(text, parse_float=_read_decimal, parse_int=_read_integer, parse_constant=NonFiniteNumber)
    except json.JSONDecodeError as error:
        raise RejectedInput(
            Issue(ErrorCode.INVALID_JSON, f"The entry is not valid JSON: {error.msg}.", line=error.lineno)
        ) from None
    except (ValueError, ArithmeticError, RecursionError) as error:  # absurd nesting, mostly
        raise RejectedInput(Issue(ErrorCode.INVALID_JSON, f"The entry cannot be read as JSON: {error}.")) from None
    if not isinstance(document, dict):
        raise RejectedInput(
            Issue(ErrorCode.NOT_OBJECT, f"The entry must be a JSON object, not a {type(document).__name__}.")
        )
    return document


def _read_decimal(text: str) -> Decimal | OutOfRangeNumber:
    try:
        return Decimal(text)
    except ArithmeticError:  # an exponent past what Decimal holds (over 10**18)
        return OutOfRangeNumber(text)


def _read_integer(text: str) -> int | OutOfRangeNumber:
    return int(text) if len(text) <= MAX_INTEGER_DIGITS else OutOfRangeNumber(text)


def published_entry_sha256(raw: bytes) -> str:
    """SHA-256 of an uploaded entry as published: `write_entry(published(...))`, so a function of no private
    field. What compares two uploads (a duplicate, a retry) without telling whether their addresses match.
    Of the bytes themselves when they are no entry (not a JSON object, a NaN...): nothing of them is published.
    """
    try:
        content = write_entry(published(read_entry(raw)))
    except (RejectedInput, ValueError, TypeError):
        content = raw
    return hashlib.sha256(content).hexdigest()


def write_entry(document: Mapping[str, Any]) -> bytes:
    """The entry as UTF-8 JSON that `read_entry` gives back unchanged.

    A `Decimal` is written as the float nearest to it (the format has no other number). Text outside
    ASCII is written as JSON escapes, so any string (a lone surrogate included) reads back the same. NaN
    and Infinity raise ValueError: no DAWNBench reader accepts them.
    """
    text = json.dumps(plain_json(document), indent=2, allow_nan=False)
    return (text + "\n").encode("ascii")
