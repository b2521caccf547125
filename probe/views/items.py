"""Items due for a re-check: key entries whose sources were checked too long ago (a team setting)."""

from django import forms
from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from ..access import can, team_view
from ..models import Item, Role, Team
from ..selectors.items import items_due_for_recheck, recheck_cutoff
from ..services import banks as bank_services
from ..services import teams as team_services


class RecheckSettingForm(forms.Form):
    recheck_after_days = forms.IntegerField(
        # Lazy: a class attribute is made once, at import, before any request has a language.
        label=gettext_lazy("Re-check key sources after (days)"),
        min_value=1,
        max_value=36500,
    )


@team_view(scope="team_slug", get=Role.EDITOR, post=Role.EDITOR)
def items_recheck(request, team: Team):
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


def _mark_checked(request, team: Team):
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
