"""The bucket badges' stylesheet, written from the scheme registry (scoring.schemes).

Every bucket of every registered scheme gets its rules from its ``BucketStyle``: ``.bucket-<value>``
(the badge: background and text) and ``.swatch-<value>`` (the report's colour key beside a bucket's
column: its chart colour). A new scheme with a new bucket brings its colours in its own class, and
the badges of the scoring, reconciliation and report pages and the report's swatches pick them up. A stylesheet of its own
(linked from templates/base.html), not a <style> block, so the pages' Content-Security-Policy
stays strict; it names no experiment and no user, so it is served without an account, as the
login page's other stylesheets are.
"""

from __future__ import annotations

import re

from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from scoring.schemes import buckets_registered

__all__ = ["bucket_css", "bucket_stylesheet"]

# What a colour value may hold: a hex colour, a CSS variable or a plain colour function.
_COLOUR = re.compile(r"^(#[0-9a-fA-F]{3,8}|var\(--[a-z0-9-]+\)|[a-z]+\([0-9., %]+\)|[a-z]+)$")
_VALUE = re.compile(r"^[a-z0-9_]+$")


def bucket_css() -> str:
    """The rules, two per bucket (badge, swatch), in the registry's order."""
    lines = ["/* Written from the scoring schemes' buckets (scoring/bucket_css.py). */"]
    for value, style in buckets_registered().items():
        if not _VALUE.match(value) or not all(
            _COLOUR.match(c) for c in (style.background, style.text, style.chart)
        ):
            raise ValueError(f"bucket {value!r}: a value or colour a stylesheet cannot hold")
        lines.append(f".bucket-{value} {{ background: {style.background}; color: {style.text}; }}")
        lines.append(f".swatch-{value} {{ background: {style.chart}; }}")
    return "\n".join(lines) + "\n"


@login_not_required
@require_GET
def bucket_stylesheet(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(bucket_css(), content_type="text/css; charset=utf-8")
    response["Cache-Control"] = "public, max-age=300"
    return response
