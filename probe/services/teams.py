"""Teams and their members; owners manage members."""

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.text import slugify
from django.utils.translation import gettext as _

from ..models import AuditEvent, Membership, Role, Team
from .audit import audit_record


@transaction.atomic
def team_create(*, name: str, owner, slug: str = "") -> Team:
    base = slugify(slug or name)[:50] or "team"
    candidate, n = base, 1
    while Team.objects.filter(slug=candidate).exists():
        n += 1
        candidate = f"{base}-{n}"
    team = Team.objects.create(name=name, slug=candidate)
    Membership.objects.create(team=team, user=owner, role=Role.OWNER)
    from .prompts import prompt_defaults_ensure

    prompt_defaults_ensure(team=team)
    return team


def _owners_left(team: Team, excluding: Membership) -> int:
    return team.memberships.filter(role=Role.OWNER).exclude(pk=excluding.pk).count()


@transaction.atomic
def member_add(*, team: Team, by, username: str, role: str) -> Membership:
    user = get_user_model().objects.filter(username=username.strip()).first()
    if user is None:
        raise ValidationError(
            {"username": _("There is no user called %(name)s.") % {"name": username}}
        )
    if Membership.objects.filter(team=team, user=user).exists():
        raise ValidationError(
            {"username": _("%(name)s is already a member of this team.") % {"name": username}}
        )
    membership = Membership.objects.create(team=team, user=user, role=role)
    audit_record(
        team=team,
        user=by,
        action=AuditEvent.Action.MEMBER,
        subject="member",
        summary=_("%(name)s added as %(role)s") % {"name": user.username, "role": role},
    )
    return membership


@transaction.atomic
def member_set_role(*, membership: Membership, by, role: str) -> Membership:
    if membership.role == role:
        return membership
    if membership.role == Role.OWNER and _owners_left(membership.team, membership) == 0:
        raise ValidationError({"role": _("A team needs at least one owner.")})
    old = membership.role
    membership.role = role
    membership.save(update_fields=["role"])
    audit_record(
        team=membership.team,
        user=by,
        action=AuditEvent.Action.MEMBER,
        subject="member",
        summary=_("%(name)s: %(old)s to %(new)s")
        % {"name": membership.user.username, "old": old, "new": role},
    )
    return membership


@transaction.atomic
def member_remove(*, membership: Membership, by) -> None:
    if membership.role == Role.OWNER and _owners_left(membership.team, membership) == 0:
        raise ValidationError(_("A team needs at least one owner."))
    audit_record(
        team=membership.team,
        user=by,
        action=AuditEvent.Action.MEMBER,
        subject="member",
        summary=_("%(name)s removed") % {"name": membership.user.username},
    )
    membership.delete()


@transaction.atomic
def team_set_recheck_after(*, team: Team, user, days: int) -> Team:
    """How many days after their last check a key entry's sources are due for a re-check."""
    if days < 1:
        raise ValidationError({"recheck_after_days": _("At least one day.")})
    if team.recheck_after_days != days:
        old = team.recheck_after_days
        team.recheck_after_days = days
        team.save(update_fields=["recheck_after_days"])
        audit_record(
            team=team,
            user=user,
            action=AuditEvent.Action.UPDATE,
            subject="team",
            summary=team.name,
            details={"changes": {"recheck_after_days": [old, days]}},
        )
    return team
