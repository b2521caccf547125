"""The teams of the signed-in user, for the navigation bar."""

from .models import Membership


def teams(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    memberships = list(Membership.objects.filter(user=user).select_related("team"))
    return {"my_memberships": memberships}
