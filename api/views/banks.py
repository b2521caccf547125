"""The API's endpoints for banks: list, import, export."""

from django.http import HttpResponse
from django.utils.translation import gettext as _
from ninja import Path, Query, Router
from ninja.pagination import paginate
from ninja.responses import Status

from probe import bankformat
from probe.models import Role
from probe.selectors.banks import banks_of_team
from probe.services import banks as bank_services

from .. import schemas as s
from ..auth import reach
from ..errors import refuse
from ..pagination import Page

router = Router()


# Banks ---------------------------------------------------------------------------------------


@router.get(
    "/teams/{slug}/banks",
    response={200: list[s.BankOut], **s.errors(401, 404, 422, 429)},
    summary="The team's banks",
)
@paginate(Page)
def bank_list(request, slug: str = Path(..., pattern=s.SLUG_PATTERN)):
    team, _m = reach(request, "team_slug", slug, Role.VIEWER)
    return banks_of_team(team)


@router.post(
    "/teams/{slug}/banks",
    response={201: s.BankImportOut, **s.errors(400, 401, 403, 404, 413, 422, 429)},
    summary="Import a bank file (all or nothing)",
)
def bank_import(request, payload: s.BankImportIn, slug: str = Path(..., pattern=s.SLUG_PATTERN)):
    team, _m = reach(request, "team_slug", slug, Role.EDITOR)
    raw = payload.content.encode("utf-8", "surrogatepass")
    try:
        data = bankformat.load(raw, payload.filename)
    except bankformat.BankFormatError as error:
        raise refuse(
            _("The bank file was refused; nothing was saved."),
            [
                {
                    "field": "content" if p.line is None else f"content:{p.line}",
                    "message": str(p),
                }
                for p in error.problems
            ],
        ) from None
    bank = bank_services.bank_import(
        team=team,
        user=request.user,
        data=data,
        name=payload.name,
        source=payload.filename or _("the API"),
        file_format=bankformat.detect_format(payload.content, payload.filename),
    )
    bank.n_items = data.item_count
    return Status(
        201,
        {
            "bank": bank,
            "blocks": len(data.blocks),
            "items": data.item_count,
            "missing_keys": data.missing_key_count,
        },
    )


@router.get(
    "/banks/{bank_id}/export",
    response=s.errors(401, 403, 404, 422, 429),
    summary="The bank as a file, in JSON or text",
    openapi_extra={
        "responses": {
            200: {
                "description": "the bank file (it holds the key: Cache-Control: no-store)",
                "content": {
                    "application/json": {"schema": {"type": "object"}},
                    "text/plain": {"schema": {"type": "string"}},
                },
            }
        }
    },
)
def bank_export(request, bank_id: int, format: str = Query("json", pattern="^(json|text)$")):
    bank, _m = reach(request, "bank_pk", bank_id, Role.EDITOR)
    text = bank_services.bank_export(bank=bank, user=request.user, file_format=format)
    content_type = "application/json" if format == "json" else "text/plain; charset=utf-8"
    response = HttpResponse(text, content_type=content_type)
    response["Cache-Control"] = "no-store"  # it holds the key
    return response
