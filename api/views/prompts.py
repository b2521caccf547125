"""The API's endpoint for prompt versions."""

from ninja import Path, Router

from probe.models import PromptVersion, Role

from .. import schemas as s
from ..auth import reach

router = Router()


# Prompt versions and model configurations ----------------------------------------------------


@router.get(
    "/teams/{slug}/prompts",
    response={200: list[s.PromptOut], **s.errors(401, 404, 422, 429)},
    summary="Prompt versions",
)
def prompt_list(request, slug: str = Path(..., pattern=s.SLUG_PATTERN)):
    team, _m = reach(request, "team_slug", slug, Role.VIEWER)
    return list(PromptVersion.objects.filter(team=team).order_by("name", "-version"))
