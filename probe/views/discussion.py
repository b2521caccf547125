"""Discussion of a key entry: its thread (a page, or the fragment htmx swaps), a comment's edit
and deletion, and the completion list of mentions. Key entries are for editors and owners."""

from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme

from ..access import team_view
from ..forms.common import apply_service_errors
from ..forms.discussion import CommentForm
from ..htmx import HtmxHttpRequest
from ..models import Experiment, Item, Role, Team
from ..selectors import discussion as reads
from ..services import discussion as services


def _experiment_of(request: HtmxHttpRequest, item: Item) -> Experiment | None:
    """The experiment whose key review the thread is shown on, if it says so (for the link of
    a mention); only one of the team's on the item's bank."""
    value = request.POST.get("experiment") or request.GET.get("experiment") or ""
    if not value.isdigit():
        return None
    return Experiment.objects.filter(
        pk=int(value), team=request.team, bank_id=item.block.bank_id
    ).first()


def key_thread_context(request, item: Item, *, experiment=None, form=None, editing=None) -> dict:
    """What the thread fragment shows (also used by the pages that include it)."""
    # A page of many entries (the key review) asks once per bank whether the reader is blind.
    known = request.__dict__.setdefault("_blind_to_bank", {})
    bank_pk = item.block.bank_id
    if bank_pk not in known:
        known[bank_pk] = reads.blind_to_bank(item.block.bank, request.user, request.membership)
    thread = reads.key_thread(item, request.user, request.membership, blind=known[bank_pk])
    for view in thread.comments:
        kwargs = {"item_pk": item.pk, "comment_pk": view.comment.pk}
        view.edit_url = reverse("probe:key_comment_edit", kwargs=kwargs)
        view.delete_url = reverse("probe:key_comment_delete", kwargs=kwargs)
    return {
        "thread": thread,
        "thread_id": f"key-thread-{item.pk}",
        "post_url": reverse("probe:key_comments", kwargs={"item_pk": item.pk}),
        "experiment_pk": experiment.pk if experiment else "",
        "form": form or CommentForm(auto_id=f"key-{item.pk}-%s"),
        "editing": editing,
        "mention_url": reverse("probe:mention_suggest", kwargs={"team_slug": request.team.slug}),
        "kind": "key",
    }


def _back(request: HtmxHttpRequest, fallback: str):
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, {request.get_host()}):
        target = fallback
    return redirect(target)


def _render_thread(request: HtmxHttpRequest, item: Item, context: dict, status: int = 200):
    if request.htmx:
        return render(request, "probe/partials/_comment_thread.html", context, status=status)
    bank = item.block.bank
    context.update(item=item, bank=bank, team=request.team)
    return render(request, "probe/key_comments.html", context, status=status)


@team_view(scope="item_pk", get=Role.EDITOR, post=Role.EDITOR)
def key_comments(request: HtmxHttpRequest, item: Item):
    experiment = _experiment_of(request, item)
    form = None
    status = 200
    if request.method == "POST":
        form = CommentForm(request.POST, auto_id=f"key-{item.pk}-%s")
        if form.is_valid():
            try:
                comment = services.key_comment_create(
                    item=item,
                    user=request.user,
                    membership=request.membership,
                    text=form.cleaned_data["text"],
                    experiment=experiment,
                )
            except ValidationError as error:
                apply_service_errors(form, error)
            else:
                if not request.htmx:
                    url = reverse("probe:key_comments", kwargs={"item_pk": item.pk})
                    return _back(request, f"{url}#comment-{comment.pk}")
                form = None
        if form is not None:
            status = 400
    context = key_thread_context(request, item, experiment=experiment, form=form)
    return _render_thread(request, item, context, status)


def _own_visible(request, item: Item, comment_pk: int):
    thread = reads.key_thread(item, request.user, request.membership)
    for view in thread.comments:
        if view.comment.pk == comment_pk:
            return view.comment
    raise Http404


@team_view(scope="item_pk", get=Role.EDITOR, post=Role.EDITOR)
def key_comment_edit(request: HtmxHttpRequest, item: Item, comment_pk: int):
    comment = _own_visible(request, item, comment_pk)
    if not comment.editable_by(request.user):
        raise Http404
    auto_id = f"edit-{comment.pk}-%s"
    form = CommentForm(initial={"text": comment.text}, auto_id=auto_id)
    status = 200
    if request.method == "POST":
        form = CommentForm(request.POST, auto_id=auto_id)
        if form.is_valid():
            try:
                services.key_comment_edit(
                    comment=comment,
                    user=request.user,
                    membership=request.membership,
                    text=form.cleaned_data["text"],
                )
            except ValidationError as error:
                apply_service_errors(form, error)
            else:
                if not request.htmx:
                    url = reverse("probe:key_comments", kwargs={"item_pk": item.pk})
                    return _back(request, f"{url}#comment-{comment.pk}")
                return _render_thread(request, item, key_thread_context(request, item))
        status = 400
    context = key_thread_context(request, item)
    context.update(editing=comment.pk, edit_form=form)
    return _render_thread(request, item, context, status)


@team_view(scope="item_pk", get=None, post=Role.EDITOR)
def key_comment_delete(request: HtmxHttpRequest, item: Item, comment_pk: int):
    comment = _own_visible(request, item, comment_pk)
    try:
        services.comment_delete(comment=comment, user=request.user)
    except ValidationError as error:
        raise Http404 from error
    if not request.htmx:
        url = reverse("probe:key_comments", kwargs={"item_pk": item.pk})
        return _back(request, f"{url}#comment-{comment.pk}")
    return _render_thread(request, item, key_thread_context(request, item))


@team_view(scope="team_slug", get=Role.VIEWER)
def mention_suggest(request: HtmxHttpRequest, team: Team):
    """The members whose name starts with what follows the @: a list the keyboard moves in."""
    users = reads.mention_candidates(team, request.GET.get("q", ""))
    return render(
        request,
        "probe/partials/_mention_list.html",
        {"candidates": [(u.get_username(), reads.display_name(u)) for u in users]},
    )
