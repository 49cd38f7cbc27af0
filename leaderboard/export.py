"""Board exports (plain Python): the columns of a board row in a file, and CSV cells a spreadsheet would run
as a formula neutralised."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
EXPORT_COLUMNS = ["rank", "value", "unit", "model", "team", "hardware", "framework", "date", "entry_id", "code_url"]


def export_record(row, *, unit: str) -> list:
    """A board row (`selectors.BoardRow`) as the cells of `EXPORT_COLUMNS`."""
    return [
        row.rank, row.value, unit, row.model, row.team, row.hardware, row.framework,
        row.date.isoformat(), row.entry_id, row.code_url,
    ]  # fmt: skip


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
