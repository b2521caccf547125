"""What other apps add to an answer on the scoring page, through a hook they register when
they start (grading's second opinion), so that scoring imports nothing of theirs.

A panel is ``panel(request, assignment, position, queue) -> {group tokens: HTML}``: the HTML is
placed inside that answer's row. A panel must return {} for an item the scorer has not
committed (``queue.item_done`` false): before that the page is the same whatever exists."""

from __future__ import annotations

from collections.abc import Callable

from django.utils.safestring import mark_safe

_PANELS: list[Callable] = []


def register_item_panel(panel: Callable) -> None:
    if panel not in _PANELS:
        _PANELS.append(panel)


def item_panels(request, assignment, position: int, queue) -> dict[str, str]:
    """The HTML each registered panel puts in each answer group's row, by the group's tokens."""
    if not queue.item_done:
        return {}
    html: dict[str, str] = {}
    for panel in _PANELS:
        for tokens, part in (panel(request, assignment, position, queue) or {}).items():
            html[tokens] = mark_safe(html.get(tokens, "") + part)  # noqa: S308 (rendered templates)
    return html
