"""Pages for the team: home, members and invitations, and the audit log.

One view serves both the full page and its htmx fragment (``request.htmx``); every write goes
through a service, every object through ``access.team_view``.
"""

from allauth.account.authentication import get_authentication_records
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db import connection
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from ..access import can, team_view
from ..forms.common import apply_service_errors
from ..forms.teams import InvitationForm, MemberRoleForm
from ..htmx import HtmxHttpRequest
from ..models import AuditEvent, Membership, Role, Team
from ..selectors import teams as selectors
from ..selectors.banks import banks_of_team
from ..services import oidc as oidc_services
from ..services import teams as team_services
from ..wording import sentences
from ..zone_labels import zone_choices, zone_name

# Home and health ---------------------------------------------------------------------------


def home(request: HtmxHttpRequest):
    membership = Membership.objects.filter(user=request.user).select_related("team").first()
    if membership is None:
        return render(request, "probe/no_team.html")
    return redirect(membership.team)


@login_not_required
@require_GET
def healthz(request: HtmxHttpRequest):
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return HttpResponse("ok", content_type="text/plain")


# Teams -------------------------------------------------------------------------------------


@team_view(scope="team_slug", get=Role.VIEWER)
def team_home(request: HtmxHttpRequest, team: Team):
    return render(
        request,
        "probe/team_home.html",
        {
            "team": team,
            "banks": banks_of_team(team),
            "can_edit": can(request.membership, Role.EDITOR),
        },
    )


def _member_page(request: HtmxHttpRequest, team: Team, form: InvitationForm, *, status: int = 200):
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
            "time_zones": zone_choices(),
            "server_time_zone": zone_name(settings.TIME_ZONE),
            "oidc_enabled": oidc_services.oidc_enabled(),
            "oidc_provider_name": oidc_services.oidc_provider_name(),
            "locked_out": oidc_services.members_locked_out(team)
            if oidc_services.oidc_enabled()
            else [],
        },
        status=status,
    )


@team_view(scope="team_slug", get=None, post=Role.OWNER)
def team_sign_in(request, team: Team):
    """The owner's choice: members sign in only through the identity provider, or also with a
    local password."""
    required = request.POST.get("require_oidc") == "on"
    if required and not team.require_oidc:
        via_provider = any(
            record.get("method") == "socialaccount"
            for record in get_authentication_records(request)
        )
        problem = oidc_services.require_oidc_problem(
            user=request.user, via_provider_now=via_provider
        )
        if problem:
            messages.error(request, problem)
            return redirect("probe:member_list", team_slug=team.slug)
    team_services.team_set_require_oidc(team=team, user=request.user, required=required)
    if required:
        messages.success(
            request,
            _("Members now sign in only through %(provider)s.")
            % {"provider": oidc_services.oidc_provider_name()},
        )
    else:
        messages.success(request, _("Members may log in with a local password again."))
    return redirect("probe:member_list", team_slug=team.slug)


@team_view(scope="team_slug", get=Role.OWNER, post=Role.OWNER)
def member_list(request: HtmxHttpRequest, team: Team):
    form = InvitationForm(request.POST or None, team=team)
    if request.method == "POST" and form.is_valid():
        try:
            issued = team_services.invitation_create(
                team=team,
                by=request.user,
                invitee=form.cleaned_data["invitee"],
                role=form.cleaned_data["role"],
                site_url=request.build_absolute_uri("/").rstrip("/"),
                experiments=form.cleaned_data["experiments"],
                all_experiments=form.cleaned_data["all_experiments"],
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
def invitation_revoke(request: HtmxHttpRequest, invitation):
    try:
        team_services.invitation_revoke(invitation=invitation, by=request.user)
        messages.success(
            request, _("The invitation to %(who)s is withdrawn.") % {"who": invitation.addressee}
        )
    except ValidationError as error:
        messages.error(request, sentences(error.messages))
    return redirect("probe:member_list", team_slug=invitation.team.slug)


@team_view(scope="member_pk", get=None, post=Role.OWNER)
def member_reset_link(request: HtmxHttpRequest, membership: Membership):
    try:
        path = team_services.password_reset_link_create(membership=membership, by=request.user)
    except ValidationError as error:
        messages.error(request, sentences(error.messages))
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
def member_update(request: HtmxHttpRequest, membership: Membership):
    form = MemberRoleForm(request.POST)
    if form.is_valid():
        try:
            team_services.member_set_role(
                membership=membership, by=request.user, role=form.cleaned_data["role"]
            )
            messages.success(request, _("Role changed."))
        except ValidationError as error:
            messages.error(request, sentences(error.messages))
    else:
        messages.error(request, _("Choose a role."))
    return redirect("probe:member_list", team_slug=membership.team.slug)


@team_view(scope="member_pk", get=None, post=Role.OWNER)
def member_remove(request: HtmxHttpRequest, membership: Membership):
    slug = membership.team.slug
    try:
        team_services.member_remove(membership=membership, by=request.user)
        messages.success(request, _("Member removed."))
    except ValidationError as error:
        messages.error(request, sentences(error.messages))
    if (
        membership.user_id == request.user.pk
        and not Membership.objects.filter(team__slug=slug, user=request.user).exists()
    ):
        return redirect("home")
    return redirect("probe:member_list", team_slug=slug)


@team_view(scope="team_slug", get=Role.OWNER)
def audit_log(request: HtmxHttpRequest, team: Team):
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
