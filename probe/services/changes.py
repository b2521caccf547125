"""What the bank, block, item and key-entry writes share: the changed fields of an edit as the
audit log keeps them, and the order of blocks and items."""

import datetime

from django.db.models import Max

UNCHANGED = object()  # a keyword left out: the value stays as it is


def changed(instance, data: dict) -> dict:
    """Set the fields of ``data`` that differ; return them as ``{field: [old, new]}``."""
    changes = {}
    for field, value in data.items():
        old = getattr(instance, field)
        if old != value:
            changes[field] = [storable(old), storable(value)]
            setattr(instance, field, value)
    return changes


def storable(value):
    """A value as the audit log's JSON can hold it (a date as YYYY-MM-DD)."""
    return value.isoformat() if isinstance(value, datetime.date) else value


def next_order(qs) -> int:
    """The order after the last of ``qs``."""
    return (qs.aggregate(m=Max("order"))["m"] or 0) + 1


def swap_in_order(obj, siblings, direction: str) -> bool:
    """Move obj one place up or down among its ordered siblings; renumber so orders are unique."""
    ordered = list(siblings)
    index = next(i for i, o in enumerate(ordered) if o.pk == obj.pk)
    target = index - 1 if direction == "up" else index + 1
    if target < 0 or target >= len(ordered):
        return False
    ordered[index], ordered[target] = ordered[target], ordered[index]
    for position, sibling in enumerate(ordered, start=1):
        if sibling.order != position:
            sibling.order = position
            sibling.save(update_fields=["order"])
    return True
