"""Matching entries' hardware text to the price catalog, and reloading the catalog. A match that changes prices its
entry again for the boards by a catalog price (leaderboard.services.policy_costs)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from leaderboard.models import Entry, HardwareMatch
from leaderboard.page_cache import site_board_changed
from leaderboard.selectors import entry_match
from leaderboard.services.policy_costs import entry_policy_costs_refresh
from pricing.domain.resolver import KnownInstance, resolve_hardware
from pricing.models import InstanceType
from pricing.selectors import known_instances
from pricing.services import LoadSummary, prices_load


def hardware_match_entry(*, entry: Entry, known: list[KnownInstance] | None = None) -> bool:
    """Resolve an entry's hardware text against the catalog, unless staff set its match by hand, and price the
    entry for the boards by a catalog price when the match changed.

    Returns whether the stored match changed; an unchanged one is not written again.
    """
    with transaction.atomic():
        changed = _match(entry=entry, known=known)
        if changed:
            entry_policy_costs_refresh(entry_ids=[entry.id])
    return changed


def _match(*, entry: Entry, known: list[KnownInstance] | None) -> bool:
    existing = entry_match(entry)
    if existing is not None and existing.set_by_staff:
        return False
    resolution = resolve_hardware(entry.hardware, known if known is not None else known_instances())
    instance_id, parts = None, []
    if resolution.instance is not None:
        instance_id = InstanceType.objects.get(provider__slug=resolution.provider, name=resolution.instance).id
    for name, count in resolution.parts:
        parts.append([InstanceType.objects.get(provider__slug=resolution.provider, name=name).id, count])
    values = {
        "instance_id": instance_id,
        "instance_count": max(resolution.count, 1),
        "parts": parts,
        "reason": resolution.reason[:300],
    }
    if existing is not None and all(getattr(existing, name) == value for name, value in values.items()):
        return False
    HardwareMatch.objects.update_or_create(entry=entry, defaults=values)
    return True


@dataclass(frozen=True)
class MatchSummary:
    entries: int  # matched again
    changed: int  # of which the match is now another


def hardware_match_all() -> MatchSummary:
    """Match every entry again (after the catalog changed), and price those whose match changed, all at once."""
    known = known_instances()
    entries = list(Entry.objects.select_related("hardware_match").only("id", "hardware", "hardware_match"))
    with transaction.atomic():
        changed = [entry.id for entry in entries if _match(entry=entry, known=known)]
        entry_policy_costs_refresh(entry_ids=changed)
    return MatchSummary(entries=len(entries), changed=len(changed))


@dataclass(frozen=True)
class CatalogReload:
    prices: LoadSummary
    matches: MatchSummary

    @property
    def changed(self) -> bool:
        return self.prices.changed or bool(self.matches.changed)


def catalog_reload(*, text: str) -> CatalogReload:
    """Load a price catalog CSV, then match every entry against it again, all in one transaction.

    Raises:
        CatalogError: naming every bad line; nothing is written then.
    """
    with transaction.atomic():
        summary = prices_load(text=text)
        matches = hardware_match_all()
        if summary.changed:
            site_board_changed()  # quotes are written in bulk, past the signals: costs on cached pages move
    return CatalogReload(prices=summary, matches=matches)
