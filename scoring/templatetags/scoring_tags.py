"""Template helpers for the scoring pages."""

from django import template

from probe.sheetparser import issue_label as _issue_label

register = template.Library()


@register.filter
def get_item(mapping, key):
    return mapping.get(key, key) if mapping else key


@register.filter
def issue_label(code: str) -> str:
    return _issue_label(code)
