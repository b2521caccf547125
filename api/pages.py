"""The user's API tokens page: make a token for one team, to read or to read and write (shown
once), see when each was last used, revoke."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from .forms import TokenForm
from .models import ApiToken

MAX_ACTIVE = 20


@never_cache  # the page shows a new token once: no cache may keep it
@require_http_methods(["GET", "POST"])
def token_list(request):
    form = TokenForm(request.POST or None, user=request.user)
    new_token = ""
    active = ApiToken.objects.filter(user=request.user, revoked__isnull=True)
    if request.method == "POST" and form.is_valid():
        if active.count() >= MAX_ACTIVE:
            form.add_error(
                None, _("You have %(n)s active tokens: revoke one first.") % {"n": MAX_ACTIVE}
            )
        else:
            _token, new_token = ApiToken.issue(
                user=request.user,
                team=form.cleaned_data["team"],
                access=form.cleaned_data["access"],
                name=form.cleaned_data["name"],
            )
            form = TokenForm(user=request.user)
    return render(
        request,
        "api/token_list.html",
        {
            "form": form,
            "new_token": new_token,
            "tokens": ApiToken.objects.filter(user=request.user).select_related("team"),
            "has_teams": form.fields["team"].queryset.exists(),
        },
    )


@require_POST
def token_revoke(request, token_pk: int):
    # Someone else's token is a 404, like any object that is not yours.
    token = ApiToken.objects.filter(user=request.user, pk=token_pk).first()
    if token is None:
        raise Http404
    token.revoke()
    messages.success(request, _("The token “%(name)s” is revoked.") % {"name": token.name})
    return redirect("token_list")
