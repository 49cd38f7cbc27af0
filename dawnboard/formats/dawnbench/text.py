"""Byte-level helpers shared by the entry and log parsers."""

from __future__ import annotations

import codecs

from dawnboard.errors import ErrorCode, Issue, RejectedInput


def decode_utf8(raw: bytes, *, what: str) -> tuple[str, bool]:
    """Decode UTF-8, dropping a byte-order mark. Returns (text, had_bom)."""
    body, had_bom = check_utf8(raw, what=what)
    return body.decode("utf-8"), had_bom


def check_utf8(raw: bytes, *, what: str) -> tuple[bytes, bool]:
    """Prove the bytes are UTF-8 without keeping a decoded copy. Returns (bytes without BOM, had_bom)."""
    had_bom = raw.startswith(codecs.BOM_UTF8)
    if had_bom:
        raw = raw[len(codecs.BOM_UTF8) :]
    if raw.isascii():  # the usual log: far faster than decoding
        return raw, had_bom
    try:
        raw.decode("utf-8")
        return raw, had_bom
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise RejectedInput(
            Issue(
                ErrorCode.NOT_UTF8,
                f"The {what} file is not UTF-8: byte 0x{raw[error.start]:02x} at line {line} cannot be decoded.",
                line=line,
            )
        ) from None
