"""What other apps add to the final report, through a hook they register when they start
(grading's corrected figures of a routed experiment), so that scoring imports nothing of theirs.

A section is ``section(request, experiment, source, w) -> HTML`` ("" where it has nothing to
add); ``source`` is the report's bucket source (scoring.report.source)."""

from __future__ import annotations

from collections.abc import Callable

from django.utils.safestring import mark_safe

_SECTIONS: list[Callable] = []


def register_report_section(section: Callable) -> None:
    if section not in _SECTIONS:
        _SECTIONS.append(section)


def report_sections(request, experiment, source, w: float) -> str:
    parts = [section(request, experiment, source, w) or "" for section in _SECTIONS]
    return mark_safe("".join(parts))  # noqa: S308 (rendered templates)
