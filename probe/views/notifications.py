"""A member's inbox: what waits for them, newest first. A GET writes nothing: the page marks
what it showed as read by a POST of its own (``mark_read``), sent once it has been shown."""

from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from ..models import Notification, UserPreference
from ..services import notifications as services


@require_http_methods(["GET", "POST"])
def inbox(request):
    if request.method == "POST" and request.POST.get("action") == "read":
        services.notifications_read(user=request.user)
        return redirect("inbox")
    if request.method == "POST":
        on = request.POST.get("notify_by_email") == "on"
        services.notify_email_choice(user=request.user, on=on)
        messages.success(
            request,
            _("Your notifications are also e-mailed to you.")
            if on
            else _("Your notifications stay in this inbox only."),
        )
        return redirect("inbox")
    rows = list(Notification.objects.filter(user=request.user)[:100])
    unread = {n.pk for n in rows if n.read_at is None}
    preference = UserPreference.objects.filter(user=request.user).first()
    return render(
        request,
        "probe/inbox.html",
        {
            "notifications": [
                (
                    n,
                    services.notification_text(n.kind, n.experiment_name, n.actor_name),
                    n.pk in unread,
                )
                for n in rows
            ],
            "has_unread": bool(unread),
            "email_enabled": settings.EMAIL_ENABLED,
            "notify_by_email": preference.notify_by_email if preference else True,
        },
    )
