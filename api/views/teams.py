"""The API's endpoint for the token's user, its team and its access."""

from ninja import Router

from probe.models import Membership

from .. import schemas as s

router = Router()


# Who am I ------------------------------------------------------------------------------------


@router.get(
    "/me",
    response={200: s.MeOut, **s.errors(401, 429)},
    summary="The token's user, its team with the user's role there, and the token's access",
)
def me(request):
    token = request.api_token
    memberships = Membership.objects.filter(user=request.user, team=token.team_id)
    return {
        "username": request.user.get_username(),
        "token": {"name": token.name, "team": token.team.slug, "access": token.access},
        "teams": [
            {"slug": m.team.slug, "name": m.team.name, "role": m.role}
            for m in memberships.select_related("team")
        ],
    }
