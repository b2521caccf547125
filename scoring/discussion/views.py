"""Response comments: a response's thread (a page, or the fragment htmx swaps), a comment's
edit and deletion. Every URL answers 404 to anyone still blind to the experiment: it does not
even confirm that a comment or the response exists."""

from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme

from probe.access import team_view
from probe.forms.common import apply_service_errors
from probe.forms.discussion import CommentForm
from probe.htmx import HtmxHttpRequest
from probe.models import Experiment, Role
from probe.services.discussion import comment_delete
from scoring.discussion import selectors as reads
from scoring.discussion import services
from scoring.models import ResponseComment


def _response(request: HtmxHttpRequest, experiment: Experiment, response_pk: int):
    if not reads.may_see_response_comments(experiment, request.user, request.membership):
        raise Http404
    response = reads.response_of(experiment, response_pk)
    if response is None:
        raise Http404
    return response


def _context(request, experiment, response, *, form=None, editing=None, edit_form=None) -> dict:
    thread = reads.response_thread(response, request.user)
    for view in thread.comments:
        kwargs = {"experiment_pk": experiment.pk, "comment_pk": view.comment.pk}
        view.edit_url = reverse("scoring:response_comment_edit", kwargs=kwargs)
        view.delete_url = reverse("scoring:response_comment_delete", kwargs=kwargs)
    return {
        "thread": thread,
        "thread_id": f"response-thread-{response.pk}",
        "post_url": reverse(
            "scoring:response_comments",
            kwargs={"experiment_pk": experiment.pk, "response_pk": response.pk},
        ),
        "form": form or CommentForm(auto_id=f"response-{response.pk}-%s"),
        "editing": editing,
        "edit_form": edit_form,
        "mention_url": reverse("probe:mention_suggest", kwargs={"team_slug": experiment.team.slug}),
        "kind": "response",
    }


def _render(request, experiment, response, context, status=200):
    if request.htmx:
        return render(request, "probe/partials/_comment_thread.html", context, status=status)
    context.update(experiment=experiment, team=experiment.team, response=response)
    return render(request, "scoring/response_comments.html", context, status=status)


def _back(request, experiment, response, comment):
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, {request.get_host()}):
        url = reverse(
            "scoring:response_comments",
            kwargs={"experiment_pk": experiment.pk, "response_pk": response.pk},
        )
        target = f"{url}#comment-{comment.pk}"
    return redirect(target)


@team_view(scope="experiment_pk", get=Role.VIEWER, post=Role.SCORER)
def response_comments(request: HtmxHttpRequest, experiment: Experiment, response_pk: int):
    response = _response(request, experiment, response_pk)
    form, status = None, 200
    if request.method == "POST":
        form = CommentForm(request.POST, auto_id=f"response-{response.pk}-%s")
        if form.is_valid():
            try:
                comment = services.response_comment_create(
                    response=response, user=request.user, text=form.cleaned_data["text"]
                )
            except ValidationError as error:
                apply_service_errors(form, error)
            else:
                if not request.htmx:
                    return _back(request, experiment, response, comment)
                form = None
        if form is not None:
            status = 400
    return _render(
        request, experiment, response, _context(request, experiment, response, form=form), status
    )


def _comment(request, experiment, comment_pk):
    if not reads.may_see_response_comments(experiment, request.user, request.membership):
        raise Http404
    comment = (
        ResponseComment.objects.filter(pk=comment_pk, experiment=experiment)
        .select_related("response__run", "response__item")
        .first()
    )
    if comment is None:
        raise Http404
    return comment


@team_view(scope="experiment_pk", get=Role.SCORER, post=Role.SCORER)
def response_comment_edit(request: HtmxHttpRequest, experiment: Experiment, comment_pk: int):
    comment = _comment(request, experiment, comment_pk)
    if not comment.editable_by(request.user):
        raise Http404
    response = comment.response
    auto_id = f"edit-{comment.pk}-%s"
    form = CommentForm(initial={"text": comment.text}, auto_id=auto_id)
    status = 200
    if request.method == "POST":
        form = CommentForm(request.POST, auto_id=auto_id)
        if form.is_valid():
            try:
                services.response_comment_edit(
                    comment=comment, user=request.user, text=form.cleaned_data["text"]
                )
            except ValidationError as error:
                apply_service_errors(form, error)
            else:
                if not request.htmx:
                    return _back(request, experiment, response, comment)
                return _render(
                    request, experiment, response, _context(request, experiment, response)
                )
        status = 400
    context = _context(request, experiment, response, editing=comment.pk, edit_form=form)
    return _render(request, experiment, response, context, status)


@team_view(scope="experiment_pk", get=None, post=Role.SCORER)
def response_comment_delete(request: HtmxHttpRequest, experiment: Experiment, comment_pk: int):
    comment = _comment(request, experiment, comment_pk)
    try:
        comment_delete(comment=comment, user=request.user)
    except ValidationError as error:
        raise Http404 from error
    response = comment.response
    if not request.htmx:
        return _back(request, experiment, response, comment)
    return _render(request, experiment, response, _context(request, experiment, response))
