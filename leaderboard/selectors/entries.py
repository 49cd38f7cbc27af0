"""Reads of entries: one with all it shows, lists without their submitted documents, its costs and measured latency,
its files, its reproductions, and who may read its author's e-mail."""

from __future__ import annotations

import datetime
import hashlib
import math
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import OuterRef, Prefetch, QuerySet, Subquery

from dawnboard.documents import published
from dawnboard.recipes import recipes_reproducing
from dawnboard.rules import Track
from dawnboard.scoring import shortest_decimal
from leaderboard.models import Entry, HardwareMatch, Run, Submission, SubmittedFile, Submitter
from pricing.domain.cost import ModelPrice, PolicyCost
from pricing.selectors import (
    EarlierPrice,
    PricedRun,
    QuoteBook,
    earlier_price_reproducing,
    model_prices,
    price_warning,
    run_costs,
    run_footprint,
)

# An entry's JSON as submitted: up to the entry size cap each. Only an entry's own page and API detail show
# them; a list or a board that loads them pays for the largest entry on every row (a 47 MB one made the
# entries list take 20 s).
BIG_ENTRY_COLUMNS = ("misc", "claimed", "extra_fields")


# Who submitted an entry, read with it: the account's name (None for an import) and how it came (Submission.Source).
# Subqueries rather than joins: a page of the API's list reads them for its rows alone, and its count (which drops
# an annotation nothing filters on) reads the entries' index alone, not 100,000 submissions (250 ms to 20 ms).
SUBMITTED_BY = {
    "submitter_name": Subquery(Submission.objects.filter(id=OuterRef("submission_id")).values("submitter__name")[:1]),
    "submission_source": Subquery(Submission.objects.filter(id=OuterRef("submission_id")).values("source")[:1]),
}


def entries_list() -> QuerySet[Entry]:
    """Accepted entries, newest first, without the JSON documents they were submitted as, each with the account
    that submitted it (`submitter_name`, None for an import) and how (`submission_source`)."""
    entries = Entry.objects.accepted().defer(*BIG_ENTRY_COLUMNS).select_related("task", "task_version")
    return entries.annotate(**SUBMITTED_BY).order_by("-date", "-id")


def entry_detail(*, entry_id: int) -> Entry:
    """One entry, whatever its status, with all it shows: its own documents, but not its files' contents, nor
    the documents of the entry it reproduces; and, as `entries_list` gives them, its submitter and source."""
    return (
        Entry.objects.select_related(
            "task", "task_version__task", "submission", "reproduces", "hardware_match__instance__provider"
        )
        .annotate(**SUBMITTED_BY)
        .defer(*(f"reproduces__{column}" for column in BIG_ENTRY_COLUMNS))
        .prefetch_related(
            Prefetch("runs", queryset=Run.objects.prefetch_related("curve")),
            Prefetch("submission__files", queryset=SubmittedFile.objects.defer("content")),
        )
        .get(id=entry_id)
    )


def author_email_visible(*, entry: Entry, user) -> bool:
    """Whether `user` may read the entry's author e-mail: staff, and the submitter whose submission it is."""
    if user is None or not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    submitter_id = entry.submission.submitter_id
    return submitter_id is not None and Submitter.objects.filter(id=submitter_id, user_id=user.id).exists()


def entry_reproductions(entry: Entry) -> list[Entry]:
    """The accepted reference runs that reproduce this entry, earliest first."""
    runs = entry.reproductions.accepted().defer(*BIG_ENTRY_COLUMNS).select_related("submission")
    return list(runs.order_by("created_at", "id"))


def reproduction_commands(entry: Entry) -> list[str]:
    """The `run_reference` commands whose recipe reproduces this seed entry (by its DAWNBench file stem)."""
    if not entry.is_training or not entry.source_name:
        return []
    return [recipe.command for recipe in recipes_reproducing(entry.task.slug, entry.source_name)]


def entries_for_comparison(*, entry_ids: list[int]) -> list[Entry]:
    """The accepted entries named, in the order named, each with its curve."""
    found = Entry.objects.accepted().filter(id__in=entry_ids).defer(*BIG_ENTRY_COLUMNS)
    found = found.select_related("task", "task_version")
    by_id = {
        entry.id: entry
        for entry in found.prefetch_related(Prefetch("runs", queryset=Run.objects.prefetch_related("curve")))
    }
    return [by_id[entry_id] for entry_id in entry_ids if entry_id in by_id]


@dataclass(frozen=True)
class ShownFile:
    """An entry's file as one reader is given it.

    The log as uploaded. The entry JSON as uploaded to staff and its submitter; to everyone else as published
    (`as_published`): without its private fields, written afresh, so that nothing shown of it, its digest and
    size included, is a function of the author's address (a digest of the upload would confirm a guessed one).
    """

    role: str  # entry, log (the first run's), log-2, log-3 ... (each further run's): its download's name
    name: str
    sha256: str
    size_bytes: int
    as_published: bool
    content: bytes | None = None  # read only to be downloaded


def file_role(stored: SubmittedFile) -> str:
    """The name a file is downloaded by: `entry`, `log` for the first run's log, `log-N` for run N after it."""
    if stored.role == SubmittedFile.Role.LOG and stored.position:
        return f"log-{stored.position + 1}"
    return stored.role


def _role_and_position(role: str) -> tuple[str, int] | None:
    """`entry` -> (entry, 0); `log` and `log-1` -> (log, 0); `log-N` -> (log, N - 1); anything else None."""
    if role in SubmittedFile.Role.values:
        return role, 0
    name, _, number = role.partition("-")
    if name == SubmittedFile.Role.LOG and number.isascii() and number.isdigit() and 1 <= int(number) <= 1000:
        return name, int(number) - 1
    return None


def entry_files_shown(entry: Entry, *, original: bool) -> list[ShownFile]:
    """An entry's files, their contents left unread but the published entry's; the entry JSON as uploaded when
    `original` (the reader may read the author's address: `author_email_visible`), else as published."""
    return [_shown(file, entry=entry, original=original, content=False) for file in entry.submission.files.all()]


def entry_file_shown(*, entry_id: int, role: str, user) -> ShownFile:
    """An accepted entry's file, contents and all, as `user` may download it; a role that is no role (a NUL,
    say) is never queried. Raises SubmittedFile.DoesNotExist."""
    named = _role_and_position(role)
    if named is None:
        raise SubmittedFile.DoesNotExist(f"No file has the role {role!r}.")
    stored = SubmittedFile.objects.select_related("submission__entry").get(
        submission__entry__id=entry_id,
        submission__entry__status=Entry.Status.ACCEPTED,
        role=named[0],
        position=named[1],
    )
    entry = stored.submission.entry
    return _shown(stored, entry=entry, original=author_email_visible(entry=entry, user=user), content=True)


def published_entry_bytes(claimed: dict) -> bytes:
    """The entry JSON as published: its document less the private fields, written by the format's writer."""
    from dawnboard.formats.dawnbench import write_entry  # with the log reader, pandas: not for every read command

    return write_entry(published(claimed))


def _shown(stored: SubmittedFile, *, entry: Entry, original: bool, content: bool) -> ShownFile:
    # An MLPerf set's entry file is its system JSON, which holds nothing private: shown as uploaded.
    if stored.role == SubmittedFile.Role.ENTRY and not original and not entry.submission.version:
        published = published_entry_bytes(entry.claimed)
        return ShownFile(
            role=stored.role,
            name=stored.name,
            sha256=hashlib.sha256(published).hexdigest(),
            size_bytes=len(published),
            as_published=True,
            content=published,
        )
    return ShownFile(
        role=file_role(stored),
        name=stored.name,
        sha256=stored.sha256,
        size_bytes=stored.size_bytes,
        as_published=False,
        content=bytes(stored.content) if content else None,
    )


@dataclass(frozen=True)
class EntryAccounting:
    """What an entry cost under every price policy, how its claimed price compares, its energy and carbon."""

    costs: list[PolicyCost]
    price_warning: str | None
    footprint: dict | None
    match: HardwareMatch | None
    model_prices: list[ModelPrice]  # the machine on the entry's date under each pricing model
    earlier_price: EarlierPrice | None  # a model giving the entry's price before its date, when none does on it


def entry_match(entry: Entry) -> HardwareMatch | None:
    try:
        return entry.hardware_match
    except HardwareMatch.DoesNotExist:
        return None


def entry_priced_run(entry: Entry) -> PricedRun:
    """The entry as pricing sees it: its figures, its date, and the catalog instance it ran on."""
    return priced_run(entry, claimed_usd_per_item=entry.claimed.get("cost") if not entry.is_training else None)


def priced_run(entry: Entry, *, claimed_usd_per_item: float | None) -> PricedRun:
    """`entry_priced_run` without reading the entry's `claimed` document, for boards that leave it unloaded."""
    match = entry_match(entry)
    return PricedRun(
        track=Track(entry.track),
        date=entry.date,
        seconds=_exact(entry.time_to_accuracy_seconds),
        latency_ms=_exact(entry.latency_ms),
        claimed_usd_per_hour=entry.cost_per_hour_usd,
        claimed_usd_per_item=claimed_usd_per_item,
        as_submitted_usd=entry.training_cost_usd if entry.is_training else entry.inference_cost_usd_per_10k,
        instance=match.instance if match else None,
        instance_count=match.instance_count if match else 1,
        unpriced_reason=match.reason if match else "the hardware has not been matched to the catalog",
        parts=tuple((instance_id, count) for instance_id, count in match.parts) if match else (),
    )


def entry_accounting(entry: Entry, *, today: datetime.date | None = None) -> EntryAccounting:
    run = entry_priced_run(entry)
    book = QuoteBook(run.instance_ids)  # one read of the quotes for all three
    footprint = run_footprint(run, book=book)
    return EntryAccounting(
        costs=run_costs(run, today=today, book=book),
        price_warning=price_warning(run, book=book),
        footprint=None if footprint is None else {"entry_id": entry.id, **footprint},
        match=entry_match(entry),
        model_prices=model_prices(run, book=book),
        earlier_price=earlier_price_reproducing(run, book=book),
    )


LATENCY_PERCENTILES = ("p50", "p90", "p99", "max")


def entry_latency_percentiles(entry: Entry) -> dict[str, float | None] | None:
    """The latency percentiles (ms) the inference harness measured, by name; None for an entry it did not measure."""
    percentiles = {name: getattr(entry, f"latency_{name}_ms") for name in LATENCY_PERCENTILES}
    return None if all(value is None for value in percentiles.values()) else percentiles


@dataclass(frozen=True)
class LatencyDistribution:
    """How a measured inference entry's latency was spread: the ranked figures, the run, its histogram."""

    mean_ms: float | None
    percentiles_ms: dict[str, float | None]
    items: int | None
    backend: str
    threads: int | None
    model_sha256: str
    histogram_edges_ms: list[float]  # one more than the counts; empty when the record has no usable histogram
    histogram_counts: list[int]
    loadgen: LoadGenAccount | None = None

    @property
    def histogram_bins(self) -> list[tuple[float, float, int]]:
        """(from ms, to ms, items) per bin, for the table beside the chart."""
        edges = self.histogram_edges_ms
        return list(zip(edges, edges[1:], self.histogram_counts, strict=False))


@dataclass(frozen=True)
class LoadGenAccount:
    """The MLPerf LoadGen test of a measured entry, as its run record keeps it: the scenario, LoadGen's verdict
    and figures, the settings' profile, and its logs' sha256 (the summary's text kept whole)."""

    scenario: str
    valid: bool
    profile: str
    query_count: int | None
    p90_ms: float | None
    early_stopping_p90_ms: float | None
    samples_per_second: float | None
    batch_size: int | None
    queries_per_second: float | None
    latency_bound_ms: float | None
    rates_tried: int
    summary_sha256: str
    detail_sha256: str
    summary_text: str
    version: str


def entry_loadgen_account(record: dict) -> LoadGenAccount | None:
    """What a measured entry's run record says of its LoadGen test; None where it has none (measured before
    LoadGen drove the harness). Every value is checked for its type: a record is JSON a submitter's tool wrote."""
    loadgen = record.get("loadgen")
    if not isinstance(loadgen, dict) or not isinstance(loadgen.get("settings"), dict):
        return None
    settings, latency = loadgen["settings"], loadgen.get("latency_ms")
    latency = latency if isinstance(latency, dict) else {}
    return LoadGenAccount(
        scenario=_text(loadgen.get("scenario")),
        valid=loadgen.get("valid") is True,
        profile=_text(settings.get("profile")),
        query_count=_count(loadgen.get("query_count")),
        p90_ms=_figure(latency.get("p90")),
        early_stopping_p90_ms=_figure(loadgen.get("early_stopping_p90_ms")),
        samples_per_second=_figure(loadgen.get("samples_per_second")),
        batch_size=_count(settings.get("batch_size")),
        queries_per_second=_figure(record.get("queries_per_second")),
        latency_bound_ms=_figure(settings.get("latency_bound_ms")),
        rates_tried=len(loadgen["server_tries"]) if isinstance(loadgen.get("server_tries"), list) else 0,
        summary_sha256=_text(loadgen.get("summary_sha256")),
        detail_sha256=_text(loadgen.get("detail_sha256")),
        summary_text=_text(loadgen.get("summary_text")),
        version=_text(loadgen.get("version")),
    )


def _text(value) -> str:
    return value if isinstance(value, str) else ""


def _figure(value) -> float | None:
    plain = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if plain and math.isfinite(value) else None


def _count(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def entry_latency_distribution(entry: Entry) -> LatencyDistribution | None:
    """The distribution of a `measured` inference entry, from its stored figures and its run record.

    The mean and percentiles are the stored fields the boards rank by; the rest comes from the record.
    """
    record = entry.submission.run_record
    if entry.is_training or entry.submission.source != Submission.Source.MEASURED or not isinstance(record, dict):
        return None
    histogram = record.get("histogram") if isinstance(record.get("histogram"), dict) else {}
    edges = _numbers(histogram.get("edges_ms"))
    counts = _numbers(histogram.get("counts"))
    if edges is None or counts is None or len(edges) != len(counts) + 1:
        edges, counts = [], []
    backend = " ".join(str(record[key]) for key in ("backend", "backend_version") if record.get(key))
    return LatencyDistribution(
        mean_ms=entry.latency_ms,
        percentiles_ms=entry_latency_percentiles(entry) or dict.fromkeys(LATENCY_PERCENTILES),
        items=record.get("items"),
        backend=backend,
        threads=record.get("threads"),
        model_sha256=str(record.get("model_sha256") or ""),
        histogram_edges_ms=[float(edge) for edge in edges],
        histogram_counts=[int(count) for count in counts],
        loadgen=entry_loadgen_account(record),
    )


def _numbers(values) -> list | None:
    if not isinstance(values, list) or not values:
        return None
    plain = all(isinstance(value, int | float) and not isinstance(value, bool) for value in values)
    return values if plain else None


def _exact(value: float | None) -> Decimal | None:
    return None if value is None else shortest_decimal(value)
