"""Small template helpers."""

import re
import unicodedata

from django import template
from django.template.defaultfilters import linebreaksbr
from django.utils.formats import number_format
from django.utils.html import conditional_escape, escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from probe import wording
from probe.models import ModelConfig
from probe.provider_labels import finish_reason_label
from probe.provider_labels import provider_label as _provider_label
from probe.provider_messages import translate_message
from probe.services.configs import ERROR_TITLES

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
    return ERROR_TITLES.get(kind, "") if kind else ""


@register.filter
def provider_label(name):
    """{{ run.config_snapshot.provider|provider_label }}: the provider's name in the reader's
    language ("simulator" is never shown as it is stored)."""
    return _provider_label(name)


@register.filter
def finish_reason(reason):
    """{{ attempt.finish_reason|finish_reason }}: why the reply ended, in the reader's words."""
    return finish_reason_label(reason)


@register.filter
def effort_label(value):
    """{{ run.config_snapshot.reasoning_effort|effort_label }}: a stored effort in words."""
    return dict(ModelConfig.Effort.choices).get(value or "", value)


@register.filter
def provider_message(text):
    """{{ run.error_message|provider_message }}: a stored error message, with the sentences the
    app and its adapters write put in the user's language (the provider's own words stay)."""
    return translate_message(text)


# Characters that change how the text around them is displayed, or are not displayed at all:
# with them a model answer "924" can be made to look like "429", or two different answers
# like the same one. They are shown as visible marks (U+202E) instead.
BIDI_CONTROLS = {
    "\u061c",  # ARABIC LETTER MARK
    "\u200e",  # LEFT-TO-RIGHT MARK
    "\u200f",  # RIGHT-TO-LEFT MARK
    *map(chr, range(0x202A, 0x202F)),  # embeddings and overrides, POP DIRECTIONAL FORMATTING
    *map(chr, range(0x2066, 0x206A)),  # isolates, POP DIRECTIONAL ISOLATE
}
INVISIBLE = {
    "\u00ad",  # SOFT HYPHEN
    "\u034f",  # COMBINING GRAPHEME JOINER
    "\u180e",  # MONGOLIAN VOWEL SEPARATOR
    *map(chr, range(0x200B, 0x200E)),  # ZERO WIDTH SPACE, NON-JOINER, JOINER
    *map(chr, range(0x2060, 0x2065)),  # WORD JOINER, invisible operators
    "\ufeff",  # ZERO WIDTH NO-BREAK SPACE
    *map(chr, range(0xE0000, 0xE0080)),  # tag characters
}
HIDDEN = BIDI_CONTROLS | INVISIBLE
_HIDDEN_RE = re.compile("[" + "".join(re.escape(c) for c in sorted(HIDDEN)) + "]")


def _mark(match: re.Match) -> str:
    char = match.group(0)
    code = f"U+{ord(char):04X}"
    name = unicodedata.name(char, code)
    return f'<abbr class="hidden-char" title="{escape(name)}">{code}</abbr>'


# Bidi classes of right-to-left letters and Arabic digits: text holding one of them is set
# apart from the page around it.
RTL_CLASSES = {"R", "AL", "AN"}


def _needs_isolation(text: str) -> bool:
    if text.isascii():  # the usual answer: no right-to-left letter, no hidden character
        return False
    return any(c in HIDDEN or unicodedata.bidirectional(c) in RTL_CLASSES for c in text)


@register.filter(needs_autoescape=True)
def isolate(value, autoescape=True):
    """{{ response.answer|isolate }}: text from a model, a bank or a key, shown as it is.

    The text is escaped and every bidi control or invisible character in it is replaced by a
    visible mark; text that holds right-to-left letters or such characters is set in a <bdi>,
    so its direction cannot spill over the page around it (plain left-to-right text needs no
    wrapper and is left as it was). Chain |linebreaksbr after it for text with line breaks.
    """
    text = "" if value is None else str(value)
    escaped = conditional_escape(text) if autoescape else text
    if not _needs_isolation(text):
        return mark_safe(escaped) if autoescape else escaped
    return mark_safe(f'<bdi class="text">{_HIDDEN_RE.sub(_mark, escaped)}</bdi>')


# Text longer than this is folded: its first FOLD_HEAD characters, and "Show all" for the rest.
FOLD_AT = 1500
FOLD_HEAD = 400


@register.filter(needs_autoescape=True)
def fold(value, mode="", autoescape=True):
    """{{ response.answer|fold }} (or |fold:"br" to keep its line breaks): |isolate, with a very
    long text folded into a <details> whose summary shows its beginning and "Show all".

    A native <details>: opened from the keyboard (Enter or Space on the summary) or a click,
    with no script, offline, and under the strict CSP; Chromium lays out nothing of a closed
    one, so a page holding a 200,000-character answer stays quick. static/css/long-text.css
    wraps the text inside its card, unbroken or not, folded or not.
    """
    text = "" if value is None else str(value)

    def shown(part: str):
        out = isolate(part, autoescape=autoescape)
        return linebreaksbr(out, autoescape=autoescape) if mode == "br" else out

    if len(text) <= FOLD_AT:
        return shown(text)
    more = _("Show all (%(n)s characters)") % {"n": number_format(len(text), force_grouping=True)}
    return format_html(
        '<details class="long-text"><summary><span class="long-text-head">{}…</span> '
        '<span class="long-text-more">{}</span><span class="long-text-less">{}</span></summary>'
        '<div class="long-text-full">{}</div></details>',
        shown(text[:FOLD_HEAD]),
        more,
        _("Show less"),
        shown(text),
    )


@register.filter
def word_list(values) -> str:
    """Names as a list in running text: "a, b" in English, 「a、b」 in Japanese (the template's
    counterpart of probe.wording.word_list; never ``join:", "``)."""
    return wording.word_list(values)


@register.filter
def bracketed(value):
    """{{ thread.count|bracketed }}: the value in the language's brackets, "(3)" in English and
    「（3）」 in Japanese (a bracket typed around a value in a template stays half-width)."""
    # Translators: a value in brackets after other words: "(3)", 「（3）」.
    text = pgettext("in brackets", "(%(text)s)")
    return mark_safe(escape(text) % {"text": conditional_escape(value)})
