"""The teams of the signed-in user, for the navigation bar."""

from django.utils.functional import SimpleLazyObject

from .models import Membership, Notification


def teams(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    # Lazy: htmx fragments never show the navigation, so they never pay for this query.
    memberships = SimpleLazyObject(
        lambda: list(Membership.objects.filter(user=user).select_related("team"))
    )
    current = getattr(request, "membership", None)  # set by access.team_view
    role = current.role if current is not None else ""
    return {
        # The top bar's count of unread notifications (lazy: fragments never show it).
        "unread_notifications": SimpleLazyObject(
            lambda: Notification.objects.filter(user=user, read_at=None).count()
        ),
        "nav_section": _section(request),
        "my_memberships": memberships,
        "team_role": role,
        # Buttons a role cannot use are not shown to it (a viewer never sees "Score blind").
        "team_can_score": role in ("scorer", "editor", "owner"),
        "team_can_edit": role in ("editor", "owner"),
        "team_is_owner": role == "owner",
    }


def _section(request) -> str:
    """Which navigation entry the current page belongs to."""
    match = getattr(request, "resolver_match", None)
    if match is None or not match.url_name:
        return ""
    name, namespace = match.url_name, match.namespace
    if namespace == "scoring":
        return "banks" if name.startswith("bank_") else "experiments"
    for prefix, section in (
        ("experiment", "experiments"),
        ("run_", "experiments"),
        ("prompt", "prompts"),
        ("config", "models"),
        ("member", "members"),
        ("audit", "audit"),
    ):
        if name.startswith(prefix):
            return section
    return "banks"
