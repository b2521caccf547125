"""Reads for the team pages: members, pending invitations and the audit log."""

from django.db.models import QuerySet

from ..models import AuditEvent, Invitation, Membership, Team


def team_members(team: Team) -> QuerySet[Membership]:
    return team.memberships.select_related("user").order_by("user__username")


def team_invitations_pending(team: Team) -> QuerySet[Invitation]:
    """Invitations not yet accepted nor withdrawn, newest first; expired ones included (marked
    in the page) so an owner sees that a link went unused."""
    return team.invitations.filter(accepted=None, revoked=None).select_related(
        "invitee", "created_by"
    )


def audit_events(
    team: Team, *, bank_pk: int | None = None, action: str = ""
) -> QuerySet[AuditEvent]:
    qs = team.audit_events.select_related("user")
    if bank_pk:
        qs = qs.filter(bank_id=bank_pk)
    if action:
        qs = qs.filter(action=action)
    return qs
