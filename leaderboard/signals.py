"""Any saved or deleted entry, task version, hardware match or price quote retires the cached pages.

Only the page cache's generation moves here; every write of the domain is an explicit service call.
"""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from leaderboard.models import Entry, HardwareMatch, TaskVersion
from leaderboard.page_cache import board_generation_bump
from pricing.models import PriceQuote


@receiver([post_save, post_delete], sender=Entry)
@receiver([post_save, post_delete], sender=TaskVersion)
@receiver([post_save, post_delete], sender=HardwareMatch)
@receiver([post_save, post_delete], sender=PriceQuote)
def board_changed(sender, **kwargs) -> None:
    board_generation_bump()
