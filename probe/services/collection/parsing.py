"""Parsing a stored reply into responses; parsing a run again (`run_reparse`)."""

from __future__ import annotations

import logging

from django.db import transaction

from ... import sheetparser
from ...models import (
    Attempt,
    Experiment,
    ExperimentItem,
    Response,
    Run,
)
from .rollup import run_rollup
from .units import latest_success

logger = logging.getLogger("probe.collection")


# Parsing -------------------------------------------------------------------------------------


def parse_attempt(attempt: Attempt, items: list[ExperimentItem], mode: str):
    """[(item, ParsedAnswer)] for the items of the attempt's unit, and the sheet's own issues."""
    if attempt.item_id is not None or mode == Experiment.Mode.ITEM:
        pairs = []
        for item in items:
            pairs.append((item, sheetparser.parse_single(attempt.text, item.position)))
        return pairs, []
    sheet = sheetparser.parse_sheet(attempt.text, len(items))
    by_number = {answer.number: answer for answer in sheet.answers}
    return [(item, by_number[item.position]) for item in items], list(sheet.sheet_issues)


def store_from_attempt(run: Run, items, attempt: Attempt, *, replace: bool = False) -> int:
    """Write the responses parsed from `attempt`: new ones only, or (replace) update in place."""
    if run.status == Run.Status.CLOSED:
        return 0  # closed runs are final: scoring may have opened without them
    pairs, _sheet_issues = parse_attempt(attempt, items, run.experiment.mode)
    rows = [response_row(run, item, attempt, parsed) for item, parsed in pairs]
    if replace:
        Response.objects.bulk_create(
            rows,
            update_conflicts=True,
            unique_fields=["run", "item"],
            update_fields=[
                "attempt",
                "answer",
                "confidence",
                "abstained",
                "hedged",
                "issues",
                "parser_version",
            ],
        )
    else:
        Response.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


@transaction.atomic
def run_reparse(*, run: Run) -> int:
    """Parse every unit of the run again from its stored reply, updating the responses in place.

    Returns the number of responses written. The raw text is never touched.
    """
    run = Run.objects.select_related("experiment").get(pk=run.pk)
    items = list(run.experiment.items.order_by("position"))
    written = 0
    if run.experiment.mode == Experiment.Mode.ITEM:
        for item in items:
            attempt = latest_success(run, item.pk)
            if attempt is not None:
                written += store_from_attempt(run, [item], attempt, replace=True)
    else:
        attempt = latest_success(run, None)
        if attempt is not None:
            written += store_from_attempt(run, items, attempt, replace=True)
    run_rollup(run_pk=run.pk)
    return written


def response_row(run: Run, item: ExperimentItem, attempt: Attempt, parsed) -> Response:
    return Response(
        run=run,
        item=item,
        attempt=attempt,
        answer=parsed.answer,
        confidence=parsed.confidence or "",
        abstained=parsed.abstained,
        hedged=parsed.hedged,
        issues=list(parsed.issues),
        parser_version=sheetparser.PARSER_VERSION,
    )
