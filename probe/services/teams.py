"""Teams and their members: owners invite people, change roles, remove members and hand
over password-reset links.

Nobody joins a team without consent: an owner creates an invitation (a one-time, expiring
link) addressed to an e-mail address, or to an account that already shares a team with the
owner, and the invitee accepts it. No reply tells an owner whether some username exists, and
staff or superuser accounts are never put into a team this way.
"""

import hashlib
import logging
import secrets
import zoneinfo
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.encoding import force_bytes
from django.utils.formats import date_format
from django.utils.http import urlsafe_base64_encode
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from ..models import AuditEvent, Invitation, Membership, Role, Team
from ..models.teams import role_at_least
from ..selectors.preferences import user_language, user_time_zone
from .audit import audit_record
from .prompts import prompt_defaults_ensure

logger = logging.getLogger(__name__)

# What an invitee creating an account hears when their username is in use: what to do next,
# nothing about the account that holds it.
USERNAME_TAKEN = gettext_lazy(
    "This username is taken: choose another one. If it is your account, log in to accept the "
    "invitation instead."
)


@transaction.atomic
def team_create(*, name: str, owner, slug: str = "") -> Team:
    base = slugify(slug or name)[:50] or "team"
    candidate, n = base, 1
    while Team.objects.filter(slug=candidate).exists():
        n += 1
        candidate = f"{base}-{n}"
    team = Team.objects.create(name=name, slug=candidate)
    Membership.objects.create(team=team, user=owner, role=Role.OWNER)
    prompt_defaults_ensure(team=team)
    return team


def _owners_left(team: Team, excluding: Membership) -> int:
    return team.memberships.filter(role=Role.OWNER).exclude(pk=excluding.pk).count()


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


# Invitations -------------------------------------------------------------------------------


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _privileged(user) -> bool:
    return user.is_staff or user.is_superuser


def _shares_a_team(user, other) -> bool:
    return Membership.objects.filter(user=user, team__memberships__user=other).exists()


@dataclass(frozen=True)
class IssuedInvitation:
    invitation: Invitation
    path: str  # the one-time link (a path; the view makes it absolute); shown once
    mailed: bool


NOT_INVITABLE = gettext_lazy(
    "By username you can invite only someone who already shares one of your teams. "
    "Invite anyone else by their e-mail address."
)


# What accepting an invitation does beyond the membership: scoring registers one when its app
# starts (making the invitee a scorer of the experiments the invitation names), so that probe
# never imports it. Each hook takes (invitation, membership) and may return where to land.
_accept_hooks: list = []


def register_invitation_hook(hook) -> None:
    if hook not in _accept_hooks:
        _accept_hooks.append(hook)


def invitation_landing(*, invitation: Invitation, membership: Membership) -> str:
    """Where the invitee goes once in: the first experiment's scoring page, or the team."""
    for hook in _accept_hooks:
        url = hook(invitation=invitation, membership=membership)
        if url:
            return url
    return invitation.team.get_absolute_url()


@transaction.atomic
def invitation_create(
    *,
    team: Team,
    by,
    invitee: str,
    role: str,
    site_url: str = "",
    experiments=(),
    all_experiments: bool = False,
) -> IssuedInvitation:
    """Invite by e-mail address or by the username of someone who shares a team with `by`.

    `site_url` (scheme and host) makes the mailed link absolute. A new invitation to the same
    address or account replaces a pending one (the old link stops
    working), so an owner who lost a link simply invites again.
    """
    invitee = invitee.strip()
    if role not in Role.values:
        raise ValidationError({"role": _("Choose a role.")})
    email, user = "", None
    if "@" in invitee:
        try:
            validate_email(invitee)
        except ValidationError:
            raise ValidationError({"invitee": _("Enter a valid e-mail address.")}) from None
        email = invitee.lower()
    else:
        user = get_user_model().objects.filter(username=invitee, is_active=True).first()
        # One message for "no such user", "not someone you share a team with" and "a staff
        # account": the reply must not tell an owner which usernames exist.
        if user is None or _privileged(user) or not _shares_a_team(by, user):
            raise ValidationError({"invitee": NOT_INVITABLE})
        if Membership.objects.filter(team=team, user=user).exists():
            raise ValidationError(
                {"invitee": _("%(name)s is already a member of this team.") % {"name": invitee}}
            )
    now = timezone.now()
    pending = Invitation.objects.filter(team=team, accepted=None, revoked=None)
    pending.filter(email=email, invitee=user).update(revoked=now)
    token = secrets.token_urlsafe(32)
    invitation = Invitation.objects.create(
        team=team,
        role=role,
        email=email,
        invitee=user,
        token_hash=_token_hash(token),
        created_by=by,
        expires=now + timedelta(days=settings.INVITATION_DAYS),
    )
    experiments = [e for e in experiments if e.team_id == team.pk]
    if (experiments or all_experiments) and not role_at_least(role, Role.SCORER):
        raise ValidationError(
            {"role": _("Someone invited to score needs the role scorer or above.")}
        )
    if all_experiments:
        invitation.all_experiments = True
        invitation.save(update_fields=["all_experiments"])
    elif experiments:
        invitation.experiments.set(experiments)
    path = reverse("invitation_accept", kwargs={"token": token})
    audit_record(
        team=team,
        user=by,
        action=AuditEvent.Action.MEMBER,
        subject="invitation",
        summary=_("%(who)s invited as %(role)s")
        % {"who": invitation.addressee, "role": invitation.get_role_display()},
    )
    mailed = False
    if email and settings.EMAIL_ENABLED:
        mailed = _send_invitation_mail(invitation=invitation, url=site_url + path)
    return IssuedInvitation(invitation=invitation, path=path, mailed=mailed)


def _mail_reader(invitation: Invitation):
    """Who reads the invitation mail, for its language and time zone: the account the address
    belongs to when there is one, else the inviter (an invitee the app does not know yet reads
    it in the language the inviter works in)."""
    reader = invitation.invitee
    if reader is None and invitation.email:
        reader = get_user_model().objects.filter(email__iexact=invitation.email).first()
    return reader


def _send_invitation_mail(*, invitation: Invitation, url: str) -> bool:
    reader = _mail_reader(invitation)
    inviter = invitation.created_by
    language = (
        (user_language(user=reader) if reader else None)
        or (user_language(user=inviter) if inviter else None)
        or translation.get_language()
        or settings.LANGUAGE_CODE
    )
    zone = user_time_zone(user=reader or inviter) if (reader or inviter) else settings.TIME_ZONE
    with translation.override(language), timezone.override(zoneinfo.ZoneInfo(zone)):
        subject = _("Invitation to %(team)s on %(product)s") % {
            "team": invitation.team.name,
            "product": _("Blind probe"),
        }
        body = _(
            "You are invited to join the team %(team)s on %(product)s as %(role)s.\n\n"
            "Open this link to accept (it works once, until %(expires)s):\n%(url)s\n"
        ) % {
            "team": invitation.team.name,
            "product": _("Blind probe"),
            "role": invitation.get_role_display(),
            "expires": date_format(timezone.localtime(invitation.expires), "DATETIME_FORMAT"),
            "url": url,
        }
    try:
        send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [invitation.email])
    except OSError:
        # The owner still has the link on screen to hand over; the failure goes to the log.
        logger.exception("Could not send the invitation mail for team %s", invitation.team_id)
        return False
    return True


def invitation_find(*, token: str) -> Invitation | None:
    return (
        Invitation.objects.select_related("team", "invitee", "created_by")
        .filter(token_hash=_token_hash(token))
        .first()
    )


def invitation_problem(*, invitation: Invitation | None, user=None) -> str:
    """Why this invitation cannot be accepted (by `user`, when given), or ""."""
    if invitation is None or invitation.revoked:
        return _("This invitation link is not valid: it may have been withdrawn or mistyped.")
    if invitation.accepted:
        return _("This invitation has already been used.")
    if invitation.expires <= timezone.now():
        return _("This invitation has expired. Ask the team's owner for a new one.")
    if user is not None and user.is_authenticated:
        if _privileged(user):
            return _(
                "Staff and administrator accounts are not added to teams by invitation; "
                "an administrator adds them in the admin."
            )
        if Membership.objects.filter(team=invitation.team, user=user).exists():
            return _(
                "You are already a member of %(team)s. The invitation stays open for the "
                "person it was meant for."
            ) % {"team": invitation.team.name}
        if invitation.invitee_id and invitation.invitee_id != user.pk:
            return _(
                "This invitation is for another account. Log out, then open the link again "
                "and log in as the invited account."
            )
    return ""


@transaction.atomic
def invitation_accept(*, invitation: Invitation, user) -> Membership:
    invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
    problem = invitation_problem(invitation=invitation, user=user)
    if problem:
        raise ValidationError(problem)
    invitation.accepted = timezone.now()
    invitation.accepted_by = user
    invitation.save(update_fields=["accepted", "accepted_by"])
    membership = Membership.objects.create(
        team=invitation.team,
        user=user,
        role=invitation.role,
        scores_all_experiments=invitation.all_experiments,
    )
    audit_record(
        team=invitation.team,
        user=user,
        action=AuditEvent.Action.MEMBER,
        subject="invitation",
        summary=_("%(name)s joined as %(role)s (invitation to %(who)s)")
        % {
            "name": user.get_username(),
            "role": invitation.get_role_display(),
            "who": invitation.addressee,
        },
    )
    # The experiments it names (scoring's hook): where the invitee lands.
    membership.landing = invitation_landing(invitation=invitation, membership=membership)
    return membership


@transaction.atomic
def invitation_accept_with_new_account(
    *, invitation: Invitation, username: str, password: str
) -> Membership:
    """Create the invitee's account from an e-mail invitation and make them a member."""
    invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
    problem = invitation_problem(invitation=invitation)
    if problem:
        raise ValidationError(problem)
    if invitation.invitee_id:
        raise ValidationError(_("This invitation is for an existing account: log in to accept it."))
    users = get_user_model().objects
    taken = ValidationError({"username": USERNAME_TAKEN}, code="username_taken")
    if users.filter(username__iexact=username).exists():
        raise taken
    try:
        # A savepoint: the same name created a moment ago by someone else is a clear refusal,
        # not a broken transaction.
        with transaction.atomic():
            user = users.create_user(username=username, email=invitation.email, password=password)
    except IntegrityError:
        raise taken from None
    return invitation_accept(invitation=invitation, user=user)


@transaction.atomic
def invitation_revoke(*, invitation: Invitation, by) -> None:
    invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
    if invitation.accepted:
        raise ValidationError(_("This invitation has already been accepted."))
    if invitation.revoked:
        return
    invitation.revoked = timezone.now()
    invitation.save(update_fields=["revoked"])
    audit_record(
        team=invitation.team,
        user=by,
        action=AuditEvent.Action.MEMBER,
        subject="invitation",
        summary=_("Invitation to %(who)s withdrawn") % {"who": invitation.addressee},
    )


# Password reset links ----------------------------------------------------------------------


def password_reset_problem(*, membership: Membership, by) -> str:
    """Why `by` may not hand over a reset link for this member, or "".

    A reset link takes over the account, so an owner may make one only for an account whose
    every team they own: never for themselves here (they change their own password), never for
    a staff account, never for someone who is also a member of a team they do not own.
    """
    user = membership.user
    if user.pk == by.pk:
        return _("Change your own password on your account page.")
    if _privileged(user):
        return _("Staff and administrator passwords are reset by an administrator.")
    owned = Membership.objects.filter(user=by, role=Role.OWNER).values("team_id")
    foreign = Membership.objects.filter(user=user).exclude(team_id__in=owned)
    if foreign.exists():
        return _(
            "%(name)s is also a member of a team you do not own; ask an administrator to "
            "reset this password."
        ) % {"name": user.get_username()}
    return ""


def password_reset_link_create(*, membership: Membership, by) -> str:
    """A one-time link that lets the member set a new password (Django's reset token: it
    stops working once used, once the password changes, or after PASSWORD_RESET_TIMEOUT)."""
    problem = password_reset_problem(membership=membership, by=by)
    if problem:
        raise ValidationError(problem)
    user = membership.user
    path = reverse(
        "password_reset_confirm",
        kwargs={
            "uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
            "token": default_token_generator.make_token(user),
        },
    )
    audit_record(
        team=membership.team,
        user=by,
        action=AuditEvent.Action.MEMBER,
        subject="password reset",
        summary=_("Password-reset link made for %(name)s") % {"name": user.get_username()},
    )
    return path


# Login lockouts ----------------------------------------------------------------------------


def login_lockout_record(*, username: str, ip_address: str) -> None:
    """Note a login lockout in the audit log of every team of the account it names (once per
    failure window, whatever the number of addresses trying it)."""
    user = get_user_model().objects.filter(username=username).first() if username else None
    if user is None:
        return
    since = timezone.now() - timedelta(hours=settings.LOGIN_FAILURE_WINDOW_HOURS)
    summary = _("Logins as %(name)s refused after repeated wrong passwords (from %(ip)s)") % {
        "name": username,
        "ip": ip_address or "?",
    }
    for membership in Membership.objects.filter(user=user).select_related("team"):
        already = membership.team.audit_events.filter(
            action=AuditEvent.Action.LOGIN_LOCKED,
            created__gte=since,
            details__username=username,
        )
        if not already.exists():
            audit_record(
                team=membership.team,
                user=None,
                action=AuditEvent.Action.LOGIN_LOCKED,
                subject="login",
                summary=summary,
                details={"username": username, "ip_address": ip_address},
            )


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


@transaction.atomic
def team_set_require_oidc(*, team: Team, user, required: bool) -> Team:
    """Whether the team's members sign in only through the identity provider."""
    if team.require_oidc != required:
        team.require_oidc = required
        team.save(update_fields=["require_oidc"])
        audit_record(
            team=team,
            user=user,
            action=AuditEvent.Action.UPDATE,
            subject="team",
            summary=team.name,
            details={"changes": {"require_oidc": [not required, required]}},
        )
    return team
