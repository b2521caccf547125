"""Small template helpers."""

from django import template

register = template.Library()


@register.filter
def get(mapping, key):
    """{{ numbers|get:item.pk }}: a dictionary lookup by a variable key."""
    if mapping is None:
        return ""
    return mapping.get(key, "")
