"""Notifications, the writes: one per user and event, in the inbox, and by mail where the
server sends mail and the user keeps the choice on. Texts are written in the reader's language
at reading (or mailing) time, from the kind and the experiment's name alone."""

import logging

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from ..models import Experiment, Membership, Notification, Role, UserPreference
from ..selectors.preferences import user_language

logger = logging.getLogger(__name__)


def notification_text(kind: str, experiment_name: str, actor: str = "") -> str:
    """The sentence a notification says, in the active language."""
    if kind == Notification.Kind.MENTIONED:
        return _("%(person)s mentioned you in a comment in %(place)s.") % {
            "person": actor,
            "place": experiment_name,
        }
    texts = {
        Notification.Kind.TO_SCORE: _("You have items to score in %(experiment)s."),
        Notification.Kind.RECHECK: _(
            "A key entry you scored in %(experiment)s was amended: your judgement waits for "
            "your re-check."
        ),
        Notification.Kind.RECONCILE: _(
            "Reconciliation of %(experiment)s waits for a lead: two scorers have judged "
            "every response."
        ),
        Notification.Kind.COLLECTED: _(
            "%(experiment)s has finished collecting: its key and scoring are open."
        ),
    }
    return texts[kind] % {"experiment": experiment_name}


def notify(*, users, kind: str, experiment: Experiment, url: str, key: str) -> int:
    """Tell each user once (by ``key``) about the experiment; returns how many were new."""
    users = [u for u in users if u is not None and u.is_active]
    if not users:
        return 0
    existing = set(
        Notification.objects.filter(user__in=users, key=key).values_list("user_id", flat=True)
    )
    fresh = [u for u in users if u.pk not in existing]
    Notification.objects.bulk_create(
        [
            Notification(user=u, kind=kind, experiment_name=experiment.name, url=url, key=key)
            for u in fresh
        ],
        ignore_conflicts=True,
    )
    if settings.EMAIL_ENABLED and fresh:
        transaction.on_commit(lambda: _mail([u.pk for u in fresh], kind, experiment.name, url))
    return len(fresh)


def notify_mention(*, users, actor: str, place: str, url: str, key: str) -> int:
    """Tell each mentioned user once (by ``key``) who mentioned them and where: never the
    comment's text."""
    users = [u for u in users if u is not None and u.is_active]
    if not users:
        return 0
    existing = set(
        Notification.objects.filter(user__in=users, key=key).values_list("user_id", flat=True)
    )
    fresh = [u for u in users if u.pk not in existing]
    kind = Notification.Kind.MENTIONED
    Notification.objects.bulk_create(
        [
            Notification(
                user=u,
                kind=kind,
                experiment_name=place[:200],
                actor_name=actor[:150],
                url=url,
                key=key,
            )
            for u in fresh
        ],
        ignore_conflicts=True,
    )
    if settings.EMAIL_ENABLED and fresh:
        pks = [u.pk for u in fresh]
        transaction.on_commit(lambda: _mail(pks, kind, place, url, actor))
    return len(fresh)


def _mail(user_pks: list[int], kind: str, experiment_name: str, url: str, actor: str = "") -> None:
    refused = set(
        UserPreference.objects.filter(user_id__in=user_pks, notify_by_email=False).values_list(
            "user_id", flat=True
        )
    )
    site = settings.SITE_URL
    for user in get_user_model().objects.filter(pk__in=user_pks).exclude(pk__in=refused):
        if not user.email:
            continue
        with translation.override(user_language(user=user) or settings.LANGUAGE_CODE):
            text = notification_text(kind, experiment_name, actor)
            body = text + "\n\n" + (site + url) + "\n"
            try:
                send_mail(
                    _("Blind probe: %(text)s") % {"text": text[:80]},
                    body,
                    settings.DEFAULT_FROM_EMAIL,
                    [user.email],
                )
            except OSError:
                logger.exception("Could not send a notification mail to user %s", user.pk)


def notifications_read(*, user) -> int:
    return Notification.objects.filter(user=user, read_at=None).update(read_at=timezone.now())


def notify_email_choice(*, user, on: bool) -> None:
    UserPreference.objects.update_or_create(user=user, defaults={"notify_by_email": on})


def leads_of(experiment: Experiment):
    """The experiment's leads: the team's owners and editors."""
    return [
        m.user
        for m in Membership.objects.filter(
            team_id=experiment.team_id, role__in=[Role.OWNER, Role.EDITOR]
        ).select_related("user")
    ]


def notify_collected(sender, experiment_pk, **kwargs) -> None:
    """An experiment finished collecting: its leads and the team's scorers hear of it."""
    experiment = Experiment.objects.get(pk=experiment_pk)
    members = Membership.objects.filter(
        team_id=experiment.team_id, role__in=[Role.OWNER, Role.EDITOR, Role.SCORER]
    ).select_related("user")
    notify(
        users=[m.user for m in members],
        kind=Notification.Kind.COLLECTED,
        experiment=experiment,
        url=reverse("probe:experiment_detail", kwargs={"experiment_pk": experiment.pk}),
        key=f"collected:{experiment.pk}",
    )
