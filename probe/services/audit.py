"""The audit log of bank changes, imports, exports and key views."""

from datetime import timedelta

from django.utils import timezone

from ..models import AuditEvent, Bank, Team

# One key-view record per user, bank and what was viewed per interval: the log says who read the key and
# when, without a line for every page opened while editing. A bank's export (its key with it) is
# recorded as often: once per user, bank and format.
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
        user=_recorded_user(user),
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
    per ``KEY_VIEW_LOG_INTERVAL``: the new record, or None when one is recent. With
    ``export_record``, the one write a page (a GET) may cause, and only through here."""
    if _recent(
        team=team,
        bank=bank,
        user=user,
        action=AuditEvent.Action.KEY_VIEW,
        subject=subject,
        summary=summary[:2000],
    ):
        return None
    return audit_record(
        team=team,
        user=user,
        bank=bank,
        action=AuditEvent.Action.KEY_VIEW,
        subject=subject,
        summary=summary,
    )


def export_record(*, bank: Bank, user, file_format: str, items: int) -> AuditEvent | None:
    """Record that ``user`` exported ``bank`` (its key with it) as ``file_format``, once per
    ``KEY_VIEW_LOG_INTERVAL`` for each user, bank and format: the new record, or None when one
    is recent (a GET of the export writes no more than that)."""
    if _recent(
        team=bank.team,
        bank=bank,
        user=_recorded_user(user),
        action=AuditEvent.Action.EXPORT,
        subject="bank",
        details__format=file_format,
    ):
        return None
    return audit_record(
        team=bank.team,
        user=user,
        bank=bank,
        action=AuditEvent.Action.EXPORT,
        subject="bank",
        summary=bank.name,
        details={"format": file_format, "items": items},
    )


def _recorded_user(user):
    return user if user is not None and user.is_authenticated else None


def _recent(**match) -> bool:
    """Whether a record matching ``match`` was made within ``KEY_VIEW_LOG_INTERVAL``."""
    since = timezone.now() - KEY_VIEW_LOG_INTERVAL
    return AuditEvent.objects.filter(created__gte=since, **match).exists()
