"""Parse and check the catalog CSV files. A bad row is reported with its line number; nothing half-loads."""

from __future__ import annotations

import csv
import datetime
import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TypeVar

BUNDLED_CATALOG_DIR = Path(__file__).resolve().parents[1] / "data"  # prices.csv, accelerators.csv, grid.csv
PRICE_COLUMNS = [
    "provider", "instance", "accelerator", "accelerator_count", "vcpus", "memory_gib",
    "region", "pricing_model", "usd_per_hour", "valid_from", "source_url", "note",
]  # fmt: skip
ACCELERATOR_COLUMNS = ["accelerator", "board_power_watts", "source_url", "note"]
GRID_COLUMNS = ["provider", "region", "grams_co2e_per_kwh", "pue", "source_url", "note"]
PRICING_MODELS = ("on-demand", "spot", "commit-1y", "commit-3y")
# Decimal places each number keeps in the database. A catalog row with more is refused by line rather than
# rounded on the way in, so a reload of an unchanged file compares equal and changes nothing.
PRICE_DECIMAL_PLACES = 10
MEMORY_DECIMAL_PLACES = 2
POWER_DECIMAL_PLACES = 1
GRID_DECIMAL_PLACES = 2
PUE_DECIMAL_PLACES = 3
SLUG = re.compile(r"^[a-z0-9][a-z0-9-]*$")
Row = TypeVar("Row")


@dataclass(frozen=True)
class CatalogProblem:
    line: int
    field: str | None
    message: str

    def __str__(self) -> str:
        where = f"line {self.line}" + (f", {self.field}" if self.field else "")
        return f"{where}: {self.message}"


class CatalogError(ValueError):
    def __init__(self, problems: list[CatalogProblem]):
        super().__init__("; ".join(str(problem) for problem in problems))
        self.problems = problems


@dataclass(frozen=True)
class PriceRow:
    line: int
    provider: str
    instance: str
    accelerator: str
    accelerator_count: int
    vcpus: int
    memory_gib: Decimal
    region: str
    pricing_model: str
    usd_per_hour: Decimal
    valid_from: datetime.date
    source_url: str
    note: str

    @property
    def quote_key(self) -> tuple[str, str, str, str, datetime.date]:
        return (self.provider, self.instance, self.region, self.pricing_model, self.valid_from)

    @property
    def instance_shape(self) -> tuple[str, int, int, Decimal]:
        return (self.accelerator, self.accelerator_count, self.vcpus, self.memory_gib)


@dataclass(frozen=True)
class AcceleratorRow:
    line: int
    accelerator: str
    board_power_watts: Decimal
    source_url: str
    note: str


@dataclass(frozen=True)
class GridRow:
    line: int
    provider: str
    region: str
    grams_co2e_per_kwh: Decimal
    pue: Decimal | None
    source_url: str
    note: str


def parse_prices(text: str) -> list[PriceRow]:
    """Every row of a price catalog, or CatalogError naming each bad line."""

    def price_row(line: int, cells: _Fields) -> PriceRow:
        return PriceRow(
            line=line,
            provider=cells.slug("provider"),
            instance=cells.text("instance"),
            accelerator=cells.text("accelerator", required=False),
            accelerator_count=cells.whole("accelerator_count"),
            vcpus=cells.whole("vcpus"),
            memory_gib=cells.number("memory_gib", places=MEMORY_DECIMAL_PLACES),
            region=cells.text("region"),
            pricing_model=cells.choice("pricing_model", PRICING_MODELS),
            usd_per_hour=cells.number("usd_per_hour", positive=True, places=PRICE_DECIMAL_PLACES),
            valid_from=cells.date("valid_from"),
            source_url=cells.url("source_url"),
            note=cells.text("note", required=False),
        )

    return _parse(text, PRICE_COLUMNS, price_row, check=_check_consistency)


def parse_accelerators(text: str) -> list[AcceleratorRow]:
    def accelerator_row(line: int, cells: _Fields) -> AcceleratorRow:
        return AcceleratorRow(
            line=line,
            accelerator=cells.text("accelerator"),
            board_power_watts=cells.number("board_power_watts", positive=True, places=POWER_DECIMAL_PLACES),
            source_url=cells.url("source_url"),
            note=cells.text("note", required=False),
        )

    return _parse(text, ACCELERATOR_COLUMNS, accelerator_row)


def parse_grid(text: str) -> list[GridRow]:
    def grid_row(line: int, cells: _Fields) -> GridRow:
        return GridRow(
            line=line,
            provider=cells.slug("provider"),
            region=cells.text("region"),
            grams_co2e_per_kwh=cells.number("grams_co2e_per_kwh", places=GRID_DECIMAL_PLACES),
            pue=cells.number("pue", positive=True, places=PUE_DECIMAL_PLACES) if cells.record["pue"] else None,
            source_url=cells.url("source_url"),
            note=cells.text("note", required=False),
        )

    return _parse(text, GRID_COLUMNS, grid_row)


def _parse(text: str, columns: list[str], build: Callable[[int, _Fields], Row], check=None) -> list[Row]:
    """Build a row from every record; collect every problem; raise them all, or return the rows."""
    rows, problems = [], []
    for line, record in _records(text, columns, problems):
        cells = _Fields(line, record, problems)
        row = build(line, cells)
        if cells.ok:
            rows.append(row)
    if check is not None:
        check(rows, problems)
    if problems:
        raise CatalogError(problems)
    return rows


def _records(text: str, columns: list[str], problems: list[CatalogProblem]):
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    if reader.fieldnames is None or [name.strip() for name in reader.fieldnames] != columns:
        problems.append(CatalogProblem(1, None, f"the header must be exactly: {','.join(columns)}"))
        return
    for record in reader:
        line = reader.line_num
        if None in record or any(value is None for value in record.values()):
            problems.append(CatalogProblem(line, None, f"expected {len(columns)} cells"))
            continue
        yield line, {key.strip(): value.strip() for key, value in record.items()}


class _Fields:
    """Reads a record's cells, noting each bad one as a CatalogProblem."""

    def __init__(self, line: int, record: dict[str, str], problems: list[CatalogProblem]):
        self.line, self.record, self.problems, self.ok = line, record, problems, True

    def _bad(self, field: str, message: str):
        self.problems.append(CatalogProblem(self.line, field, message))
        self.ok = False

    def text(self, field: str, *, required: bool = True) -> str:
        value = self.record[field]
        if required and not value:
            self._bad(field, "is empty")
        return value

    def slug(self, field: str) -> str:
        value = self.record[field]
        if not SLUG.match(value):
            self._bad(field, f"'{value}' is not a lowercase slug (e.g. aws, gcp)")
        return value

    def choice(self, field: str, choices: tuple[str, ...]) -> str:
        value = self.record[field]
        if value not in choices:
            self._bad(field, f"'{value}' is not one of {', '.join(choices)}")
        return value

    def whole(self, field: str) -> int:
        value = self.record[field]
        if not value.isdigit():
            self._bad(field, f"'{value}' is not a whole number")
            return 0
        return int(value)

    def number(self, field: str, *, places: int, positive: bool = False) -> Decimal:
        value = self.record[field]
        try:
            number = Decimal(value)
            if not number.is_finite() or number < 0 or (positive and number == 0):
                raise InvalidOperation
        except InvalidOperation:
            self._bad(field, f"'{value}' is not a {'positive' if positive else 'non-negative'} number")
            return Decimal(0)
        if -number.as_tuple().exponent > places:
            self._bad(field, f"'{value}' has more than the {places} decimal places the catalog keeps")
        return number

    def date(self, field: str) -> datetime.date:
        value = self.record[field]
        try:
            if not re.match(r"^\d{4}-\d{2}-\d{2}$", value):
                raise ValueError
            return datetime.date.fromisoformat(value)
        except ValueError:
            self._bad(field, f"'{value}' is not a date written yyyy-mm-dd")
            return datetime.date.min

    def url(self, field: str) -> str:
        value = self.record[field]
        if not value.startswith(("https://", "http://")):
            self._bad(field, "must be the http(s) address of the public source")
        return value


def _check_consistency(rows: list[PriceRow], problems: list[CatalogProblem]) -> None:
    seen_quotes: dict[tuple, int] = {}
    shapes: dict[tuple[str, str], tuple[tuple, int]] = {}
    for row in rows:
        if row.quote_key in seen_quotes:
            problems.append(
                CatalogProblem(row.line, "valid_from", f"repeats the quote of line {seen_quotes[row.quote_key]}")
            )
        seen_quotes.setdefault(row.quote_key, row.line)
        shape, first_line = shapes.setdefault((row.provider, row.instance), (row.instance_shape, row.line))
        if shape != row.instance_shape:
            problems.append(
                CatalogProblem(row.line, "instance", f"describes {row.instance} differently from line {first_line}")
            )
