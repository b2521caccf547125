"""Grading's writes: grading prompt versions, graders, and starting or cancelling a job.

A grading prompt version never changes once it exists (as a prompt version: probe's
``prompt_new_version``); "editing" writes the next version of the same name. Starting a job
snapshots the grader's configuration and prompt, so that the job's version stays what it was.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from probe.models import Experiment, ModelConfig, Response, Run, Team
from probe.services.prompts import normalise_text
from probe.wording import word_list
from scoring.models import Judgement
from scoring.queue.services import judgement_decide

from . import dispatch, selectors, texts
from .models import Grader, GradingJob, GradingPrompt, SecondOpinion, TrustThreshold
from .parser import PARSER_VERSION, read_confidence
from .rules import RULES_VERSION


def _clean_examples(examples: Sequence[Mapping]) -> list[dict]:
    cleaned = []
    for number, example in enumerate(examples, start=1):
        row = {f: str(example.get(f, "") or "").strip() for f in texts.EXAMPLE_FIELDS}
        missing = [f for f in ("question", "key", "answer", "label") if not row[f]]
        if missing:
            raise ValidationError(
                {
                    "examples": _("Example %(number)d lacks: %(fields)s.")
                    % {"number": number, "fields": word_list(missing)}
                }
            )
        if row["label_confidence"] and read_confidence(row["label_confidence"]) is None:
            raise ValidationError(
                {
                    "examples": _(
                        "Example %(number)d: the grader's confidence in its label must be a "
                        "number from 0 to 1."
                    )
                    % {"number": number}
                }
            )
        cleaned.append(row)
    return cleaned


def _user(user):
    return user if user is not None and user.is_authenticated else None


@transaction.atomic
def grading_prompt_create(
    *, team: Team, user, name: str, text: str, examples=(), language: str = "en", note: str = ""
) -> GradingPrompt:
    """Version 1 of a new grading prompt name in the team."""
    name = name.strip()
    text = normalise_text(text)
    if not name:
        raise ValidationError({"name": _("Give the grading prompt a name.")})
    if not text:
        raise ValidationError({"text": _("The instruction text cannot be empty.")})
    examples = _clean_examples(examples)
    if GradingPrompt.objects.filter(team=team, name=name).exists():
        raise ValidationError(
            {
                "name": _("This team already has a grading prompt called “%(name)s”.")
                % {"name": name}
            }
        )
    return GradingPrompt.objects.create(
        team=team,
        name=name,
        language=language,
        text=text,
        examples=examples,
        content_hash=texts.content_hash(text, examples),
        note=note.strip()[:300],
        created_by=_user(user),
    )


@transaction.atomic
def grading_prompt_new_version(
    *, prompt: GradingPrompt, user, text: str, examples=None, note: str
) -> GradingPrompt:
    """The edit of `prompt`: the next version of its name; identical content is refused."""
    text = normalise_text(text)
    if not text:
        raise ValidationError({"text": _("The instruction text cannot be empty.")})
    if not note.strip():
        raise ValidationError({"note": _("Say briefly what changed, for the version history.")})
    examples = _clean_examples(prompt.examples if examples is None else examples)
    digest = texts.content_hash(text, examples)
    Team.objects.select_for_update().filter(pk=prompt.team_id).first()
    same = GradingPrompt.objects.filter(team=prompt.team, name=prompt.name, content_hash=digest)
    if same.exists():
        raise ValidationError(
            {
                "text": _("No change: this text and these examples are identical to %(version)s.")
                % {"version": same.order_by("version").first()}
            }
        )
    latest = (
        GradingPrompt.objects.filter(team=prompt.team, name=prompt.name)
        .order_by("-version")
        .values_list("version", flat=True)
        .first()
    )
    try:
        with transaction.atomic():
            return GradingPrompt.objects.create(
                team=prompt.team,
                name=prompt.name,
                version=(latest or prompt.version) + 1,
                language=prompt.language,
                text=text,
                examples=examples,
                content_hash=digest,
                parent=prompt,
                note=note.strip()[:300],
                created_by=_user(user),
            )
    except IntegrityError:
        raise ValidationError(
            _("Someone saved a new version of this grading prompt at the same moment.")
        ) from None


def grading_prompt_defaults_ensure(*, team: Team) -> list[GradingPrompt]:
    """Version 1 of each default grading prompt (English, Japanese) the team lacks."""
    created = []
    for language, text in texts.DEFAULT_TEXT.items():
        name = texts.DEFAULT_NAME[language]
        if GradingPrompt.objects.filter(team=team, name=name).exists():
            continue
        try:
            created.append(
                grading_prompt_create(
                    team=team,
                    user=None,
                    name=name,
                    text=text,
                    examples=texts.DEFAULT_EXAMPLES[language],
                    language=language,
                )
            )
        except ValidationError:
            pass  # created by a concurrent request
    return created


@transaction.atomic
def grader_create(
    *,
    team: Team,
    user,
    label: str,
    model_config: ModelConfig | None = None,
    prompt: GradingPrompt | None = None,
) -> Grader:
    """A grader: the rules alone, or the rules then a model configuration with a prompt."""
    label = label.strip()
    if not label:
        raise ValidationError({"label": _("Give the grader a label.")})
    if (model_config is None) != (prompt is None):
        raise ValidationError(
            _("A model grader needs both a model configuration and a grading prompt version.")
        )
    for obj in (model_config, prompt):
        if obj is not None and obj.team_id != team.pk:
            raise ValidationError(_("The configuration and the prompt must be the team's own."))
    if model_config is not None and model_config.is_manual:
        raise ValidationError(
            {"model_config": _("A manual configuration cannot grade: nobody sends it requests.")}
        )
    if Grader.objects.filter(team=team, label=label).exists():
        raise ValidationError(
            {"label": _("This team already has a grader called “%(label)s”.") % {"label": label}}
        )
    return Grader.objects.create(
        team=team, label=label, model_config=model_config, prompt=prompt, created_by=_user(user)
    )


@transaction.atomic
def grading_start(
    *,
    experiment: Experiment,
    grader: Grader,
    user,
    queue: bool = True,
    prompt: GradingPrompt | None = None,
) -> GradingJob:
    """A new job of the grader's current version over the experiment's frozen responses.

    Only once every run is collected (or closed): a grader reads responses, never asks the
    models again. The task is sent after the commit (`queue=False`: by the next sweep).
    ``prompt``: another version of the grader's prompt (a re-grade with a new version)."""
    if prompt is not None:
        if not grader.uses_model:
            raise ValidationError(_("The rules alone take no grading prompt."))
        if prompt.team_id != grader.team_id:
            raise ValidationError(_("The grading prompt must be the team's own."))
    prompt = prompt or grader.prompt
    if grader.team_id != experiment.team_id:
        raise ValidationError(_("The grader must be the experiment's team's own."))
    if experiment.runs.exclude(status__in=Run.FINISHED).exists():
        raise ValidationError(_("Grading starts once every run is collected."))
    if GradingJob.objects.filter(
        experiment=experiment, grader=grader, status__in=GradingJob.ACTIVE
    ).exists():
        raise ValidationError(_("This grader is already grading this experiment."))
    snapshot = grader.model_config.settings_snapshot() if grader.model_config else {}
    job = GradingJob.objects.create(
        experiment=experiment,
        grader=grader,
        config_snapshot=snapshot,
        config_hash=texts.config_hash(snapshot) if snapshot else "",
        prompt=prompt,
        prompt_hash=prompt.content_hash if prompt else "",
        parser_version=PARSER_VERSION if grader.uses_model else "",
        rules_version=RULES_VERSION,
        created_by=_user(user),
        enqueued_at=timezone.now() if queue else None,
    )
    if queue:
        transaction.on_commit(partial(dispatch.send_job, job.pk))
    return job


def grading_cancel(*, job: GradingJob, user) -> bool:
    return (
        GradingJob.objects.filter(pk=job.pk, status__in=GradingJob.ACTIVE).update(
            status=GradingJob.Status.CANCELLED, finished_at=timezone.now()
        )
        > 0
    )


def opinions_show(*, assignment, position: int) -> list[SecondOpinion]:
    """Record that the item's second opinions are shown to the scorer now, each with the
    scorer's bucket at that moment (the first showing stays as it was). [] while the item is not
    committed by them."""
    grades = selectors.item_grades(assignment, position)
    if not grades:
        return []
    buckets = dict(
        Judgement.objects.filter(
            assignment=assignment, response__in=[g.response_id for g in grades]
        ).values_list("response_id", "bucket")
    )
    shown = []
    for grade in grades:
        opinion, _created = SecondOpinion.objects.get_or_create(
            assignment=assignment,
            grade=grade,
            defaults={"response_id": grade.response_id, "first_bucket": buckets[grade.response_id]},
        )
        shown.append(opinion)
    return shown


@transaction.atomic
def opinion_respond(*, opinion: SecondOpinion, action: str, cause: str = "", bucket: str = ""):
    """Keep the bucket, or change it with its cause (the judgement changes through scoring's
    own decision, so its history and the final buckets follow). The first bucket never changes."""
    if action == SecondOpinion.Action.KEEP:
        opinion.action, opinion.new_bucket = action, ""
    elif action == SecondOpinion.Action.CHANGE:
        if not cause.strip():
            raise ValidationError({"cause": _("Say why you change your bucket.")})
        response = Response.objects.get(pk=opinion.response_id)
        judgement_decide(assignment=opinion.assignment, responses=[response], bucket=bucket)
        opinion.action, opinion.new_bucket = action, bucket
    else:
        raise ValidationError(_("Keep your bucket or change it."))
    opinion.cause = cause.strip()[:2000]
    opinion.responded_at = timezone.now()
    opinion.save(update_fields=["action", "new_bucket", "cause", "responded_at"])
    return opinion


def threshold_save(*, team: Team, metric: str, min_answers: int, margin) -> TrustThreshold:
    """The team's trust threshold for graders, made or changed."""
    threshold, _created = TrustThreshold.objects.update_or_create(
        team=team, defaults={"metric": metric, "min_answers": min_answers, "margin": margin}
    )
    return threshold
