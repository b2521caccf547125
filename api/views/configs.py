"""The API's model configurations: the list, and a new one through the same service, and so the
same checks, as the configuration form (the provider's adapter checks the settings it declares)."""

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from ninja import Path, Router
from ninja.pagination import paginate
from ninja.responses import Status

from probe.models import ModelConfig, Role
from probe.services import configs as config_services

from .. import schemas as s
from ..auth import reach
from ..errors import Refused, refuse
from ..pagination import Page

router = Router()


def refusal(error: ValidationError) -> Refused:
    """A service's ValidationError as the API's refusal, one problem per message and field."""
    problems = [
        {"field": name, "message": message}
        for name, messages in error.message_dict.items()
        for message in messages
    ]
    return refuse(_("Nothing was saved."), problems)


@router.get(
    "/teams/{slug}/configs",
    response={200: list[s.ConfigOut], **s.errors(401, 403, 404, 422, 429)},
    summary="Model configurations (editors: a scorer would learn which models are in play)",
)
@paginate(Page)
def config_list(request, slug: str = Path(..., pattern=s.SLUG_PATTERN)):
    team, _m = reach(request, "team_slug", slug, Role.EDITOR)
    return ModelConfig.objects.filter(team=team).order_by("label", "pk")


@router.post(
    "/teams/{slug}/configs",
    response={201: s.ConfigOut, **s.errors(400, 401, 403, 404, 413, 422, 429)},
    summary="Create a model configuration (the key is named by its environment variable)",
)
def config_create(request, payload: s.ConfigIn, slug: str = Path(..., pattern=s.SLUG_PATTERN)):
    team, _m = reach(request, "team_slug", slug, Role.EDITOR)
    try:
        config = config_services.config_create(team=team, user=request.user, **payload.model_dump())
    except ValidationError as error:
        raise refusal(error) from None
    return Status(201, config)
