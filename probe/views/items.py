"""Pages for items and their key entries, and the items due for a re-check (key entries whose
sources were checked too long ago, a team setting)."""

from django.contrib import messages
from django.db.models import Q
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django_htmx.http import reswap, retarget, trigger_client_event

from ..access import can, can_see_bank_key, team_view
from ..downloads import no_store
from ..forms.banks import ItemForm, KeyEntryForm, NewItemForm, RecheckSettingForm
from ..htmx import HtmxHttpRequest
from ..models import Bank, Block, Item, Role, Team
from ..selectors import banks as selectors
from ..selectors.items import items_due_for_recheck, recheck_cutoff
from ..services import banks as bank_services
from ..services import teams as team_services
from .banks import BANK_CHANGED, ITEMS_PER_PAGE, render_bank, respond_bank_changed


@team_view(scope="team_slug", get=Role.EDITOR, post=Role.EDITOR)
def items_recheck(request: HtmxHttpRequest, team: Team):
    setting = RecheckSettingForm(initial={"recheck_after_days": team.recheck_after_days})
    if request.method == "POST" and "item" in request.POST:
        return _mark_checked(request, team)
    if request.method == "POST":
        if not can(request.membership, Role.OWNER):
            messages.error(request, _("Only an owner can change the team's settings."))
            return redirect("probe:items_recheck", team_slug=team.slug)
        setting = RecheckSettingForm(request.POST)
        if setting.is_valid():
            team_services.team_set_recheck_after(
                team=team, user=request.user, days=setting.cleaned_data["recheck_after_days"]
            )
            messages.success(request, _("Setting saved."))
            return redirect("probe:items_recheck", team_slug=team.slug)
    context = {
        "team": team,
        "items": items_due_for_recheck(team=team),
        "cutoff": recheck_cutoff(team=team),
        "setting": setting,
        "can_change_setting": can(request.membership, Role.OWNER),
    }
    return render(request, "probe/items_recheck.html", context)


def _mark_checked(request: HtmxHttpRequest, team: Team):
    pk = request.POST.get("item", "")
    item = get_object_or_404(
        Item.objects.select_related("key_entry", "block__bank"),
        pk=int(pk) if pk.isdigit() else 0,
        block__bank__team=team,
        key_entry__isnull=False,
    )
    entry = item.key_entry
    bank_services.key_entry_set(
        item=item,
        user=request.user,
        answer=entry.answer,
        flagged=entry.flagged,
        flag_note=entry.flag_note,
        sources=list(entry.sources),
        reason=_("sources checked"),
        sources_checked=timezone.localdate(),
    )
    messages.success(request, _("Marked as checked today."))
    return redirect("probe:items_recheck", team_slug=team.slug)


# Items -------------------------------------------------------------------------------------


def _row_context(request: HtmxHttpRequest, item: Item, *, show_key: bool) -> dict:
    # One row: its number is one count, not a walk over the bank (an edit stays fast at any size).
    return {
        "item": item,
        "bank": item.block.bank,
        "numbers": {item.pk: selectors.item_number(item)},
        "show_key": show_key,
        "can_edit": can(request.membership, Role.EDITOR),
        "query": request.GET.urlencode(),
    }


def _wants_key(request: HtmxHttpRequest) -> bool:
    return can_see_bank_key(request.membership) and (
        request.GET.get("key") == "1" or request.POST.get("key") == "1"
    )


@team_view(scope="bank_pk", get=Role.EDITOR, post=Role.EDITOR)
def item_create(request: HtmxHttpRequest, bank: Bank):
    block_pk = request.GET.get("block")
    initial = {"block": block_pk} if block_pk and block_pk.isdigit() else {}
    form = NewItemForm(request.POST or None, bank=bank, initial=initial)
    key_form = KeyEntryForm(request.POST or None, prefix="key")
    if request.method == "POST" and form.is_valid() and key_form.is_valid():
        item = bank_services.item_create(
            block=form.cleaned_data["block"],
            user=request.user,
            question=form.cleaned_data["question"],
            answer_format=form.cleaned_data["answer_format"],
            key_answer=key_form.cleaned_data["key_answer"],
            flagged=key_form.cleaned_data["flagged"],
            flag_note=key_form.cleaned_data["flag_note"],
            sources=key_form.cleaned_data["source_list"],
        )
        messages.success(request, _("Item added."))
        if "add_another" in request.POST:
            return redirect(
                reverse("probe:item_create", kwargs={"bank_pk": bank.pk})
                + f"?block={item.block_id}"
            )
        return redirect(bank.get_absolute_url() + f"#item-{item.pk}")
    return render(
        request,
        "probe/item_create.html",
        {"bank": bank, "team": bank.team, "form": form, "key_form": key_form},
    )


@team_view(scope="item_pk", get=Role.VIEWER)
def item_detail(request: HtmxHttpRequest, item: Item):
    """One item: the row fragment for htmx (after a cancelled edit), a page otherwise."""
    context = _row_context(request, item, show_key=_wants_key(request))
    if request.htmx:
        return render_bank(request, "probe/partials/_item_row.html", context)
    context["team"] = item.block.bank.team
    context["versions"] = (
        list(item.versions.select_related("changed_by")) if context["show_key"] else []
    )
    return render_bank(request, "probe/item_detail.html", context)


@team_view(scope="item_pk", get=Role.EDITOR, post=Role.EDITOR)
def item_edit(request: HtmxHttpRequest, item: Item):
    bank = item.block.bank
    show_key = _wants_key(request)
    form = ItemForm(
        request.POST or None,
        instance=Item(
            question=item.question,
            answer_format=item.answer_format,
            answer_kind=item.answer_kind,
            topic=item.topic,
        ),
    )
    key_form = (
        KeyEntryForm(request.POST or None, initial=KeyEntryForm.initial_for(item), prefix="key")
        if show_key
        else None
    )
    if request.method == "POST" and form.is_valid() and (key_form is None or key_form.is_valid()):
        bank_services.item_update(
            item=item,
            user=request.user,
            question=form.cleaned_data["question"],
            answer_format=form.cleaned_data["answer_format"],
            answer_kind=form.cleaned_data["answer_kind"],
            topic=form.cleaned_data["topic"],
        )
        if key_form is not None:
            bank_services.key_entry_set(
                item=item,
                user=request.user,
                answer=key_form.cleaned_data["key_answer"],
                flagged=key_form.cleaned_data["flagged"],
                flag_note=key_form.cleaned_data["flag_note"],
                sources=key_form.cleaned_data["source_list"],
                sources_checked=key_form.cleaned_data["sources_checked"],
            )
            item = Item.objects.select_related("block__bank__team", "key_entry").get(pk=item.pk)
        if request.htmx:
            response = render_bank(
                request,
                "probe/partials/_item_row.html",
                _row_context(request, item, show_key=show_key),
            )
            return trigger_client_event(response, BANK_CHANGED)
        messages.success(request, _("Item saved."))
        return redirect(
            bank.get_absolute_url() + (("?key=1" if show_key else "") + f"#item-{item.pk}")
        )
    context = _row_context(request, item, show_key=show_key)
    context.update({"form": form, "key_form": key_form, "team": bank.team})
    if request.htmx:
        return render_bank(request, "probe/partials/_item_form.html", context)
    return render_bank(request, "probe/item_edit.html", context)


@team_view(scope="item_pk", get=None, post=Role.EDITOR)
def item_move(request: HtmxHttpRequest, item: Item):
    bank = item.block.bank
    direction = request.POST.get("direction")
    block_pk = request.POST.get("block")
    if direction in {"up", "down"}:
        moved = bank_services.item_move(item=item, user=request.user, direction=direction)
        if moved and request.htmx:
            response = _swapped_rows(request, item, direction)
            if response is not None:
                return response
    elif block_pk and block_pk.isdigit():
        target = get_object_or_404(Block, pk=int(block_pk), bank=bank)
        bank_services.item_move_to_block(item=item, user=request.user, block=target)
    return respond_bank_changed(request, bank, f"#item-{item.pk}")


def _swapped_rows(request: HtmxHttpRequest, item: Item, direction: str) -> HttpResponse | None:
    """After a move up or down: only the two rows that traded places, in their new order, when
    both are on the page shown (None otherwise: the caller re-renders the page)."""
    item = Item.objects.select_related("block__bank__team", "key_entry").get(pk=item.pk)
    siblings = Item.objects.filter(block_id=item.block_id).select_related("block", "key_entry")
    if direction == "up":  # the neighbour is now just after the item
        after = Q(order__gt=item.order) | Q(order=item.order, pk__gt=item.pk)
        neighbour = siblings.filter(after).order_by("order", "pk").first()
    else:
        before = Q(order__lt=item.order) | Q(order=item.order, pk__lt=item.pk)
        neighbour = siblings.filter(before).order_by("-order", "-pk").first()
    page = request.GET.get("page") or "1"
    if neighbour is None or not page.isdigit():
        return None
    show_key = _wants_key(request)
    item_filter = selectors.ItemFilter.from_query(request.GET)
    start = (max(int(page), 1) - 1) * ITEMS_PER_PAGE
    shown = set(
        selectors.bank_items(item.block.bank, item_filter, with_key=show_key).values_list(
            "pk", flat=True
        )[start : start + ITEMS_PER_PAGE]
    )
    if not {item.pk, neighbour.pk} <= shown:
        return None
    rows = [item, neighbour] if direction == "up" else [neighbour, item]
    context = _row_context(request, item, show_key=show_key)
    context["numbers"] = selectors.item_numbers_of(rows)
    html = [f'<article id="item-{neighbour.pk}" hx-swap-oob="delete"></article>']
    for row in rows:
        context.update({"item": row, "moved": direction if row is item else ""})
        context["neighbour"] = row is neighbour
        html.append(render_to_string("probe/partials/_item_row.html", context, request=request))
    response = HttpResponse("".join(html))
    if show_key:
        no_store(response)
    return reswap(retarget(response, f"#item-{item.pk}"), "outerHTML")


@team_view(scope="bank_pk", get=None, post=Role.EDITOR)
def items_move(request: HtmxHttpRequest, bank: Bank):
    """The bank page's one move-to-block control: the selected items go to the chosen block."""
    block_pk = request.POST.get("block", "")
    if not block_pk.isdigit():
        return respond_bank_changed(
            request, bank, error=_("Choose the block to move the selected items to.")
        )
    target = get_object_or_404(Block, pk=int(block_pk), bank=bank)
    pks = [int(pk) for pk in request.POST.getlist("item") if pk.isdigit()]
    items = list(
        Item.objects.filter(pk__in=pks, block__bank=bank)
        .select_related("block__bank__team")
        .order_by("block__order", "block_id", "order", "pk")
    )
    if not items:
        return respond_bank_changed(request, bank, error=_("Select the items to move first."))
    moved = bank_services.items_move_to_block(items=items, user=request.user, block=target)
    notice = ngettext(
        "%(n)s item moved to block %(block)s.",
        "%(n)s items moved to block %(block)s.",
        len(moved),
    ) % {"n": len(moved), "block": target.code}
    return respond_bank_changed(request, bank, notice=notice)


@team_view(scope="item_pk", get=None, post=Role.EDITOR)
def item_retire(request: HtmxHttpRequest, item: Item):
    retired = request.POST.get("retired") == "1"
    reason = request.POST.get("reason", "")[:2000]
    bank_services.item_set_retired(item=item, user=request.user, retired=retired, reason=reason)
    return respond_bank_changed(request, item.block.bank, f"#item-{item.pk}")


@team_view(scope="item_pk", get=Role.EDITOR, post=Role.EDITOR)
def item_delete(request: HtmxHttpRequest, item: Item):
    bank = item.block.bank
    if request.method == "POST":
        bank_services.item_delete(item=item, user=request.user)
        if request.htmx:
            return respond_bank_changed(request, bank)
        messages.success(request, _("Item deleted."))
        return redirect(bank)
    return render(
        request,
        "probe/item_delete.html",
        {
            "item": item,
            "bank": bank,
            "team": bank.team,
            "number": selectors.item_numbers(bank).get(item.pk, ""),
        },
    )
