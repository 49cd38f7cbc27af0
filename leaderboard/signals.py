"""Any saved or deleted entry or task version retires the cached pages (the board generation moves on)."""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from leaderboard.models import Entry, TaskVersion
from leaderboard.page_cache import board_generation_bump


@receiver([post_save, post_delete], sender=Entry)
@receiver([post_save, post_delete], sender=TaskVersion)
def board_changed(sender, **kwargs) -> None:
    board_generation_bump()
