"""The API's endpoint for model configurations."""

from ninja import Router

from probe.models import ModelConfig, Role

from .. import schemas as s
from ..auth import reach

router = Router()


@router.get(
    "/teams/{slug}/configs",
    response=list[s.ConfigOut],
    summary="Model configurations (editors: a scorer would learn which models are in play)",
)
def config_list(request, slug: str):
    team, _m = reach(request, "team_slug", slug, Role.EDITOR)
    return [
        {
            "id": c.pk,
            "label": c.label,
            "provider": c.provider,
            "model_name": c.model_name,
            "simulated": c.provider == "simulator",
            "archived": c.archived,
            "concurrency_limit": c.concurrency_limit,
        }
        for c in ModelConfig.objects.filter(team=team).order_by("label", "pk")
    ]
