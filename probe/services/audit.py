"""The audit log of bank changes, imports, exports and key views."""

from datetime import timedelta

from django.utils import timezone

from ..models import AuditEvent, Bank, Team

# One key-view record per user, bank and what was viewed per interval: the log says who read the key and
# when, without a line for every page opened while editing.
KEY_VIEW_LOG_INTERVAL = timedelta(minutes=10)


def audit_record(
    *,
    team: Team,
    user,
    action: str,
    subject: str,
    summary: str = "",
    bank: Bank | None = None,
    details: dict | None = None,
) -> AuditEvent:
    return AuditEvent.objects.create(
        team=team,
        user=user if user is not None and user.is_authenticated else None,
        bank=bank,
        bank_name=bank.name if bank is not None else "",
        action=action,
        subject=subject,
        summary=summary[:2000],
        details=details or {},
    )


def key_view_record(
    *, team: Team, user, bank: Bank | None, subject: str, summary: str
) -> AuditEvent | None:
    """Record that ``user`` was shown the key (a bank's, or an experiment's beside a run), once
    per ``KEY_VIEW_LOG_INTERVAL``: the new record, or None when one is recent. The one write a
    page (a GET) may cause, and only through here."""
    recent = AuditEvent.objects.filter(
        team=team,
        bank=bank,
        user=user,
        action=AuditEvent.Action.KEY_VIEW,
        subject=subject,
        summary=summary[:2000],
        created__gte=timezone.now() - KEY_VIEW_LOG_INTERVAL,
    ).exists()
    if recent:
        return None
    return audit_record(
        team=team,
        user=user,
        bank=bank,
        action=AuditEvent.Action.KEY_VIEW,
        subject=subject,
        summary=summary,
    )
