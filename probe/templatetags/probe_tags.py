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


@register.filter
def provider_message(text):
    """{{ run.error_message|provider_message }}: a stored error message, with the sentences the
    app and its adapters write put in the user's language (the provider's own words stay)."""
    from probe.provider_messages import translate_message

    return translate_message(text)
