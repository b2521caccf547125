"""Experiment and run writes: create (with the item snapshot), start, cancel, retry, close.

Each service checks the current state before changing it and raises ValidationError with a
message a person can act on. Collection itself (the per-unit work, pasting, parsing, the
status roll-up) is in services/collection/.
"""

import random
import secrets
from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scoring.schemes import DEFAULT_SCHEME
from scoring.schemes import offered as offered_schemes

from ..events import experiment_collected
from ..models import (
    AuditEvent,
    Bank,
    Experiment,
    ExperimentItem,
    Item,
    ModelConfig,
    PromptVersion,
    Run,
    Team,
)
from . import collection
from .audit import audit_record
from .collection import experiment_prompts, unit_prompt  # noqa: F401 (re-exported)

A = AuditEvent.Action
MAX_REPEATS = 20
# Seeds are shown on the page and typed back in to reproduce an order: keep them short.
SEED_LIMIT = 2**31


# Create --------------------------------------------------------------------------------------


def run_order(n_runs: int, seed: int) -> list[int]:
    """The place (1..n) of each run in the collection order, shuffled reproducibly by `seed`."""
    order = list(range(1, n_runs + 1))
    random.Random(seed).shuffle(order)
    return order


# What an experiment copies of each item (besides its experiment and position). A follow-up
# copies the same fields from its origin's snapshot.
SNAPSHOT_FIELDS = (
    "block_code",
    "block_title",
    "question",
    "answer_format",
    "source_item_id",
    "key_answer",
    "key_flagged",
    "key_flag_note",
    "key_sources",
    "topic",
    "answer_kind",
    "item_version",
)


def choice_problems(
    *, team: Team, configs: list[ModelConfig], seed: int | None, archived_ok=()
) -> dict[str, str]:
    """What is wrong with the configurations and the seed chosen for a new experiment, by field.

    ``archived_ok``: archived configurations that may stand (a follow-up's included runs)."""
    errors = {}
    if not configs:
        errors["configs"] = _("Choose at least one model configuration.")
    elif any(c.team_id != team.pk for c in configs):
        errors["configs"] = _("Every model configuration must belong to this team.")
    elif any(c.archived and c not in archived_ok for c in configs):
        errors["configs"] = _("An archived model configuration cannot be used in a new experiment.")
    if seed is not None and not (0 <= seed < SEED_LIMIT):
        errors["seed"] = _("The seed must be a whole number from 0 to %(max)s.") % {
            "max": SEED_LIMIT - 1
        }
    return errors


def items_to_snapshot(bank_id: int) -> list[Item]:
    """The bank's active items in block order, with what their snapshot needs loaded."""
    return list(
        Item.objects.filter(block__bank_id=bank_id, retired=False)
        .select_related("block", "key_entry")
        .order_by("block__order", "block_id", "order", "pk")
    )


def item_snapshot(item: Item) -> dict:
    """A bank item (with its block and key entry loaded) as the fields of its snapshot."""
    entry = item.key_entry_or_none
    return {
        "block_code": item.block.code,
        "block_title": item.block.title,
        "question": item.question,
        "answer_format": item.answer_format,
        "source_item_id": item.pk,
        "key_answer": entry.answer if entry else "",
        "key_flagged": bool(entry and entry.flagged),
        "key_flag_note": entry.flag_note if entry else "",
        "key_sources": list(entry.sources) if entry else [],
        "topic": item.topic,
        "answer_kind": item.answer_kind,
        "item_version": item.version,
    }


@transaction.atomic
def experiment_create(
    *,
    team: Team,
    user,
    bank: Bank,
    prompt_version: PromptVersion,
    configs: Iterable[ModelConfig],
    repeats: int = 2,
    mode: str = Experiment.Mode.SHEET,
    name: str = "",
    seed: int | None = None,
    scheme: str = DEFAULT_SCHEME,
    hide_confidence: bool = False,
    confirm_wrong: str = Experiment.ConfirmWrong.ONCE,
    noise_floor: float | None = None,
) -> Experiment:
    """Snapshot the bank's active items and create the runs (configurations x repeats).

    Items are numbered 1..N in block order; their key entries are copied with them, so later
    edits to the bank do not change the experiment. Runs are put in a random order drawn from
    the stored seed (a fresh random seed when none is given).
    """
    errors: dict[str, str] = {}
    if bank.team_id != team.pk:
        errors["bank"] = _("Choose a bank of this team.")
    if prompt_version.team_id != team.pk:
        errors["prompt_version"] = _("Choose a prompt version of this team.")
    configs = list(dict.fromkeys(configs))
    errors.update(choice_problems(team=team, configs=configs, seed=seed))
    if not isinstance(repeats, int) or repeats < 1:
        errors["repeats"] = _("Each configuration must run at least once.")
    elif repeats > MAX_REPEATS:
        errors["repeats"] = _("At most %(n)s repeats.") % {"n": MAX_REPEATS}
    if mode not in Experiment.Mode.values:
        errors["mode"] = _("Choose how the items are sent.")
    if scheme not in {s.key for s in offered_schemes()}:
        errors["scheme"] = _("Choose a scoring scheme.")
    if confirm_wrong not in Experiment.ConfirmWrong.values:
        errors["confirm_wrong"] = _("Choose when a HIGH-confidence answer marked wrong asks first.")
    if noise_floor is not None and not (0 <= noise_floor <= 1000):
        errors["noise_floor"] = _("The noise floor is a number of items, 0 or more.")
    if errors:
        raise ValidationError(errors)

    items = items_to_snapshot(bank.pk)
    if not items:
        raise ValidationError(
            {
                "bank": _("The bank %(bank)s has no active items to put to the models.")
                % {"bank": bank.name}
            }
        )
    if seed is None:
        seed = secrets.randbelow(SEED_LIMIT)
    name = name.strip() or _("%(bank)s, %(when)s") % {
        "bank": bank.name,
        "when": timezone.localtime().strftime("%Y-%m-%d %H:%M %Z"),
    }
    experiment = Experiment.objects.create(
        team=team,
        name=name[:200],
        bank=bank,
        bank_name=bank.name,
        prompt_version=prompt_version,
        mode=mode,
        repeats=repeats,
        seed=seed,
        created_by=user,
        scheme=scheme,
        hide_confidence=hide_confidence,
        confirm_wrong=confirm_wrong,
        noise_floor=noise_floor,
    )
    snapshot = [
        ExperimentItem(experiment=experiment, position=position, **item_snapshot(item))
        for position, item in enumerate(items, start=1)
    ]
    ExperimentItem.objects.bulk_create(snapshot)

    # Sorted by primary key, so the same configurations and seed give the same order whatever
    # order the form listed them in.
    pairs = [(c, r) for c in sorted(configs, key=lambda c: c.pk) for r in range(1, repeats + 1)]
    Run.objects.bulk_create(
        Run(
            experiment=experiment,
            model_config=config,
            repeat=repeat,
            order=place,
            config_snapshot=config.settings_snapshot(),
        )
        for (config, repeat), place in zip(pairs, run_order(len(pairs), seed), strict=True)
    )
    audit_record(
        team=team,
        user=user,
        bank=bank,
        action=A.CREATE,
        subject="experiment",
        summary=name,
        details={
            "items": len(snapshot),
            "runs": len(pairs),
            "repeats": repeats,
            "mode": mode,
            "prompt_version": prompt_version.pk,
            "seed": seed,
        },
    )
    return experiment


# Start and cancel ----------------------------------------------------------------------------


def _locked(model, obj):
    return model.objects.select_for_update().get(pk=obj.pk)


@transaction.atomic
def experiment_start(*, experiment: Experiment, user, queue: bool = True) -> Experiment:
    """Queue every waiting run that has a provider to call (manual runs wait for a paste).

    `queue=False` marks the runs queued without sending tasks: the `collect` command then runs
    the same units in its own process.
    """
    experiment = _locked(Experiment, experiment)
    if experiment.status != Experiment.Status.READY:
        raise ValidationError(
            _("This experiment cannot be started: it is %(status)s.")
            % {"status": experiment.get_status_display().lower()}
        )
    now = timezone.now()
    experiment.status = Experiment.Status.COLLECTING
    experiment.collection_started = now
    experiment.save(update_fields=["status", "collection_started"])
    runs = [r for r in experiment.runs.filter(status=Run.Status.PENDING) if not r.is_manual]
    for run in runs:
        run.status = Run.Status.QUEUED
        run.queued_at = now
        run.save(update_fields=["status", "queued_at"])
        if queue:
            collection.queue_run(run)
    # Manual runs may all have been pasted before the start.
    collection.experiment_rollup(experiment_pk=experiment.pk)
    audit_record(
        team=experiment.team,
        user=user,
        bank=experiment.bank,
        action=A.UPDATE,
        subject="experiment",
        summary=_("started collection: %(name)s") % {"name": experiment.name},
        details={"queued_runs": len(runs)},
    )
    experiment.refresh_from_db()
    return experiment


@transaction.atomic
def experiment_cancel(*, experiment: Experiment, user) -> Experiment:
    """Stop collecting: every run not yet finished is cancelled; collected answers are kept."""
    experiment = _locked(Experiment, experiment)
    if experiment.status not in (Experiment.Status.READY, Experiment.Status.COLLECTING):
        raise ValidationError(
            _("This experiment cannot be cancelled: it is %(status)s.")
            % {"status": experiment.get_status_display().lower()}
        )
    now = timezone.now()
    cancelled = experiment.runs.exclude(status__in=Run.FINISHED).update(
        status=Run.Status.CANCELLED, finished_at=now
    )
    experiment.status = Experiment.Status.CANCELLED
    experiment.save(update_fields=["status"])
    audit_record(
        team=experiment.team,
        user=user,
        bank=experiment.bank,
        action=A.UPDATE,
        subject="experiment",
        summary=_("cancelled: %(name)s") % {"name": experiment.name},
        details={"cancelled_runs": cancelled},
    )
    return experiment


def _check_experiment_open(experiment: Experiment) -> None:
    if experiment.status == Experiment.Status.CANCELLED:
        raise ValidationError(_("The experiment was cancelled."))
    if experiment.status == Experiment.Status.COLLECTED:
        raise ValidationError(_("Collection is complete: the runs can no longer change."))


@transaction.atomic
def run_cancel(*, run: Run, user) -> Run:
    """Stop one run. A request already in flight finishes, and its reply is kept."""
    run = Run.objects.select_for_update().select_related("experiment").get(pk=run.pk)
    _check_experiment_open(run.experiment)
    if run.status not in (
        Run.Status.PENDING,
        Run.Status.QUEUED,
        Run.Status.RUNNING,
        Run.Status.FAILED,
    ):
        raise ValidationError(
            _("This run cannot be cancelled: it is %(status)s.")
            % {"status": run.get_status_display().lower()}
        )
    run.status = Run.Status.CANCELLED
    run.finished_at = timezone.now()
    run.save(update_fields=["status", "finished_at"])
    audit_record(
        team=run.experiment.team,
        user=user,
        bank=run.experiment.bank,
        action=A.UPDATE,
        subject="run",
        summary=_("cancelled run %(run)s of %(name)s") % {"run": run, "name": run.experiment.name},
    )
    return run


@transaction.atomic
def run_retry(*, run: Run, user, queue: bool = True) -> Run:
    """A failed or cancelled run, or a run collected but for units that failed after their retry
    window, goes back to the queue. Its attempts and responses are kept:
    only the units without a response are collected again, and a unit whose reply already
    arrived is parsed from that reply rather than asked again."""
    run = Run.objects.select_for_update().select_related("experiment").get(pk=run.pk)
    experiment = run.experiment
    _check_experiment_open(experiment)
    health = collection.run_health(run)
    if health is not None and health.state == "stalled":
        # Nothing moves it: send it again now, and count its retries afresh. A worker that
        # still holds it keeps it (the new task waits for its lease, then leaves).
        run.status = Run.Status.QUEUED
        run.queued_at = timezone.now()
        run.save(update_fields=["status", "queued_at"])
        if queue:
            collection.queue_run(run)
        audit_record(
            team=experiment.team,
            user=user,
            bank=experiment.bank,
            action=A.UPDATE,
            subject="run",
            summary=_("retried stalled run %(run)s of %(name)s")
            % {"run": run, "name": experiment.name},
        )
        return run
    # A run collected but for the units that failed after their retry window: sent again.
    units_failed = (
        run.status == Run.Status.COLLECTED
        and collection.runs_with_failed_units(experiment.pk).filter(pk=run.pk).exists()
    )
    if run.status not in (Run.Status.FAILED, Run.Status.CANCELLED) and not units_failed:
        raise ValidationError(
            _("Only a failed, cancelled or stalled run can be retried; this one is %(status)s.")
            % {"status": run.get_status_display().lower()}
        )
    if run.is_manual:
        run.status = Run.Status.PENDING
    elif experiment.status == Experiment.Status.READY:
        run.status = Run.Status.PENDING  # queued when the experiment starts
    else:
        run.status = Run.Status.QUEUED
    # Retries are counted from the attempts made since this moment.
    run.queued_at = timezone.now()
    run.finished_at = None
    run.error_message = ""
    run.error_request_id = ""
    run.save(
        update_fields=["status", "queued_at", "finished_at", "error_message", "error_request_id"]
    )
    if run.status == Run.Status.QUEUED and queue:
        collection.queue_run(run)
    audit_record(
        team=experiment.team,
        user=user,
        bank=experiment.bank,
        action=A.UPDATE,
        subject="run",
        summary=_("retried run %(run)s of %(name)s") % {"run": run, "name": experiment.name},
    )
    return run


@transaction.atomic
def run_close_failed(*, run: Run, user) -> Run:
    """Close a failed (or cancelled) run, so that scoring can open without it."""
    run = Run.objects.select_for_update().select_related("experiment").get(pk=run.pk)
    experiment = run.experiment
    _check_experiment_open(experiment)
    if run.status not in (Run.Status.FAILED, Run.Status.CANCELLED):
        raise ValidationError(
            _("Only a failed or cancelled run can be closed; this one is %(status)s.")
            % {"status": run.get_status_display().lower()}
        )
    run.status = Run.Status.CLOSED
    run.finished_at = run.finished_at or timezone.now()
    run.save(update_fields=["status", "finished_at"])
    collection.experiment_rollup(experiment_pk=experiment.pk)
    audit_record(
        team=experiment.team,
        user=user,
        bank=experiment.bank,
        action=A.UPDATE,
        subject="run",
        summary=_("closed run %(run)s of %(name)s as failed")
        % {"run": run, "name": experiment.name},
    )
    return run


@transaction.atomic
def experiment_finish(*, experiment: Experiment, user) -> Experiment:
    """An editor ends the collection of an experiment with manual runs: the key opens.

    Until then a pasted reply can be replaced. Refused while a run is still waiting, queued,
    collecting or failed (retry it or close it first).
    """
    experiment = _locked(Experiment, experiment)
    if experiment.status not in (Experiment.Status.READY, Experiment.Status.COLLECTING):
        raise ValidationError(
            _("Collection cannot be finished: the experiment is %(status)s.")
            % {"status": experiment.get_status_display().lower()}
        )
    open_runs = experiment.runs.exclude(status__in=Run.FINISHED).count()
    if open_runs:
        raise ValidationError(
            ngettext(
                "%(n)d run is not collected yet: paste its reply, or close it as failed.",
                "%(n)d runs are not collected yet: paste their replies, or close them as failed.",
                open_runs,
            )
            % {"n": open_runs}
        )
    now = timezone.now()
    experiment.status = Experiment.Status.COLLECTED
    experiment.collection_started = experiment.collection_started or now
    experiment.collection_finished = now
    experiment.save(update_fields=["status", "collection_started", "collection_finished"])
    experiment_collected.send(sender=Experiment, experiment_pk=experiment.pk)
    audit_record(
        team=experiment.team,
        user=user,
        bank=experiment.bank,
        action=A.UPDATE,
        subject="experiment",
        summary=_("finished collecting: %(name)s") % {"name": experiment.name},
    )
    return experiment
