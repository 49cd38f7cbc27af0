"""A newly accepted entry is matched to the price catalog in the same transaction; price changes retire cached pages."""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from leaderboard.models import Entry
from leaderboard.page_cache import board_generation_bump
from pricing.models import HardwareMatch, PriceQuote
from pricing.services import hardware_match_entry


@receiver(post_save, sender=Entry)
def entry_saved(sender, instance: Entry, created: bool, raw: bool = False, **kwargs) -> None:
    if created and not raw:
        hardware_match_entry(entry=instance)


@receiver([post_save, post_delete], sender=HardwareMatch)
@receiver([post_save, post_delete], sender=PriceQuote)
def prices_changed(sender, **kwargs) -> None:
    """Costs shown on cached pages depend on matches and quotes too."""
    board_generation_bump()
