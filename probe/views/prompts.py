"""Pages for prompt versions (model configurations are in ``views.configs``).

Prompt versions are never edited in place: the edit page writes the next version.
"""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from ..access import can, team_view
from ..forms.common import apply_service_errors
from ..forms.prompts import PromptCreateForm, PromptEditForm, language_name
from ..htmx import HtmxHttpRequest
from ..models import PromptVersion, Role, Team
from ..services import prompts as prompt_services
from ..wording import sentences

# Prompt versions ------------------------------------------------------------------------------


def _prompt_url(prompt: PromptVersion) -> str:
    return reverse("probe:prompt_detail", kwargs={"prompt_pk": prompt.pk})


def _team_versions(team: Team):
    return (
        PromptVersion.objects.filter(team=team)
        .annotate(n_experiments=Count("experiments"))
        .select_related("created_by", "parent")
        .order_by("name", "-version")
    )


@team_view(scope="team_slug", get=Role.VIEWER)
def prompt_list(request: HtmxHttpRequest, team: Team):
    groups: dict[str, list[PromptVersion]] = {}
    for version in _team_versions(team):
        version.language_name = language_name(version.language)
        groups.setdefault(version.name, []).append(version)
    return render(
        request,
        "probe/prompt_list.html",
        {
            "team": team,
            "groups": [{"name": name, "versions": versions} for name, versions in groups.items()],
            "can_edit": can(request.membership, Role.EDITOR),
        },
    )


@team_view(scope="team_slug", get=Role.EDITOR, post=Role.EDITOR)
def prompt_create(request: HtmxHttpRequest, team: Team):
    initial = {}
    source_pk = request.GET.get("from", "")
    if source_pk.isdigit():
        source = PromptVersion.objects.filter(team=team, pk=source_pk).first()
        if source is not None:
            initial = {"text": source.text, "language": source.language}
    form = PromptCreateForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            prompt = prompt_services.prompt_create(
                team=team,
                user=request.user,
                name=form.cleaned_data["name"],
                text=form.cleaned_data["text"],
                language=form.cleaned_data["language"],
                note=form.cleaned_data["note"],
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(request, _("%(prompt)s created.") % {"prompt": prompt})
            return redirect(_prompt_url(prompt))
    return render(request, "probe/prompt_form.html", {"team": team, "form": form})


@team_view(scope="prompt_pk", get=Role.VIEWER)
def prompt_detail(request: HtmxHttpRequest, prompt: PromptVersion):
    team = prompt.team
    versions = list(_team_versions(team).filter(name=prompt.name))
    experiments = list(prompt.experiments.order_by("-created").values_list("name", flat=True)[:50])
    return render(
        request,
        "probe/prompt_detail.html",
        {
            "team": team,
            "prompt": prompt,
            "language_name": language_name(prompt.language),
            "versions": versions,
            "experiments": experiments,
            "n_experiments": prompt.experiments.count(),
            "can_edit": can(request.membership, Role.EDITOR),
        },
    )


@team_view(scope="prompt_pk", get=Role.EDITOR, post=Role.EDITOR)
def prompt_edit(request: HtmxHttpRequest, prompt: PromptVersion):
    """Write the next version of this prompt: the version shown here never changes."""
    form = PromptEditForm(request.POST or None, initial=PromptEditForm.initial_for(prompt))
    if request.method == "POST" and form.is_valid():
        try:
            version = prompt_services.prompt_new_version(
                prompt=prompt,
                user=request.user,
                text=form.cleaned_data["text"],
                note=form.cleaned_data["note"],
                language=form.cleaned_data["language"],
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(
                request,
                _("Saved as %(version)s; %(old)s is unchanged.")
                % {"version": version, "old": prompt},
            )
            return redirect(_prompt_url(version))
    latest = (
        PromptVersion.objects.filter(team=prompt.team, name=prompt.name)
        .order_by("-version")
        .first()
    )
    return render(
        request,
        "probe/prompt_edit.html",
        {
            "team": prompt.team,
            "prompt": prompt,
            "form": form,
            "next_version": (latest.version if latest else prompt.version) + 1,
            "is_latest": latest is None or latest.pk == prompt.pk,
        },
    )


@team_view(scope="prompt_pk", get=Role.EDITOR, post=Role.EDITOR)
def prompt_delete(request: HtmxHttpRequest, prompt: PromptVersion):
    team = prompt.team
    if request.method == "POST":
        try:
            prompt_services.prompt_delete(prompt=prompt, user=request.user)
        except ValidationError as error:
            messages.error(request, sentences(error.messages))
            return redirect(_prompt_url(prompt))
        messages.success(request, _("%(prompt)s deleted.") % {"prompt": prompt})
        return redirect("probe:prompt_list", team_slug=team.slug)
    return render(
        request,
        "probe/prompt_delete.html",
        {"team": team, "prompt": prompt, "n_experiments": prompt.experiments.count()},
    )


@team_view(scope="prompt_pk", get=Role.VIEWER)
def prompt_diff(request: HtmxHttpRequest, prompt: PromptVersion):
    """Side by side: `?other=` on the left, this version on the right (same team only)."""
    team = prompt.team
    other_pk = request.GET.get("other", "")
    other = None
    if other_pk:
        if not other_pk.isdigit():
            raise Http404
        # Another team's version is a 404 like any other object of theirs.
        other = get_object_or_404(PromptVersion, pk=other_pk, team=team)
    elif prompt.parent_id and prompt.parent.team_id == team.pk:
        other = prompt.parent
    choices: dict[str, list[PromptVersion]] = {}
    for version in (
        PromptVersion.objects.filter(team=team).exclude(pk=prompt.pk).order_by("name", "-version")
    ):
        choices.setdefault(version.name, []).append(version)
    diff = prompt_services.prompt_diff(other.text, prompt.text) if other is not None else None
    return render(
        request,
        "probe/prompt_diff.html",
        {
            "team": team,
            "prompt": prompt,
            "other": other,
            "diff": diff,
            "choices": choices.items(),
        },
    )
