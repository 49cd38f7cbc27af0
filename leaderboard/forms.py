"""Query-string forms of the public pages: they turn GET parameters into a selector's arguments.

Each page reads only its form's parameters; `QueryForm.canonical_query` gives them sorted and as parsed,
which is what the page is rendered from and cached under (leaderboard/page_cache.py).
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from urllib.parse import urlencode

from django import forms
from django.http import QueryDict

from dawnboard.metrics import LEADERBOARD_METRICS, TRAINING_TIME
from dawnboard.verification import Evaluated, verification_levels_asked
from leaderboard.selectors import COST_AT, LATENCY_STATS, MEAN_LATENCY, SINGLE_STREAM_COST, SORTABLE_COLUMNS, BoardView

ASCII_DIGITS = re.compile(r"[0-9]+")
# Ids are bigints: a number past this names nothing, and PostgreSQL refuses to compare with it.
LARGEST_ID = 2**63 - 1


def whole_number(text: str | None, *, maximum: int, minimum: int = 1) -> int | None:
    """`text` as a whole number from `minimum` to `maximum`, or None.

    ASCII digits only: `str.isdigit()` also accepts '²' (which `int()` refuses) and `int()` also reads
    other scripts' digits and surrounding spaces; the length check keeps `int()` off a 5000-digit string.
    """
    if text is None or not ASCII_DIGITS.fullmatch(text):
        return None
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(maximum)):
        return None
    number = int(digits)
    return number if minimum <= number <= maximum else None


class QueryForm(forms.Form):
    """A page's query string as a form: the parameters the page reads, each parsed by its field."""

    def canonical_query(self) -> tuple[QueryDict, bool]:
        """This form's parameters only, sorted, each value as its field parsed it; and whether all parsed.

        When one did not parse, the values are kept as given (the page says what it did not understand).
        """
        valid = self.is_valid()
        pairs = []
        for name in sorted(self.fields):
            value = self.cleaned_data.get(name) if valid else self.data.get(name)
            if value not in (None, ""):
                pairs.append((name, value.isoformat() if isinstance(value, datetime.date) else str(value)))
        return QueryDict(urlencode(pairs)), valid


class BoardForm(QueryForm):
    metric = forms.ChoiceField(choices=[(slug, m.label) for slug, m in LEADERBOARD_METRICS.items()], required=False)
    framework = forms.CharField(required=False, max_length=100)
    hardware = forms.CharField(required=False, max_length=100)
    date_from = forms.DateField(required=False, label="From")
    date_to = forms.DateField(required=False, label="To")
    as_of = forms.DateField(required=False, label="As of")
    sort = forms.ChoiceField(choices=[(column, column) for column in SORTABLE_COLUMNS], required=False)
    order = forms.ChoiceField(choices=[("asc", "ascending"), ("desc", "descending")], required=False)
    version = forms.CharField(required=False, max_length=20)
    latency_stat = forms.ChoiceField(
        choices=[(slug, stat.label) for slug, stat in LATENCY_STATS.items()], required=False
    )
    cost_at = forms.ChoiceField(choices=[(slug, cost.label) for slug, cost in COST_AT.items()], required=False)
    verification = forms.CharField(required=False, max_length=200)
    evaluated = forms.ChoiceField(choices=[(kind.value, kind.value) for kind in Evaluated], required=False)

    def clean_verification(self) -> str:
        """One level or several, comma-separated (dawnboard.verification), kept as given in the canonical order."""
        value = self.cleaned_data["verification"]
        if not value:
            return ""
        try:
            return ",".join(verification_levels_asked(value))
        except ValueError as error:
            raise forms.ValidationError(str(error), code="invalid_verification") from None

    def board_view(self) -> BoardView:
        """The view asked for; fields that did not validate fall back to their defaults."""
        self.is_valid()
        data = {name: value for name, value in getattr(self, "cleaned_data", {}).items() if value not in (None, "")}
        return BoardView(
            metric=data.get("metric", TRAINING_TIME.slug),
            framework=data.get("framework", ""),
            hardware=data.get("hardware", ""),
            date_from=data.get("date_from"),
            date_to=data.get("date_to"),
            as_of=data.get("as_of"),
            sort=data.get("sort", "rank"),
            descending=data.get("order") == "desc",
            latency_stat=data.get("latency_stat", MEAN_LATENCY.slug),
            version=data.get("version", ""),
            cost_at=data.get("cost_at", SINGLE_STREAM_COST.slug),
            verification=tuple(data["verification"].split(",")) if data.get("verification") else (),
            evaluated=data.get("evaluated", ""),
        )


class TaskPageForm(BoardForm):
    """The task page's query: the board's view and the page of it."""

    page = forms.CharField(required=False)

    def clean_page(self) -> int | None:
        page = self.cleaned_data["page"]
        if page == "":
            return None
        number = whole_number(page, maximum=LARGEST_ID)
        if number is None:
            raise forms.ValidationError("Page numbers are whole numbers from 1.", code="invalid_page")
        return number

    def page_number(self) -> int:
        self.is_valid()
        return getattr(self, "cleaned_data", {}).get("page") or 1


class AsOfForm(QueryForm):
    as_of = forms.DateField(required=False, label="As of")

    def as_of_date(self):
        return self.cleaned_data.get("as_of") if self.is_valid() else None


@dataclass(frozen=True)
class ComparedIds:
    """The entry ids a compare query names, at most `CompareForm.MAX_ENTRIES`, and what it named that is no id."""

    ids: list[int]
    problems: list[tuple[str, str]]  # (code, a sentence naming the value): the page says each one


class CompareForm(QueryForm):
    """The compare page's query: `?ids=1&ids=2`, as the boards' checkboxes send it, or `?entries=1,2`, as
    older links have it. Either may hold commas; both together are one list."""

    MAX_ENTRIES = 8
    SHOWN_CHARACTERS = 20  # of a value that is no id, in the sentence naming it
    ids = forms.CharField(required=False)
    entries = forms.CharField(required=False, help_text="Entry ids, comma-separated.")

    def given(self) -> list[str]:
        """Every value given, as written less surrounding spaces, each once, in the order given."""
        values = []
        for name in ("ids", "entries"):
            raw = self.data.getlist(name) if isinstance(self.data, QueryDict) else [self.data.get(name)]
            values += [part.strip() for value in raw if isinstance(value, str) for part in value.split(",")]
        return list(dict.fromkeys(value for value in values if value))

    def compared(self) -> ComparedIds:
        ids, problems = [], []
        for value in self.given():
            number = whole_number(value, maximum=LARGEST_ID)
            if number is None:
                shown = value if len(value) <= self.SHOWN_CHARACTERS else value[: self.SHOWN_CHARACTERS] + "…"
                problems.append(("not_an_id", f"{shown!r} is not an entry id"))
            elif number not in ids:
                ids.append(number)
        if len(ids) > self.MAX_ENTRIES:
            problems.append(
                ("too_many", f"{len(ids)} entries were named: only the first {self.MAX_ENTRIES} are compared")
            )
        return ComparedIds(ids=ids[: self.MAX_ENTRIES], problems=problems)

    def canonical_query(self) -> tuple[QueryDict, bool]:
        """The ids as numbers, under `ids`; with a problem, every value as given, so the page can name it."""
        compared = self.compared()
        values = compared.ids if not compared.problems else self.given()
        return QueryDict(urlencode([("ids", value) for value in values])), not compared.problems
