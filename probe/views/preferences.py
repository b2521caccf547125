"""A user's time zone page, and the team's time zone (an owner's setting on the members page)."""

from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from ..access import team_view
from ..forms.preferences import TimeZoneForm
from ..htmx import HtmxHttpRequest
from ..middleware import session_time_zone_store
from ..models import Role, Team, UserPreference
from ..selectors.preferences import user_time_zone
from ..services.preferences import team_time_zone_set, user_time_zone_set
from ..zone_labels import zone_label, zone_name


def time_zone_edit(request: HtmxHttpRequest):
    own = (
        UserPreference.objects.filter(user=request.user).values_list("time_zone", flat=True).first()
    )
    form = TimeZoneForm(
        request.POST or None,
        initial={"time_zone": own or ""},
        blank_label=_("My team's (or the server's: %(zone)s)")
        % {"zone": zone_name(settings.TIME_ZONE)},
    )
    if request.method == "POST" and form.is_valid():
        user_time_zone_set(user=request.user, time_zone=form.cleaned_data["time_zone"])
        session_time_zone_store(request, user_time_zone(user=request.user))
        messages.success(request, _("Time zone saved: every date and time is now shown in it."))
        return redirect("time_zone")
    return render(
        request,
        "registration/time_zone.html",
        {"form": form, "shown_in": zone_label(user_time_zone(user=request.user))},
        status=422 if form.errors else 200,
    )


@team_view(scope="team_slug", get=None, post=Role.OWNER)
def team_time_zone(request: HtmxHttpRequest, team: Team):
    form = TimeZoneForm(request.POST, blank_label="")
    if form.is_valid():
        team_time_zone_set(team=team, time_zone=form.cleaned_data["time_zone"])
        messages.success(
            request,
            _("The team's time zone is saved. Members who chose none of their own see it."),
        )
    else:
        messages.error(request, _("Choose one of the time zones offered."))
    return redirect("probe:member_list", team_slug=team.slug)
