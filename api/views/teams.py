"""The API's endpoint for the token's user and their teams."""

from ninja import Router

from probe.models import Membership

from .. import schemas as s

router = Router()


# Who am I ------------------------------------------------------------------------------------


@router.get("/me", response=s.MeOut, summary="The token's user and their teams")
def me(request):
    memberships = Membership.objects.filter(user=request.user).select_related("team")
    return {
        "username": request.user.get_username(),
        "teams": [
            {"slug": m.team.slug, "name": m.team.name, "role": m.role}
            for m in memberships.order_by("team__name")
        ],
    }
