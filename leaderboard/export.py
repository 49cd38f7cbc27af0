"""Board exports (plain Python): the columns of a board row in a file, CSV cells a spreadsheet would run as a
formula neutralised, and the files written a line at a time, so that a board of any size streams."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
EXPORT_COLUMNS = [
    "rank", "value", "unit", "model", "team", "hardware", "framework", "date", "entry_id", "code_url", "submitter",
    "verification",
]  # fmt: skip


def export_record(row, *, unit: str) -> list:
    """A board row (`selectors.BoardRow`) as the cells of `EXPORT_COLUMNS`."""
    return [
        row.rank, row.value, unit, row.model, row.team, row.hardware, row.framework,
        row.date.isoformat(), row.entry_id, row.code_url, row.submitter, row.verification,
    ]  # fmt: skip


def spreadsheet_safe(value):
    """Text that a spreadsheet would read as a formula gets a leading apostrophe (OWASP's advice)."""
    if isinstance(value, str) and value.startswith(FORMULA_TRIGGERS):
        return "'" + value
    return value


def csv_lines(header: list[str], rows: Iterable[list]) -> Iterator[str]:
    """A CSV file, header first, a line at a time; formula-like cells neutralised (`spreadsheet_safe`)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)

    def line(cells: list) -> str:
        buffer.seek(0)
        buffer.truncate()
        writer.writerow(cells)
        return buffer.getvalue()

    yield line(header)
    for row in rows:
        yield line([spreadsheet_safe(cell) for cell in row])


def json_document_lines(heading: dict, records: Iterable[list]) -> Iterator[str]:
    """`{**heading, "results": [...]}` as JSON, a result (a dict of `EXPORT_COLUMNS`) per line."""
    yield json.dumps(heading, indent=2)[:-2] + ',\n  "results": ['
    separator = "\n    "
    for record in records:
        yield separator + json.dumps(dict(zip(EXPORT_COLUMNS, record, strict=True)))
        separator = ",\n    "
    yield "\n  ]\n}\n"
