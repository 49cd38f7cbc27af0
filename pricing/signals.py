"""What the catalog announces to the apps that price with it, without knowing them (pricing imports nothing from
the leaderboard): the leaderboard connects a receiver that prices its boards again."""

from django.dispatch import Signal

# Sent once per write of the catalog (a price file loaded, a quote saved or deleted by staff), inside its
# transaction, with `instance_ids`: the catalog instances whose quotes changed.
prices_changed = Signal()
