"""CSV export helpers (plain Python): cells a spreadsheet would run as a formula are neutralised."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value):
    """Text that a spreadsheet would read as a formula gets a leading apostrophe (OWASP's advice)."""
    if isinstance(value, str) and value.startswith(FORMULA_TRIGGERS):
        return "'" + value
    return value


def csv_text(header: list[str], rows: Iterable[list]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    for row in rows:
        writer.writerow([spreadsheet_safe(cell) for cell in row])
    return buffer.getvalue()
