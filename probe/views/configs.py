"""Pages for model configurations.

They show the NAME of the key's environment variable and whether it is set in this process,
never the key; "test connection" answers with an htmx fragment or a full page.
"""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from ..access import can, team_view
from ..forms.common import apply_service_errors
from ..forms.configs import ModelConfigForm, provider_key_hints
from ..htmx import HtmxHttpRequest
from ..models import ModelConfig, Role, Team
from ..provider_labels import provider_label
from ..services import configs as config_services

# Model configurations ---------------------------------------------------------------------------


def _configs_with_status(team: Team):
    configs = list(
        ModelConfig.objects.filter(team=team).annotate(n_runs=Count("runs")).order_by("label", "pk")
    )
    for config in configs:
        config.key_status = config_services.api_key_env_status(config.api_key_env)
        config.key_needed = config_services.requires_api_key(config.provider, config.base_url)
    return configs


# Model configurations are for editors: a scorer who could list them would learn which models
# are in play before the reveal, and viewers have no use for API key variable names.
@team_view(scope="team_slug", get=Role.EDITOR)
def config_list(request: HtmxHttpRequest, team: Team):
    configs = _configs_with_status(team)
    for config in configs:
        config.provider_label = provider_label(config.provider)
    return render(
        request,
        "probe/config_list.html",
        {
            "team": team,
            "active": [c for c in configs if not c.archived],
            "archived": [c for c in configs if c.archived],
            "can_edit": can(request.membership, Role.EDITOR),
        },
    )


def _config_form_context(team: Team, form, config: ModelConfig | None = None) -> dict:
    context = {"team": team, "form": form, "config": config, "hints": provider_key_hints()}
    if config is not None:
        context["n_runs"] = config.runs.count()
        context["key_status"] = config_services.api_key_env_status(config.api_key_env)
    return context


@team_view(scope="team_slug", get=Role.EDITOR, post=Role.EDITOR)
def config_create(request: HtmxHttpRequest, team: Team):
    form = ModelConfigForm(request.POST or None, team=team)
    if request.method == "POST" and form.is_valid():
        try:
            config = config_services.config_create(team=team, user=request.user, **form.settings())
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(
                request, _("Configuration “%(label)s” saved.") % {"label": config.label}
            )
            return redirect(
                reverse("probe:config_list", kwargs={"team_slug": team.slug})
                + f"#config-{config.pk}"
            )
    return render(request, "probe/config_form.html", _config_form_context(team, form))


@team_view(scope="config_pk", get=Role.EDITOR, post=Role.EDITOR)
def config_edit(request: HtmxHttpRequest, config: ModelConfig):
    team = config.team
    form = ModelConfigForm(
        request.POST or None,
        team=team,
        instance=config,
        initial=ModelConfigForm.initial_for(config),
    )
    if request.method == "POST" and form.is_valid():
        try:
            config_services.config_update(config=config, user=request.user, **form.settings())
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            messages.success(
                request, _("Configuration “%(label)s” saved.") % {"label": config.label}
            )
            return redirect(
                reverse("probe:config_list", kwargs={"team_slug": team.slug})
                + f"#config-{config.pk}"
            )
    return render(request, "probe/config_form.html", _config_form_context(team, form, config))


@team_view(scope="config_pk", get=None, post=Role.EDITOR)
def config_archive(request: HtmxHttpRequest, config: ModelConfig):
    action = request.POST.get("action")
    if action in {"archive", "restore"}:
        config_services.config_set_archived(
            config=config, user=request.user, archived=action == "archive"
        )
        if action == "archive":
            messages.success(
                request,
                _("“%(label)s” archived: new experiments will not offer it.")
                % {"label": config.label},
            )
        else:
            messages.success(request, _("“%(label)s” restored.") % {"label": config.label})
    return redirect(
        reverse("probe:config_list", kwargs={"team_slug": config.team.slug})
        + f"#config-{config.pk}"
    )


@team_view(scope="config_pk", get=None, post=Role.EDITOR)
def config_test(request: HtmxHttpRequest, config: ModelConfig):
    """One small request with the configuration's settings; the outcome as a fragment or a page."""
    check = config_services.config_test_connection(config=config)
    context = {"team": config.team, "config": config, "check": check}
    if request.htmx:
        return render(request, "probe/partials/_connection_result.html", context)
    return render(request, "probe/config_test.html", context)
