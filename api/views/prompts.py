"""The API's endpoint for prompt versions."""

from ninja import Path, Router
from ninja.pagination import paginate

from probe.models import PromptVersion, Role

from .. import schemas as s
from ..auth import reach
from ..pagination import Page

router = Router()


# Prompt versions and model configurations ----------------------------------------------------


@router.get(
    "/teams/{slug}/prompts",
    response={200: list[s.PromptOut], **s.errors(401, 404, 422, 429)},
    summary="Prompt versions",
)
@paginate(Page)
def prompt_list(request, slug: str = Path(..., pattern=s.SLUG_PATTERN)):
    team, _m = reach(request, "team_slug", slug, Role.VIEWER)
    return PromptVersion.objects.filter(team=team).order_by("name", "-version", "pk")
