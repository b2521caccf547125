"""The teams of the signed-in user, for the navigation bar."""

from .models import Membership


def teams(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    memberships = list(Membership.objects.filter(user=user).select_related("team"))
    current = getattr(request, "membership", None)  # set by access.team_view
    role = current.role if current is not None else ""
    return {
        "my_memberships": memberships,
        "team_role": role,
        "team_can_edit": role in ("editor", "owner"),
        "team_is_owner": role == "owner",
    }
