"""Pages for banks and their blocks (items are in ``views.items``).

One view serves both the full page and its htmx fragment (``request.htmx``); every write goes
through a service, every object through ``access.team_view``.
"""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django_htmx.http import HttpResponseClientRedirect, trigger_client_event

from ..access import can, can_see_bank_key, team_view
from ..downloads import attachment, no_store
from ..forms.banks import BankForm, BlockForm
from ..forms.common import apply_service_errors
from ..htmx import HtmxHttpRequest
from ..models import Bank, Block, Role, Team
from ..selectors import banks as selectors
from ..services import banks as bank_services
from ..services.audit import key_view_record

BANK_CHANGED = "bank-changed"


# Banks -------------------------------------------------------------------------------------


@team_view(scope="team_slug", get=Role.EDITOR, post=Role.EDITOR)
def bank_create(request: HtmxHttpRequest, team: Team):
    form = BankForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        bank = bank_services.bank_create(
            team=team,
            user=request.user,
            name=form.cleaned_data["name"],
            description=form.cleaned_data["description"],
        )
        messages.success(request, _("Bank created. Add a block, then items."))
        return redirect(bank)
    return render(request, "probe/bank_form.html", {"team": team, "form": form})


# A bank page shows one page of items at a time: a 10,000-item bank opens as fast as a small one.
# The filters, the count and the block summary still cover the whole bank.
ITEMS_PER_PAGE = 100


def _summary_context(request: HtmxHttpRequest, bank: Bank) -> dict:
    return {
        "bank": bank,
        "team": bank.team,
        "blocks": selectors.blocks_with_counts(bank),
        "can_edit": can(request.membership, Role.EDITOR),
        "query": request.GET.urlencode(),
    }


def _bank_context(request: HtmxHttpRequest, bank: Bank) -> dict:
    show_key = can_see_bank_key(request.membership) and request.GET.get("key") == "1"
    item_filter = selectors.ItemFilter.from_query(request.GET)
    paginator = Paginator(
        selectors.bank_items(bank, item_filter, with_key=show_key), ITEMS_PER_PAGE
    )
    page = paginator.get_page(request.GET.get("page"))
    items = list(page.object_list)
    without_page = request.GET.copy()
    without_page.pop("page", None)
    context = _summary_context(request, bank)
    context.update(
        {
            "items": items,
            "page": page,
            "page_query": without_page.urlencode(),
            "numbers": selectors.item_numbers_of(items),
            "filter": item_filter,
            "show_key": show_key,
            "can_see_key": can_see_bank_key(request.membership),
            "can_delete": can(request.membership, Role.OWNER),
        }
    )
    return context


def render_bank(request: HtmxHttpRequest, template: str, context: dict) -> HttpResponse:
    response = render(request, template, context)
    if context.get("show_key"):
        no_store(response)
    return response


@team_view(scope="bank_pk", get=Role.VIEWER)
def bank_detail(request: HtmxHttpRequest, bank: Bank):
    if request.htmx and request.htmx.target == "block-summary":
        return render(
            request, "probe/partials/_block_summary.html", _summary_context(request, bank)
        )
    context = _bank_context(request, bank)
    if context["show_key"]:
        key_view_record(
            team=bank.team, user=request.user, bank=bank, subject="bank", summary=bank.name
        )
    if request.htmx and request.htmx.target == "item-list":
        return render_bank(request, "probe/partials/_item_list.html", context)
    return render_bank(request, "probe/bank_detail.html", context)


@team_view(scope="bank_pk", get=Role.EDITOR, post=Role.EDITOR)
def bank_edit(request: HtmxHttpRequest, bank: Bank):
    form = BankForm(
        request.POST or None, instance=Bank(name=bank.name, description=bank.description)
    )
    if request.method == "POST" and form.is_valid():
        bank_services.bank_update(
            bank=bank,
            user=request.user,
            name=form.cleaned_data["name"],
            description=form.cleaned_data["description"],
        )
        if request.htmx:
            return render(
                request, "probe/partials/_bank_header.html", _header_context(request, bank)
            )
        return redirect(bank)
    if request.htmx:
        return render(
            request, "probe/partials/_bank_header_form.html", {"bank": bank, "form": form}
        )
    return render(request, "probe/bank_form.html", {"team": bank.team, "form": form, "bank": bank})


def _header_context(request: HtmxHttpRequest, bank: Bank) -> dict:
    return {"bank": bank, "can_edit": can(request.membership, Role.EDITOR)}


@team_view(scope="bank_pk", get=Role.VIEWER)
def bank_header(request: HtmxHttpRequest, bank: Bank):
    """The bank's name and description (the target of an inline edit's cancel)."""
    if request.htmx:
        return render(request, "probe/partials/_bank_header.html", _header_context(request, bank))
    return redirect(bank)


@team_view(scope="bank_pk", get=Role.OWNER, post=Role.OWNER)
def bank_delete(request: HtmxHttpRequest, bank: Bank):
    if request.method == "POST":
        if request.POST.get("confirm_name", "").strip() != bank.name:
            messages.error(request, _("Type the bank's name to confirm."))
            return redirect("probe:bank_delete", bank_pk=bank.pk)
        team = bank.team
        bank_services.bank_delete(bank=bank, user=request.user)
        messages.success(request, _("Bank “%(name)s” deleted.") % {"name": bank.name})
        if request.htmx:
            return HttpResponseClientRedirect(team.get_absolute_url())
        return redirect(team)
    counts = selectors.blocks_with_counts(bank)
    return render(
        request,
        "probe/bank_delete.html",
        {
            "bank": bank,
            "team": bank.team,
            "n_blocks": len(counts),
            "n_items": sum(b.n_items + b.n_retired for b in counts),
        },
    )


EXPORT_TYPES = {
    "json": ("json", "application/json"),
    "text": ("txt", "text/plain"),
    "csv": ("csv", "text/csv"),
    "jsonl": ("jsonl", "application/jsonl"),
}


@team_view(scope="bank_pk", get=Role.EDITOR)
def bank_export(request: HtmxHttpRequest, bank: Bank):
    file_format = request.GET.get("format", "json")
    if file_format not in EXPORT_TYPES:
        file_format = "json"
    text = bank_services.bank_export(bank=bank, user=request.user, file_format=file_format)
    extension, _content_type = EXPORT_TYPES[file_format]
    return attachment(text, name=bank.name, contents="bank", extension=extension)


# Blocks ------------------------------------------------------------------------------------


def respond_bank_changed(
    request, bank: Bank, fallback_anchor: str = "", *, notice: str = "", error: str = ""
) -> HttpResponse:
    """After a structural change: the item list's current page for htmx (with the notice in
    it), a redirect back to the same page otherwise (with the notice as a message)."""
    if request.htmx:
        context = _bank_context(request, bank)
        context.update({"notice": error or notice, "notice_error": bool(error)})
        response = render_bank(request, "probe/partials/_item_list.html", context)
        return trigger_client_event(response, BANK_CHANGED)
    if error:
        messages.error(request, error)
    elif notice:
        messages.success(request, notice)
    query = request.GET.urlencode()
    return redirect(bank.get_absolute_url() + (f"?{query}" if query else "") + fallback_anchor)


@team_view(scope="bank_pk", get=Role.EDITOR, post=Role.EDITOR)
def block_create(request: HtmxHttpRequest, bank: Bank):
    form = BlockForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            block = bank_services.block_create(
                bank=bank,
                user=request.user,
                code=form.cleaned_data["code"],
                title=form.cleaned_data["title"],
                description=form.cleaned_data["description"],
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("Block %(block)s added.") % {"block": block})
            return redirect(bank.get_absolute_url() + f"#block-{block.pk}")
    return render(request, "probe/block_form.html", {"bank": bank, "team": bank.team, "form": form})


@team_view(scope="block_pk", get=Role.EDITOR, post=Role.EDITOR)
def block_edit(request: HtmxHttpRequest, block: Block):
    bank = block.bank
    form = BlockForm(
        request.POST or None,
        instance=Block(
            bank=bank, code=block.code, title=block.title, description=block.description
        ),
    )
    if request.method == "POST" and form.is_valid():
        try:
            bank_services.block_update(
                block=block,
                user=request.user,
                code=form.cleaned_data["code"],
                title=form.cleaned_data["title"],
                description=form.cleaned_data["description"],
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            return respond_bank_changed(request, bank, f"#block-{block.pk}")
    return render(
        request,
        "probe/block_form.html",
        {"bank": bank, "team": bank.team, "form": form, "block": block},
    )


@team_view(scope="block_pk", get=None, post=Role.EDITOR)
def block_move(request: HtmxHttpRequest, block: Block):
    direction = request.POST.get("direction")
    if direction in {"up", "down"}:
        bank_services.block_move(block=block, user=request.user, direction=direction)
    return respond_bank_changed(request, block.bank, f"#block-{block.pk}")


@team_view(scope="block_pk", get=Role.EDITOR, post=Role.EDITOR)
def block_delete(request: HtmxHttpRequest, block: Block):
    bank = block.bank
    if request.method == "POST":
        bank_services.block_delete(block=block, user=request.user)
        messages.success(request, _("Block %(block)s deleted.") % {"block": block})
        if request.htmx:
            return HttpResponseClientRedirect(bank.get_absolute_url())
        return redirect(bank)
    return render(
        request,
        "probe/block_delete.html",
        {"block": block, "bank": bank, "team": bank.team, "n_items": block.items.count()},
    )
