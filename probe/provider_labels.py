"""A provider's name as a reader reads it: the label its adapter marks, in the reader's language.

Every page, and every download in the interface's language, shows a configuration's or a run's
provider through `provider_label` (in templates the `provider_label` filter), never the machine
name it is stored under (``simulator``, ``openai_chat``). The machine name stays in JSON, JSON
Lines, the API and the commands.
"""

from __future__ import annotations

from django.utils.translation import gettext, gettext_lazy

import adapters


def provider_label(name: str | None) -> str:
    """The label of provider `name` in the active language; a name this installation has no
    adapter for (a run made before one was removed) is shown as it was stored."""
    if not name:
        return ""
    try:
        label = adapters.PROVIDERS[name].label
    except KeyError:
        return name
    return gettext(label) if label else name


def provider_labels() -> dict[str, str]:
    """{machine name: label} of every provider, in the order a form offers them."""
    return {name: provider_label(name) for name in adapters.PROVIDERS}


_CUT = gettext_lazy("cut at the token limit")
_FILTERED = gettext_lazy("stopped by the provider's filter")
_FINISHED = gettext_lazy("finished")
# Why a reply ended, as each API writes it (OpenAI, Anthropic, Gemini), in the reader's words.
FINISH_REASONS = {
    "length": _CUT,
    "max_tokens": _CUT,
    "max_output_tokens": _CUT,
    "MAX_TOKENS": _CUT,
    "content_filter": _FILTERED,
    "refusal": _FILTERED,
    "SAFETY": _FILTERED,
    "RECITATION": _FILTERED,
    "BLOCKLIST": _FILTERED,
    "PROHIBITED_CONTENT": _FILTERED,
    "SPII": _FILTERED,
    "stop": _FINISHED,
    "STOP": _FINISHED,
    "end_turn": _FINISHED,
    "stop_sequence": _FINISHED,
    "completed": _FINISHED,
}


def finish_reason_label(reason: str | None) -> str:
    """Why a reply ended, in the active language; a reason no API above writes is shown as the
    provider wrote it (its own word, like the words of its errors)."""
    if not reason:
        return ""
    label = FINISH_REASONS.get(reason)
    return str(label) if label is not None else reason
