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
# A price quoted in another currency, or by the month: the figure as quoted, and the exchange rate used with its
# source. Then `usd_per_hour` is left empty and worked out (`quoted_usd_per_hour`). Optional: a catalog may end
# at `note`.
QUOTE_COLUMNS = [
    "currency",
    "quoted_price",
    "quoted_per",
    "currency_per_usd",
    "usd_per_currency",
    "exchange_rate_source",
]
QUOTED_PER = ("hour", "month")
HOURS_PER_MONTH = Decimal(720)  # a monthly subscription spread over 30 days of 24 hours
ACCELERATOR_COLUMNS = ["accelerator", "board_power_watts", "source_url", "note"]
GRID_COLUMNS = ["provider", "region", "grams_co2e_per_kwh", "pue", "source_url", "note"]
PRICING_MODELS = ("on-demand", "spot", "commit-1y", "commit-3y", "monthly")
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
    quote: Quote | None = None  # the price as quoted, when not in USD per hour

    @property
    def quote_key(self) -> tuple[str, str, str, str, datetime.date]:
        return (self.provider, self.instance, self.region, self.pricing_model, self.valid_from)

    @property
    def instance_shape(self) -> tuple[str, int, int, Decimal]:
        return (self.accelerator, self.accelerator_count, self.vcpus, self.memory_gib)


@dataclass(frozen=True)
class Quote:
    """A price as its source quotes it: an amount of a currency per hour or per month, and (for a currency other
    than USD) the exchange rate used, either way round as its source states it (units of the currency a USD
    bought, or USD a unit bought), with where that rate comes from."""

    currency: str
    amount: Decimal
    per: str
    currency_per_usd: Decimal | None
    exchange_rate_source: str
    usd_per_currency: Decimal | None = None

    @property
    def usd_per_hour(self) -> Decimal:
        """The quote in USD per hour, to the catalog's PRICE_DECIMAL_PLACES: amount at the rate, / hours."""
        if self.currency == "USD":
            usd = self.amount
        elif self.usd_per_currency is not None:
            usd = self.amount * self.usd_per_currency
        else:
            usd = self.amount / self.currency_per_usd
        hours = HOURS_PER_MONTH if self.per == "month" else Decimal(1)
        return (usd / hours).quantize(Decimal(1).scaleb(-PRICE_DECIMAL_PLACES))

    @property
    def text(self) -> str:
        if self.currency == "USD":
            rate = ""
        elif self.usd_per_currency is not None:
            rate = f" at {self.usd_per_currency} USD per {self.currency}"
        else:
            rate = f" at {self.currency_per_usd} {self.currency} per USD"
        hours = f" / {HOURS_PER_MONTH} h" if self.per == "month" else ""
        return f"{self.amount} {self.currency} per {self.per}{rate}{hours}"


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
        quoted = any(cells.record.get(column) for column in QUOTE_COLUMNS)
        quote = _quote(cells) if quoted else None
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
            usd_per_hour=(
                (quote.usd_per_hour if quote is not None else Decimal(0))  # a bad quote is already a problem
                if quoted
                else cells.number("usd_per_hour", positive=True, places=PRICE_DECIMAL_PLACES)
            ),
            valid_from=cells.date("valid_from"),
            source_url=cells.url("source_url"),
            note=cells.text("note", required=False),
            quote=quote,
        )

    return _parse(text, [PRICE_COLUMNS, PRICE_COLUMNS + QUOTE_COLUMNS], price_row, check=_check_consistency)


def _quote(cells: _Fields) -> Quote | None:
    """The price as quoted, when the row gives one (a currency or a quote per month); None for USD per hour."""
    record = cells.record
    currency = record["currency"] or "USD"
    if not re.match(r"^[A-Z]{3}$", currency):
        cells._bad("currency", f"'{currency}' is not a three-letter currency code (e.g. CNY)")
    if record["usd_per_hour"]:
        cells._bad("usd_per_hour", "must be empty where the price is quoted: it is worked out from the quote")
    per = cells.choice("quoted_per", QUOTED_PER)
    amount = cells.number("quoted_price", positive=True, places=PRICE_DECIMAL_PLACES)
    rate = inverse = None
    rate_source = record["exchange_rate_source"]
    if currency != "USD":
        if bool(record["currency_per_usd"]) == bool(record["usd_per_currency"]):
            cells._bad("currency_per_usd", "give the exchange rate once: currency_per_usd or usd_per_currency")
        elif record["currency_per_usd"]:
            rate = cells.number("currency_per_usd", positive=True, places=PRICE_DECIMAL_PLACES)
        else:
            inverse = cells.number("usd_per_currency", positive=True, places=PRICE_DECIMAL_PLACES)
        if not rate_source:
            cells._bad("exchange_rate_source", "is empty: a converted price names where its exchange rate comes from")
    if not cells.ok:
        return None
    return Quote(
        currency=currency,
        amount=amount,
        per=per,
        currency_per_usd=rate,
        usd_per_currency=inverse,
        exchange_rate_source=rate_source,
    )


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


def _parse(text: str, columns, build: Callable[[int, _Fields], Row], check=None) -> list[Row]:
    """Build a row from every record; collect every problem; raise them all, or return the rows. `columns` is
    the header, or a list of the headers a file may have."""
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


def _records(text: str, columns, problems: list[CatalogProblem]):
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    headers = columns if isinstance(columns[0], list) else [columns]
    found = [name.strip() for name in reader.fieldnames or []]
    if found not in headers:
        problems.append(
            CatalogProblem(1, None, "the header must be exactly: " + " or ".join(",".join(h) for h in headers))
        )
        return
    columns = found
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
