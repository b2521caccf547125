"""A provider's name as a reader reads it: the label its adapter marks, in the reader's language.

Every page, and every download in the interface's language, shows a configuration's or a run's
provider through `provider_label` (in templates the `provider_label` filter), never the machine
name it is stored under (``simulator``, ``openai_chat``). The machine name stays in JSON, JSON
Lines, the API and the commands.
"""

from __future__ import annotations

from django.utils.translation import gettext

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
