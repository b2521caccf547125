"""Manual runs: a reply a person pasted from a chat window."""

from __future__ import annotations

import logging

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ...models import (
    Attempt,
    AuditEvent,
    Experiment,
    ExperimentItem,
    Response,
    Run,
)
from ..audit import audit_record
from .parsing import store_from_attempt
from .rollup import run_rollup
from .units import attempt_number, storable

logger = logging.getLogger("probe.collection")


MAX_PASTE_CHARS = 1_000_000

# Manual runs ---------------------------------------------------------------------------------


@transaction.atomic
def run_paste(*, run: Run, user, text: str, item: ExperimentItem | None = None) -> Attempt:
    """Record a reply a person pasted from a chat window, and parse it like any other.

    Sheet mode takes the whole sheet; per-item mode one item's reply (`item`). Pasting again
    replaces the parsed answers (the earlier paste stays as an attempt). Refused once
    collection is complete, when the key may have been seen.
    """
    run = Run.objects.select_for_update().select_related("experiment").get(pk=run.pk)
    experiment = run.experiment
    if not run.is_manual:
        raise ValidationError(
            _("Only a manual run takes a pasted reply; this run is collected from its provider.")
        )
    if experiment.status == Experiment.Status.CANCELLED:
        raise ValidationError(_("The experiment was cancelled."))
    if experiment.status == Experiment.Status.COLLECTED:
        raise ValidationError(
            _(
                "Collection is complete and the key is open: a reply can no longer be pasted or replaced."
            )
        )
    if run.status in (Run.Status.CANCELLED, Run.Status.CLOSED):
        raise ValidationError(
            _("This run is %(status)s: retry it before pasting.")
            % {"status": run.get_status_display().lower()}
        )
    if not (text or "").strip():
        raise ValidationError({"text": _("Paste the model's whole reply.")})
    if len(text) > MAX_PASTE_CHARS:
        raise ValidationError(
            {"text": _("The reply is longer than %(n)s characters.") % {"n": MAX_PASTE_CHARS}}
        )
    if experiment.mode == Experiment.Mode.ITEM:
        if item is None or item.experiment_id != experiment.pk:
            raise ValidationError({"item": _("Say which item this reply answers.")})
        items = [item]
    else:
        if item is not None:
            raise ValidationError(
                {"item": _("This experiment sends the whole sheet at once: paste the whole reply.")}
            )
        items = list(experiment.items.order_by("position"))
    # One line ending style: a reply copied from a browser on Windows must parse the same.
    text = storable(text.replace("\r\n", "\n").replace("\r", "\n"))
    item_pk = item.pk if item is not None else None
    attempt = Attempt.objects.create(
        run=run,
        item_id=item_pk,
        number=attempt_number(run, item_pk),
        outcome=Attempt.Outcome.COMPLETE,
        text=text,
        raw_body=text,
        pasted_by=user,
    )
    store_from_attempt(run, items, attempt, replace=True)
    now = timezone.now()
    if run.started_at is None:
        Run.objects.filter(pk=run.pk).update(started_at=now)
    if (
        experiment.status == Experiment.Status.READY
        and not experiment.runs.exclude(config_snapshot__provider="manual").exists()
    ):
        # Only people collect this experiment: the first paste starts it, so that it does not
        # sit at "Ready to collect" with every reply in; an editor finishes it.
        Experiment.objects.filter(pk=experiment.pk, status=Experiment.Status.READY).update(
            status=Experiment.Status.COLLECTING, collection_started=now
        )
    if Response.objects.filter(run=run).count() < experiment.items.count():
        Run.objects.filter(pk=run.pk, status=Run.Status.PENDING).update(status=Run.Status.RUNNING)
    run_rollup(run_pk=run.pk)
    audit_record(
        team=experiment.team,
        user=user,
        bank=experiment.bank,
        action=AuditEvent.Action.UPDATE,
        subject="run",
        summary=_("pasted a reply into run %(run)s of %(name)s")
        % {"run": run, "name": experiment.name},
        details={
            "attempt": attempt.pk,
            "item": item.position if item else None,
            "chars": len(text),
        },
    )
    return attempt
