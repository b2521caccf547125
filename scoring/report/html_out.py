"""What the template engine writes for a value or a message, written directly.

The report's long tables and charts are written in Python (scoring.report.tables,
scoring.report.chart_svg) where a template loop would look up a few variables per cell over thousands
of cells. These helpers give the same output, character for character, as the template syntax
each names, so the pages read the same whichever writes them.
"""

from __future__ import annotations

from html import escape

from django.conf import settings
from django.utils.formats import localize
from django.utils.html import conditional_escape
from django.utils.safestring import SafeData

__all__ = ["out", "raw", "words"]


def out(value) -> str:
    """``{{ value }}``: localized (numbers as the locale writes them), then escaped."""
    if isinstance(value, str):
        return value if isinstance(value, SafeData) else escape(value)
    if type(value) is int and not settings.USE_THOUSAND_SEPARATOR:
        return str(value)  # what localize() writes for an int without grouping
    return conditional_escape(str(localize(value)))


def raw(value) -> str:
    """``{{ value }}`` inside ``{% localize off %}``: escaped text, numbers as str() writes them."""
    if isinstance(value, str):
        return conditional_escape(value)
    return str(value)


def words(translated: str) -> str:
    """``{% translate "message" %}`` of ``gettext("message")`` (the call stays where the message
    is, for the catalogue's extraction): escaped."""
    return conditional_escape(translated)
