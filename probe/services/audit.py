"""The audit log of bank changes, imports, exports and key views."""

from ..models import AuditEvent, Bank, Team


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
