"""Template helpers for the scoring pages."""

from django import template

from probe.sheetparser import issue_label as _issue_label
from scoring.queue import presets

register = template.Library()


@register.filter
def get_item(mapping, key):
    return mapping.get(key, key) if mapping else key


@register.filter
def issue_label(code: str) -> str:
    return _issue_label(code)


@register.filter
def own_progress(queue):
    """A queue item's progress without the answers set before the scorer began:
    ``{% with p=q|own_progress %}{{ p.0 }} / {{ p.1 }}, {{ p.2 }} %{% endwith %}``."""
    return presets.own_progress(queue.judged, queue.total, queue.preset)
