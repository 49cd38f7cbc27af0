"""Writes: entries priced under each catalog policy, stored for the boards by a catalog price (EntryCatalogCost).

A board by a catalog price is read along an index of these rows, so they are priced when what they depend on is
written, never when a board is read:

- an entry stored or matched again (`hardware_match_entry`, `hardware_match_all`; staff's edits in the admin);
- an entry withdrawn or otherwise saved (leaderboard.signals: judging withdraws an entry by saving it);
- the catalog changed: a price file loaded or a quote edited by staff (`pricing.signals.prices_changed`);
- "today" moved past the day a quote of an entry's machine starts or ends (`prices_hold_until`): Celery beat runs
  `entry_policy_costs_expire` every hour (`leaderboard.policy_costs_expire`), which prices those entries alone;
  a reader sees such a change at most an hour late. Without a broker (no beat), `manage.py price_boards --expired`
  does the same from cron.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Iterator

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from leaderboard.models import Entry, EntryCatalogCost, HardwareMatch
from leaderboard.selectors.boards import POLICY_COST_FIELDS
from leaderboard.selectors.entries import priced_run
from pricing.selectors import QuoteBook, costs_by_policy, prices_hold_until

POLICY_COSTS_EXPIRE_TASK = "leaderboard.policy_costs_expire"
PRICED_AT_ONCE = 2000  # entries read, priced and written per round trip
# What pricing an entry reads of it: never its submitted documents, and nothing a later column could add.
PRICED_COLUMNS = (
    "id",
    "task_version_id",
    "track",
    "status",
    "date",
    "accuracy",
    "verification",
    "time_to_accuracy_seconds",
    "latency_ms",
    "cost_per_hour_usd",
    "training_cost_usd",
    "inference_cost_usd_per_10k",
    "hardware_match__instance_count",
    "hardware_match__parts",
    "hardware_match__reason",
    "hardware_match__instance__name",
    "hardware_match__instance__provider__slug",
)
# The entry's fields a stored cost depends on: a save that writes none of them leaves its costs as they are.
PRICED_FIELDS = frozenset(
    {"status", "task_version", "track", "date", "accuracy", "time_to_accuracy_seconds", "latency_ms", "verification"}
)


def entry_policy_costs_refresh(*, entry_ids: Iterable[int] | None = None, today: datetime.date | None = None) -> int:
    """Price entries under each catalog policy and store their costs, in one transaction: those of `entry_ids`, or
    every entry. An entry that is not accepted, or matched to nothing in the catalog, loses its row.

    Returns how many entries were priced.
    """
    today = today or timezone.localdate()
    wanted = None if entry_ids is None else sorted(set(entry_ids))
    if wanted == []:
        return 0
    priceable = Entry.objects.accepted().filter(
        Q(hardware_match__instance__isnull=False) | (Q(hardware_match__isnull=False) & ~Q(hardware_match__parts=[]))
    )
    with transaction.atomic():
        if wanted is None:
            EntryCatalogCost.objects.exclude(entry_id__in=priceable.values("id")).delete()
            ids = list(priceable.order_by("id").values_list("id", flat=True))
        else:  # a few thousand ids per query: a price change can touch every entry of a board
            ids = []
            for batch in _batches(wanted):
                priced = list(priceable.filter(id__in=batch).order_by("id").values_list("id", flat=True))
                EntryCatalogCost.objects.filter(entry_id__in=set(batch) - set(priced)).delete()
                ids += priced
        for batch in _batches(ids):
            _store(batch, today=today)
    return len(ids)


def catalog_policy_costs_refresh(*, instance_ids: Iterable[int], today: datetime.date | None = None) -> int:
    """Price again the entries whose machine is, or holds, one of these catalog instances (their quotes changed)."""
    changed = set(instance_ids)
    matches = HardwareMatch.objects.filter(Q(instance_id__in=changed) | ~Q(parts=[])).values_list(
        "entry_id", "instance_id", "parts"
    )
    entry_ids = [
        entry_id
        for entry_id, instance_id, parts in matches
        if instance_id in changed or any(part_id in changed for part_id, _ in parts)
    ]
    return entry_policy_costs_refresh(entry_ids=entry_ids, today=today)


def entry_policy_costs_expire(*, today: datetime.date | None = None) -> int:
    """Price again the entries whose costs "today" may have moved since they were priced: a quote of their machine
    started or ended since (`prices_hold_until`). None, most days: one probe of an index."""
    today = today or timezone.localdate()
    expired = EntryCatalogCost.objects.filter(prices_hold_until__lte=today).values_list("entry_id", flat=True)
    return entry_policy_costs_refresh(entry_ids=list(expired), today=today)


def _store(entry_ids: list[int], *, today: datetime.date) -> None:
    entries = list(
        Entry.objects.filter(id__in=entry_ids)
        .select_related("hardware_match__instance__provider")
        .only(*PRICED_COLUMNS)
    )
    # The claimed cost per item only words the as-submitted arithmetic, which these costs are not.
    runs = {entry.id: priced_run(entry, claimed_usd_per_item=None) for entry in entries}
    book = QuoteBook(instance_id for run in runs.values() for instance_id in run.instance_ids)
    costs = costs_by_policy(runs, today=today, book=book)
    rows = [
        EntryCatalogCost(
            entry_id=entry.id,
            task_version_id=entry.task_version_id,
            track=entry.track,
            date=entry.date,
            accuracy=entry.accuracy,
            verification=entry.verification,
            **{field: costs[entry.id][policy] for policy, field in POLICY_COST_FIELDS.items()},
            priced_on=today,
            prices_hold_until=prices_hold_until(runs[entry.id], book=book, day=today),
        )
        for entry in entries
    ]
    # Written over whatever is there: a refresh of the same entry running beside this one waits, then overwrites.
    EntryCatalogCost.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["entry"],
        update_fields=[field.name for field in EntryCatalogCost._meta.concrete_fields if not field.primary_key],
    )


def _batches(ids: list[int]) -> Iterator[list[int]]:
    for start in range(0, len(ids), PRICED_AT_ONCE):
        yield ids[start : start + PRICED_AT_ONCE]
