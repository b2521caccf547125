"""Pages for teams, banks, blocks, items and key entries.

One view serves both the full page and its htmx fragment (``request.htmx``); every write goes
through a service, every object through ``access.team_view``.
"""

from datetime import timedelta

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db import connection
from django.db.models import Q
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET
from django_htmx.http import HttpResponseClientRedirect, reswap, retarget, trigger_client_event

from ..access import can, can_see_bank_key, team_view
from ..downloads import attachment, file_stem, no_store
from ..forms.banks import (
    BankForm,
    BlockForm,
    InvitationForm,
    ItemForm,
    KeyEntryForm,
    MemberRoleForm,
    NewItemForm,
    apply_service_errors,
)
from ..models import AuditEvent, Bank, Block, Item, Membership, Role, Team
from ..selectors import banks as selectors
from ..services import banks as bank_services
from ..services import teams as team_services
from ..services.audit import audit_record

BANK_CHANGED = "bank-changed"


# Home and health ---------------------------------------------------------------------------


def home(request):
    membership = Membership.objects.filter(user=request.user).select_related("team").first()
    if membership is None:
        return render(request, "probe/no_team.html")
    return redirect(membership.team)


@login_not_required
@require_GET
def healthz(request):
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return HttpResponse("ok", content_type="text/plain")


# Teams -------------------------------------------------------------------------------------


@team_view(scope="team_slug", get=Role.VIEWER)
def team_home(request, team: Team):
    return render(
        request,
        "probe/team_home.html",
        {
            "team": team,
            "banks": selectors.banks_of_team(team),
            "can_edit": can(request.membership, Role.EDITOR),
        },
    )


def _member_page(request, team: Team, form: InvitationForm, *, status: int = 200):
    return render(
        request,
        "probe/member_list.html",
        {
            "team": team,
            "members": selectors.team_members(team),
            "invitations": selectors.team_invitations_pending(team),
            "form": form,
            "roles": Role.choices,
            "email_enabled": settings.EMAIL_ENABLED,
            "now": timezone.now(),
        },
        status=status,
    )


@team_view(scope="team_slug", get=Role.OWNER, post=Role.OWNER)
def member_list(request, team: Team):
    form = InvitationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            issued = team_services.invitation_create(
                team=team,
                by=request.user,
                invitee=form.cleaned_data["invitee"],
                role=form.cleaned_data["role"],
                site_url=request.build_absolute_uri("/").rstrip("/"),
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            # The link exists only now (the database keeps its hash): show it this once.
            return render(
                request,
                "probe/link_issued.html",
                {
                    "team": team,
                    "kind": "invitation",
                    "invitation": issued.invitation,
                    "url": request.build_absolute_uri(issued.path),
                    "mailed": issued.mailed,
                },
            )
    return _member_page(request, team, form, status=422 if form.errors else 200)


@team_view(scope="invitation_pk", get=None, post=Role.OWNER)
def invitation_revoke(request, invitation):
    try:
        team_services.invitation_revoke(invitation=invitation, by=request.user)
        messages.success(
            request, _("The invitation to %(who)s is withdrawn.") % {"who": invitation.addressee}
        )
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    return redirect("probe:member_list", team_slug=invitation.team.slug)


@team_view(scope="member_pk", get=None, post=Role.OWNER)
def member_reset_link(request, membership: Membership):
    try:
        path = team_services.password_reset_link_create(membership=membership, by=request.user)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
        return redirect("probe:member_list", team_slug=membership.team.slug)
    return render(
        request,
        "probe/link_issued.html",
        {
            "team": membership.team,
            "kind": "reset",
            "member": membership.user,
            "url": request.build_absolute_uri(path),
            "hours": settings.PASSWORD_RESET_TIMEOUT // 3600,
        },
    )


@team_view(scope="member_pk", get=None, post=Role.OWNER)
def member_update(request, membership: Membership):
    form = MemberRoleForm(request.POST)
    if form.is_valid():
        try:
            team_services.member_set_role(
                membership=membership, by=request.user, role=form.cleaned_data["role"]
            )
            messages.success(request, _("Role changed."))
        except ValidationError as error:
            messages.error(request, " ".join(error.messages))
    else:
        messages.error(request, _("Choose a role."))
    return redirect("probe:member_list", team_slug=membership.team.slug)


@team_view(scope="member_pk", get=None, post=Role.OWNER)
def member_remove(request, membership: Membership):
    slug = membership.team.slug
    try:
        team_services.member_remove(membership=membership, by=request.user)
        messages.success(request, _("Member removed."))
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    if (
        membership.user_id == request.user.pk
        and not Membership.objects.filter(team__slug=slug, user=request.user).exists()
    ):
        return redirect("home")
    return redirect("probe:member_list", team_slug=slug)


@team_view(scope="team_slug", get=Role.OWNER)
def audit_log(request, team: Team):
    bank_pk = request.GET.get("bank") or ""
    action = request.GET.get("action") or ""
    events = selectors.audit_events(
        team,
        bank_pk=int(bank_pk) if bank_pk.isdigit() else None,
        action=action if action in AuditEvent.Action.values else "",
    )
    page = Paginator(events, 50).get_page(request.GET.get("page"))
    return render(
        request,
        "probe/audit_log.html",
        {
            "team": team,
            "page": page,
            "banks": team.banks.order_by("name"),
            "actions": AuditEvent.Action.choices,
            "selected_bank": bank_pk,
            "selected_action": action,
        },
    )


# Banks -------------------------------------------------------------------------------------


@team_view(scope="team_slug", get=Role.EDITOR, post=Role.EDITOR)
def bank_create(request, team: Team):
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


KEY_VIEW_LOG_INTERVAL = timedelta(minutes=10)


def _log_key_view(request, bank: Bank) -> None:
    # One record per user and bank per interval: the log says who read the key and when,
    # without a line for every click while editing.
    recent = AuditEvent.objects.filter(
        bank=bank,
        user=request.user,
        action=AuditEvent.Action.KEY_VIEW,
        created__gte=timezone.now() - KEY_VIEW_LOG_INTERVAL,
    ).exists()
    if not recent:
        audit_record(
            team=bank.team,
            user=request.user,
            bank=bank,
            action=AuditEvent.Action.KEY_VIEW,
            subject="bank",
            summary=bank.name,
        )


# A bank page shows one page of items at a time: a 10,000-item bank opens as fast as a small one.
# The filters, the count and the block summary still cover the whole bank.
ITEMS_PER_PAGE = 100


def _summary_context(request, bank: Bank) -> dict:
    return {
        "bank": bank,
        "team": bank.team,
        "blocks": selectors.blocks_with_counts(bank),
        "can_edit": can(request.membership, Role.EDITOR),
        "query": request.GET.urlencode(),
    }


def _bank_context(request, bank: Bank) -> dict:
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


def _render_bank(request, template: str, context: dict) -> HttpResponse:
    response = render(request, template, context)
    if context.get("show_key"):
        no_store(response)
    return response


@team_view(scope="bank_pk", get=Role.VIEWER)
def bank_detail(request, bank: Bank):
    if request.htmx and request.htmx.target == "block-summary":
        return render(
            request, "probe/partials/_block_summary.html", _summary_context(request, bank)
        )
    context = _bank_context(request, bank)
    if context["show_key"]:
        _log_key_view(request, bank)
    if request.htmx and request.htmx.target == "item-list":
        return _render_bank(request, "probe/partials/_item_list.html", context)
    return _render_bank(request, "probe/bank_detail.html", context)


@team_view(scope="bank_pk", get=Role.EDITOR, post=Role.EDITOR)
def bank_edit(request, bank: Bank):
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


def _header_context(request, bank: Bank) -> dict:
    return {"bank": bank, "can_edit": can(request.membership, Role.EDITOR)}


@team_view(scope="bank_pk", get=Role.VIEWER)
def bank_header(request, bank: Bank):
    """The bank's name and description (the target of an inline edit's cancel)."""
    if request.htmx:
        return render(request, "probe/partials/_bank_header.html", _header_context(request, bank))
    return redirect(bank)


@team_view(scope="bank_pk", get=Role.OWNER, post=Role.OWNER)
def bank_delete(request, bank: Bank):
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
def bank_export(request, bank: Bank):
    file_format = request.GET.get("format", "json")
    if file_format not in EXPORT_TYPES:
        file_format = "json"
    text = bank_services.bank_export(bank=bank, user=request.user, file_format=file_format)
    extension, _content_type = EXPORT_TYPES[file_format]
    return attachment(text, filename=file_stem(bank.name, "bank"), extension=extension)


# Blocks ------------------------------------------------------------------------------------


def _respond_bank_changed(
    request, bank: Bank, fallback_anchor: str = "", *, notice: str = "", error: str = ""
) -> HttpResponse:
    """After a structural change: the item list's current page for htmx (with the notice in
    it), a redirect back to the same page otherwise (with the notice as a message)."""
    if request.htmx:
        context = _bank_context(request, bank)
        context.update({"notice": error or notice, "notice_error": bool(error)})
        response = _render_bank(request, "probe/partials/_item_list.html", context)
        return trigger_client_event(response, BANK_CHANGED)
    if error:
        messages.error(request, error)
    elif notice:
        messages.success(request, notice)
    query = request.GET.urlencode()
    return redirect(bank.get_absolute_url() + (f"?{query}" if query else "") + fallback_anchor)


@team_view(scope="bank_pk", get=Role.EDITOR, post=Role.EDITOR)
def block_create(request, bank: Bank):
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
def block_edit(request, block: Block):
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
            return _respond_bank_changed(request, bank, f"#block-{block.pk}")
    return render(
        request,
        "probe/block_form.html",
        {"bank": bank, "team": bank.team, "form": form, "block": block},
    )


@team_view(scope="block_pk", get=None, post=Role.EDITOR)
def block_move(request, block: Block):
    direction = request.POST.get("direction")
    if direction in {"up", "down"}:
        bank_services.block_move(block=block, user=request.user, direction=direction)
    return _respond_bank_changed(request, block.bank, f"#block-{block.pk}")


@team_view(scope="block_pk", get=Role.EDITOR, post=Role.EDITOR)
def block_delete(request, block: Block):
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


# Items -------------------------------------------------------------------------------------


def _row_context(request, item: Item, *, show_key: bool) -> dict:
    # One row: its number is one count, not a walk over the bank (an edit stays fast at any size).
    return {
        "item": item,
        "bank": item.block.bank,
        "numbers": {item.pk: selectors.item_number(item)},
        "show_key": show_key,
        "can_edit": can(request.membership, Role.EDITOR),
        "query": request.GET.urlencode(),
    }


def _wants_key(request) -> bool:
    return can_see_bank_key(request.membership) and (
        request.GET.get("key") == "1" or request.POST.get("key") == "1"
    )


@team_view(scope="bank_pk", get=Role.EDITOR, post=Role.EDITOR)
def item_create(request, bank: Bank):
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
def item_detail(request, item: Item):
    """One item: the row fragment for htmx (after a cancelled edit), a page otherwise."""
    context = _row_context(request, item, show_key=_wants_key(request))
    if request.htmx:
        return _render_bank(request, "probe/partials/_item_row.html", context)
    context["team"] = item.block.bank.team
    context["versions"] = (
        list(item.versions.select_related("changed_by")) if context["show_key"] else []
    )
    return _render_bank(request, "probe/item_detail.html", context)


@team_view(scope="item_pk", get=Role.EDITOR, post=Role.EDITOR)
def item_edit(request, item: Item):
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
            response = _render_bank(
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
        return _render_bank(request, "probe/partials/_item_form.html", context)
    return _render_bank(request, "probe/item_edit.html", context)


@team_view(scope="item_pk", get=None, post=Role.EDITOR)
def item_move(request, item: Item):
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
    return _respond_bank_changed(request, bank, f"#item-{item.pk}")


def _swapped_rows(request, item: Item, direction: str) -> HttpResponse | None:
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
def items_move(request, bank: Bank):
    """The bank page's one move-to-block control: the selected items go to the chosen block."""
    block_pk = request.POST.get("block", "")
    if not block_pk.isdigit():
        return _respond_bank_changed(
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
        return _respond_bank_changed(request, bank, error=_("Select the items to move first."))
    moved = bank_services.items_move_to_block(items=items, user=request.user, block=target)
    notice = ngettext(
        "%(n)s item moved to block %(block)s.",
        "%(n)s items moved to block %(block)s.",
        len(moved),
    ) % {"n": len(moved), "block": target.code}
    return _respond_bank_changed(request, bank, notice=notice)


@team_view(scope="item_pk", get=None, post=Role.EDITOR)
def item_retire(request, item: Item):
    retired = request.POST.get("retired") == "1"
    reason = request.POST.get("reason", "")[:2000]
    bank_services.item_set_retired(item=item, user=request.user, retired=retired, reason=reason)
    return _respond_bank_changed(request, item.block.bank, f"#item-{item.pk}")


@team_view(scope="item_pk", get=Role.EDITOR, post=Role.EDITOR)
def item_delete(request, item: Item):
    bank = item.block.bank
    if request.method == "POST":
        bank_services.item_delete(item=item, user=request.user)
        if request.htmx:
            return _respond_bank_changed(request, bank)
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
