"""Reads about items' facts: which key entries are due for a re-check against their sources."""

import datetime

from django.db.models import F, Q
from django.utils import timezone

from ..models import Item, Team


def recheck_cutoff(*, team: Team, today: datetime.date | None = None) -> datetime.date:
    """Sources checked before this day are due for a re-check."""
    today = today or timezone.localdate()
    return today - datetime.timedelta(days=team.recheck_after_days)


def items_due_for_recheck(*, team: Team, today: datetime.date | None = None) -> list[Item]:
    """Items in use whose key entry has sources never checked, or checked before the cutoff;
    the never-checked first, then the oldest check first."""
    cutoff = recheck_cutoff(team=team, today=today)
    items = (
        Item.objects.filter(block__bank__team=team, retired=False, key_entry__isnull=False)
        .filter(
            Q(key_entry__sources_checked__lt=cutoff)
            | (Q(key_entry__sources_checked__isnull=True) & ~Q(key_entry__sources=[]))
        )
        .select_related("block__bank", "key_entry")
        .order_by(
            F("key_entry__sources_checked").asc(nulls_first=True),
            "block__bank__name",
            "block__order",
            "order",
            "pk",
        )
    )
    return list(items)
