"""Stored error messages of providers and collection, shown in the reader's language.

A run's or attempt's error is stored as it was made, in English: by an adapter (plain Python, no
Django) or by the collection worker (which serves no request, so has no reader's language). When a
page shows one, `translate_message` finds the sentences it knows, by their English templates
below, and puts them in the active language, placeholders and all; whatever it does not know
(the provider's own words, a message reworded since) is kept as it is, never lost.

Each template must read exactly as the adapter or service writes it (tests/i18n checks them
against the real code paths); the gettext_noop marks put them in the catalogue.
"""

from __future__ import annotations

import re
from functools import lru_cache

from django.utils.translation import gettext, gettext_noop

# Whole messages, as adapters/base.py, adapters/errors.py and the adapters write them.
MESSAGES = (
    # What the collection service wraps around an adapter's message (probe/services/collection/).
    gettext_noop("Item %(n)s: %(message)s"),
    gettext_noop("Internal error while collecting: %(kind)s: %(error)s"),
    gettext_noop("%(provider)s: no base URL configured"),
    gettext_noop("%(provider)s: the base URL must start with http:// or https:// and name a host"),
    gettext_noop(
        "%(provider)s: the base URL must not carry a query string or credentials; API keys "
        "belong in an environment variable"
    ),
    gettext_noop(
        "%(provider)s: no API key was given; name the environment variable that holds it "
        "(usually %(hint)s) in the model configuration"
    ),
    gettext_noop(
        "%(provider)s: no API key was given; name the environment variable that holds it in "
        "the model configuration"
    ),
    gettext_noop("%(provider)s: %(timeout)s talking to %(host)s after %(ms)s ms"),
    gettext_noop("%(provider)s: could not reach %(host)s: %(detail)s"),
    gettext_noop(
        "%(provider)s: HTTP %(status)s but the server sent %(what)s instead of a JSON object"
    ),
    gettext_noop("%(provider)s: the response JSON has no %(expected)s (top-level keys: %(keys)s)"),
    gettext_noop(
        "%(provider)s: a thinking budget must be at least %(min)s tokens and less than the "
        "token limit (%(limit)s); got %(budget)s"
    ),
    gettext_noop("%(provider)s: the response has status 'failed' without an error object"),
    gettext_noop(
        "manual: a manual run has no API to call; its replies are pasted by a person from a "
        "chat window, on the run's page"
    ),
    gettext_noop(
        "No API key environment variable is configured for this model configuration: enter "
        "the name of the variable that holds the key (for example OPENAI_API_KEY)."
    ),
    gettext_noop(
        "The environment variable %(name)s is not set or is empty. Set it to the API key in "
        "the environment of the web server and of every worker, then restart them."
    ),
)
# Parts of a longer message: the clauses an HTTP error message is built from, and what
# collection appends.
PHRASES = (
    gettext_noop("the server sent an empty body"),
    gettext_noop("the account is out of quota or credit; top it up before collecting again"),
    gettext_noop("redirected to %(location)s: check the base URL"),
    gettext_noop("request id %(id)s"),
)
# What collection appends to a run's message (probe/services/collection/).
SUFFIXES = (
    gettext_noop(
        "(The server asked to wait %(wait)d s, longer than the %(cap)d s this collector "
        "waits; retry the run later.)"
    ),
    gettext_noop("(Gave up after %(n)d attempts.)"),
)
# The values of %(timeout)s.
TIMEOUTS = (
    gettext_noop("connect timeout"),
    gettext_noop("read timeout (no answer in time)"),
    gettext_noop("timeout waiting for a free connection"),
    gettext_noop("timeout"),
)
# Captured text that is itself a message of ours, translated in turn.
_NESTED = {"message", "timeout", "detail", "error"}
_PLACEHOLDER = re.compile(r"%\((\w+)\)([sd])")


def _body(template: str, named: bool = True) -> str:
    parts, last = [], 0
    for m in _PLACEHOLDER.finditer(template):
        parts.append(re.escape(template[last : m.start()]))
        name, kind = m.groups()
        if kind == "d":
            value = r"-?\d+"
        elif name == "provider":
            value = r"[\w.-]+"
        elif name in _NESTED:
            value = r".+?"
        else:
            value = r"\S(?:.*?\S)??"
        parts.append(rf"(?P<{name}>{value})" if named else f"(?:{value})")
        last = m.end()
    parts.append(re.escape(template[last:]))
    return "".join(parts)


@lru_cache(maxsize=1)
def _compiled():
    tail = "(?:" + "|".join(_body(t, named=False) for t in SUFFIXES) + ")"
    whole = [(t, re.compile(rf"^{_body(t)}(?P<_tail>(?:\s+{tail})*)$", re.S)) for t in MESSAGES]
    phrases = [(t, re.compile(_body(t), re.S)) for t in (*PHRASES, *SUFFIXES)]
    return whole, phrases


def _fill(template: str, match: re.Match) -> str:
    values = {}
    for name, value in match.groupdict().items():
        if name == "_tail":
            continue
        kind = re.search(rf"%\({name}\)([sd])", template).group(1)
        if kind == "d":
            values[name] = int(value)
        else:
            values[name] = translate_message(value) if name in _NESTED else value
    return gettext(template) % values


def translate_message(text: str) -> str:
    """`text` with every known English sentence put in the active language."""
    if not text or not isinstance(text, str) or len(text) > 20_000:
        return text
    if text in TIMEOUTS:
        return gettext(text)
    whole = _compiled()[0]
    # An HTTP error: "<provider>: HTTP 429 <code>: <the provider's words>; <our clauses>".
    for template, rx in whole:
        m = rx.match(text)
        if m:
            return _fill(template, m) + _phrases(m.group("_tail"))
    return _phrases(text)


def _phrases(text: str) -> str:
    _whole, phrases = _compiled()
    for template, rx in phrases:
        text = rx.sub(lambda m, t=template: _fill(t, m), text)
    return text
