"""Small template helpers."""

from django import template

register = template.Library()


@register.filter
def get(mapping, key):
    """{{ numbers|get:item.pk }}: a dictionary lookup by a variable key."""
    if mapping is None:
        return ""
    return mapping.get(key, "")


@register.filter
def error_title(kind):
    """{{ attempt.error_kind|error_title }}: what went wrong, in the user's language (the stored
    message beside it is the provider's own, technical and in English)."""
    from probe.services.configs import ERROR_TITLES

    return ERROR_TITLES.get(kind, "") if kind else ""
