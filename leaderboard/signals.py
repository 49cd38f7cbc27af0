"""A saved or deleted entry, task version or hardware match retires its task's cached pages; a price quote
retires every page (costs show everywhere).

Only the page cache's generations move here; every write of the domain is an explicit service call.
"""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from leaderboard.models import Entry, HardwareMatch, TaskVersion
from leaderboard.page_cache import site_board_changed, task_boards_changed
from pricing.models import PriceQuote


@receiver([post_save, post_delete], sender=Entry)
@receiver([post_save, post_delete], sender=TaskVersion)
def task_board_changed(sender, instance, **kwargs) -> None:
    task_boards_changed(instance.task_id)


@receiver([post_save, post_delete], sender=HardwareMatch)
def entry_match_changed(sender, instance, **kwargs) -> None:
    task_boards_changed(instance.entry.task_id)  # the judging sets the entry it matches: no query


@receiver([post_save, post_delete], sender=PriceQuote)
def site_changed(sender, **kwargs) -> None:
    site_board_changed()
