"""A saved or deleted entry, task version or hardware match retires its task's cached pages; a price quote
retires every page (costs show everywhere).

Only the page cache's generations move here, and the entries' stored catalog costs follow two writes that no
leaderboard service makes: an entry saved after it was stored (judging withdraws one by saving its status, as
staff do in the admin), and the catalog changed (the pricing app announces it, knowing nothing of entries).
Every other write of the domain is an explicit service call.
"""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from leaderboard.models import Entry, HardwareMatch, Run, TaskVersion
from leaderboard.page_cache import site_board_changed, task_boards_changed
from pricing.models import PriceQuote
from pricing.signals import prices_changed


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


@receiver(post_save, sender=Entry)
def entry_costs_follow(sender, instance, created, update_fields=None, raw=False, **kwargs) -> None:
    """A withdrawn entry leaves the boards by a catalog price; one whose figures moved is priced again. A new
    entry is priced once matched (`hardware_match_entry`); a fixture loaded as it is, by `price_boards`."""
    # Imported here: the services package brings the log readers (pandas), which a read command never needs.
    from leaderboard.services.policy_costs import PRICED_FIELDS, entry_policy_costs_refresh

    if not (created or raw) and (update_fields is None or PRICED_FIELDS & set(update_fields)):
        entry_policy_costs_refresh(entry_ids=[instance.id])


@receiver(prices_changed)
def catalog_costs_follow(sender, instance_ids, **kwargs) -> None:
    from leaderboard.services.policy_costs import catalog_policy_costs_refresh  # as above: no pandas for a read

    catalog_policy_costs_refresh(instance_ids=instance_ids)


@receiver(post_save, sender=Entry)
def entry_runs_follow(sender, instance, created, update_fields=None, **kwargs) -> None:
    """A withdrawn entry's runs leave the board with it (their logs free to be sent again); restored, they return.
    However the status was saved: by judging (a replaced entry) or by staff in the admin."""
    if created or (update_fields is not None and "status" not in update_fields):
        return
    on_board = instance.status == Entry.Status.ACCEPTED
    Run.objects.filter(entry_id=instance.id).exclude(on_board=on_board).update(on_board=on_board)


@receiver(post_save, sender=Entry)
def entry_trust_follows(sender, instance, created, update_fields=None, raw=False, **kwargs) -> None:
    """A withdrawn or restored entry's bearing on others' trust follows it, however its status was saved (by judging,
    or by staff in the admin): the seed it reproduced, or its recipe's seeds, are judged again without it or with it
    (leaderboard.services.verification). A new entry is judged by the service that stores it."""
    from leaderboard.services.verification import entry_trust_refresh  # as above: no pandas for a read

    if not (created or raw) and (update_fields is None or "status" in update_fields):
        entry_trust_refresh(entry=instance)
