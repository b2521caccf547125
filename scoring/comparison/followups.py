"""Follow-up experiments: measure again with the same items, prompt and configurations.

A follow-up starts from an earlier experiment of the team. Its items are either the earlier
snapshot (with the key in force: a key amended in review is the key of the follow-up) or the
bank's current active items, with the difference listed before anything is created. Its prompt
is the same version or a chosen other one. Its configurations are the earlier ones, plus or
minus some. Runs of the earlier experiment can be included as they are: their replies, parsed
answers and every attempt are copied, the run is marked with its origin, and nothing is asked
of the provider again.

This lives in scoring because the key in force comes from key review.
"""

import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from probe.models import (
    AuditEvent,
    Experiment,
    ExperimentItem,
    ModelConfig,
    PromptVersion,
    Run,
)
from probe.services.audit import audit_record
from probe.services.copies import items_copy, kept_items, run_copy
from probe.services.experiments import (
    MAX_REPEATS,
    SEED_LIMIT,
    SNAPSHOT_FIELDS,
    choice_problems,
    item_snapshot,
    items_to_snapshot,
    run_order,
)
from scoring.models import KeyDecision
from scoring.review.keys import keys_decided
from scoring.review.selectors import keys_in_force

SNAPSHOT, CURRENT = "snapshot", "current"
# Items inserted at a time: one statement of 10,000 rows costs more per row than ten of 1,000
# (every value is a parameter the driver and the database parse), so it stays linear in the
# items. Included runs are copied by the database itself (probe.services.copies).
COPY_BATCH = 1000
ITEM_SOURCES = (SNAPSHOT, CURRENT)

# Experiment fields a follow-up takes from its origin unless told otherwise: every scoring
# option, whatever options are added later, without a list to keep up to date here.
_NOT_COPIED = {
    "id",
    "team",
    "name",
    "bank",
    "bank_name",
    "prompt_version",
    "repeats",
    "seed",
    "status",
    "created",
    "created_by",
    "collection_started",
    "collection_finished",
    "follows",
}


def _copied_options(origin: Experiment) -> dict:
    return {
        f.attname: getattr(origin, f.attname)
        for f in Experiment._meta.concrete_fields
        if f.name not in _NOT_COPIED
    }


# --------------------------------------------------------------------------------------------
# The plan: what the follow-up's items would be, and how they differ from the origin's
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlannedItem:
    """One item of a follow-up: the fields of its snapshot (probe's SNAPSHOT_FIELDS)."""

    fields: dict

    @property
    def question(self) -> str:
        return self.fields["question"]

    @property
    def key_answer(self) -> str:
        return self.fields["key_answer"]

    @property
    def source_item_id(self) -> int | None:
        return self.fields["source_item_id"]


@dataclass
class ItemChange:
    position: int  # in the follow-up (added, changed) or in the origin (removed)
    question: str
    was: str = ""  # the origin's question or key, for a change


@dataclass
class ItemPlan:
    source: str
    items: list[PlannedItem]
    added: list[ItemChange] = field(default_factory=list)
    removed: list[ItemChange] = field(default_factory=list)
    question_changed: list[ItemChange] = field(default_factory=list)
    key_changed: list[ItemChange] = field(default_factory=list)

    @property
    def unchanged(self) -> bool:
        return not (self.added or self.removed or self.question_changed or self.key_changed)


def _snapshot_items(origin: Experiment) -> list[PlannedItem]:
    """The origin's items as they stand: read as plain rows (no model instance per item), the
    key in force from the few items that have a key decision."""
    decided = keys_decided(KeyDecision.objects.filter(experiment=origin))
    planned = []
    for fields in origin.items.order_by("position").values("pk", *SNAPSHOT_FIELDS):
        pk = fields.pop("pk")
        if pk in decided:
            fields["key_answer"] = decided[pk][0]
        fields["key_sources"] = list(fields["key_sources"] or ())
        planned.append(PlannedItem(fields))
    return planned


def _bank_items(origin: Experiment) -> list[PlannedItem]:
    if origin.bank_id is None:
        raise ValidationError(
            {"items": _("The bank of this experiment was deleted: only its snapshot can be used.")}
        )
    return [PlannedItem(item_snapshot(item)) for item in items_to_snapshot(origin.bank_id)]


def followup_plan(*, origin: Experiment, source: str = SNAPSHOT) -> ItemPlan:
    """The follow-up's items for `source`, and every difference from the origin's snapshot."""
    if source not in ITEM_SOURCES:
        raise ValidationError({"items": _("Choose the earlier snapshot or the bank's items.")})
    if source == SNAPSHOT:
        return ItemPlan(source=source, items=_snapshot_items(origin))
    items = _bank_items(origin)
    plan = ItemPlan(source=source, items=items)
    keys = keys_in_force(origin)
    before = {i.source_item_id: i for i in origin.items.order_by("position") if i.source_item_id}
    seen = set()
    for position, item in enumerate(items, start=1):
        old = before.get(item.source_item_id)
        if old is None:
            plan.added.append(ItemChange(position, item.question))
            continue
        seen.add(item.source_item_id)
        if old.question != item.question:
            plan.question_changed.append(ItemChange(position, item.question, was=old.question))
        old_key = keys.get(old.pk, old.key_answer)
        if old_key != item.key_answer:
            plan.key_changed.append(ItemChange(position, item.question, was=old_key))
    for source_id, old in before.items():
        if source_id not in seen:
            plan.removed.append(ItemChange(old.position, old.question))
    # Items of the origin whose bank item was deleted have no source item: removed too.
    for old in origin.items.filter(source_item__isnull=True).order_by("position"):
        plan.removed.append(ItemChange(old.position, old.question))
    plan.removed.sort(key=lambda c: c.position)
    return plan


# --------------------------------------------------------------------------------------------
# Creating the follow-up
# --------------------------------------------------------------------------------------------


def _include_problems(
    run: Run, origin: Experiment, items: list[PlannedItem], prompt: PromptVersion, old: set
) -> str:
    """Why this earlier run cannot stand in the follow-up as it is ("" when it can)."""
    if run.status != Run.Status.COLLECTED:
        return _("it was not collected (it is %(status)s)") % {
            "status": run.get_status_display().lower()
        }
    if prompt.pk != origin.prompt_version_id:
        return _("the follow-up uses another prompt version, and its answers were to the old one")
    for position, item in enumerate(items, start=1):
        if (item.source_item_id, item.question) not in old:
            return _("item %(n)s was not asked in the earlier experiment") % {"n": position}
    return ""


def _check_included(included: list[Run], *, origin, items, prompt, repeats: int) -> None:
    """Each included run fits the follow-up as it is, and takes a place of its own."""
    slots = {(r.model_config_id, r.repeat) for r in included}
    if len(slots) < len(included):
        raise ValidationError({"include_runs": _("Two included runs are the same repeat.")})
    # The origin's (bank item, question) pairs: an included run answered those.
    old = set(origin.items.values_list("source_item_id", "question")) if included else set()
    for run in included:
        problem = _include_problems(run, origin, items, prompt, old)
        if problem:
            raise ValidationError(
                {
                    "include_runs": _("%(run)s cannot be included as it is: %(why)s.")
                    % {"run": _("Run %(n)s") % {"n": run.order}, "why": problem}
                }
            )
        if run.repeat > repeats:
            raise ValidationError(
                {
                    "include_runs": _(
                        "An included run is repeat %(r)s, but the follow-up has %(n)s repeats."
                    )
                    % {"r": run.repeat, "n": repeats}
                }
            )


@transaction.atomic
def experiment_follow_up(
    *,
    origin: Experiment,
    user,
    source: str = SNAPSHOT,
    prompt_version: PromptVersion | None = None,
    configs: Iterable[ModelConfig] | None = None,
    include_runs: Iterable[Run] = (),
    repeats: int | None = None,
    name: str = "",
    seed: int | None = None,
) -> Experiment:
    """A new experiment like `origin`: its items (snapshot or the bank's), its prompt version
    (or another), its configurations (or others) and options; included runs copied as they are.

    `configs` None means the origin's configurations. An included run fills its
    configuration's place for its repeat; the other places are collected afresh.
    """
    team = origin.team
    prompt = prompt_version or origin.prompt_version
    repeats = origin.repeats if repeats is None else repeats
    errors: dict[str, str] = {}
    if prompt.team_id != team.pk:
        errors["prompt_version"] = _("Choose a prompt version of this team.")
    if configs is None:
        configs = [
            ModelConfig.objects.get(pk=pk)
            for pk in origin.runs.values_list("model_config_id", flat=True).distinct()
        ]
    configs = list(dict.fromkeys(configs))
    included = list(dict.fromkeys(include_runs))
    if any(r.experiment_id != origin.pk for r in included):
        errors["include_runs"] = _("Only runs of the earlier experiment can be included.")
    for run in included:
        if run.model_config not in configs:
            configs.append(run.model_config)
    errors.update(
        choice_problems(
            team=team,
            configs=configs,
            seed=seed,
            archived_ok={r.model_config for r in included},
        )
    )
    if not isinstance(repeats, int) or not 1 <= repeats <= MAX_REPEATS:
        errors["repeats"] = _("Repeats must be a whole number from 1 to %(n)s.") % {
            "n": MAX_REPEATS
        }
    if errors:
        raise ValidationError(errors)

    plan = followup_plan(origin=origin, source=source)
    if not plan.items:
        raise ValidationError({"items": _("There are no active items to put to the models.")})
    _check_included(included, origin=origin, items=plan.items, prompt=prompt, repeats=repeats)

    if seed is None:
        seed = secrets.randbelow(SEED_LIMIT)
    name = name.strip() or _("%(name)s, again on %(when)s") % {
        "name": origin.name,
        "when": timezone.localtime().strftime("%Y-%m-%d %H:%M %Z"),
    }
    experiment = Experiment.objects.create(
        team=team,
        name=name[:200],
        bank=origin.bank,
        bank_name=origin.bank.name if origin.bank else origin.bank_name,
        prompt_version=prompt,
        repeats=repeats,
        seed=seed,
        created_by=user,
        follows=origin,
        **_copied_options(origin),
    )
    if source == SNAPSHOT:
        # The origin's items as they are, with the key in force: copied by the database.
        decided = keys_decided(KeyDecision.objects.filter(experiment=origin))
        items_copy(
            source_experiment_id=origin.pk,
            target_experiment_id=experiment.pk,
            keys={pk: text for pk, (text, _dropped) in decided.items()},
        )
    else:
        ExperimentItem.objects.bulk_create(
            (
                ExperimentItem(experiment=experiment, position=position, **p.fields)
                for position, p in enumerate(plan.items, start=1)
            ),
            batch_size=COPY_BATCH,
        )
    from_run = {(r.model_config_id, r.repeat): r for r in included}
    pairs = [(c, r) for c in sorted(configs, key=lambda c: c.pk) for r in range(1, repeats + 1)]
    now = timezone.now()
    item_map = None  # read when the first included run is copied
    for (config, repeat), place in zip(pairs, run_order(len(pairs), seed), strict=True):
        earlier = from_run.get((config.pk, repeat))
        if earlier is None:
            Run.objects.create(
                experiment=experiment,
                model_config=config,
                repeat=repeat,
                order=place,
                config_snapshot=config.settings_snapshot(),
            )
            continue
        run = Run.objects.create(
            experiment=experiment,
            model_config=config,
            repeat=repeat,
            order=place,
            config_snapshot=earlier.config_snapshot,
            status=Run.Status.COLLECTED,
            included_from=earlier,
            queued_at=earlier.queued_at,
            started_at=earlier.started_at,
            finished_at=earlier.finished_at or now,
            compliance=earlier.compliance,
        )
        if item_map is None:
            item_map = kept_items(
                source_experiment_id=origin.pk, target_experiment_id=experiment.pk
            )
        run_copy(source=earlier, target=run, now=now, item_map=item_map)

    audit_record(
        team=team,
        user=user,
        bank=origin.bank,
        action=AuditEvent.Action.CREATE,
        subject="experiment",
        summary=_("%(name)s (follow-up of %(origin)s)") % {"name": name, "origin": origin.name},
        details={
            "follows": origin.pk,
            "items": len(plan.items),
            "item_source": source,
            "runs": len(pairs),
            "included_runs": [r.pk for r in included],
            "prompt_version": prompt.pk,
            "seed": seed,
        },
    )
    return experiment
