"""At login: the language the user chose before takes over from the browser's, and the time
zone their pages are shown in is worked out (the browser's, offered by the login form, is taken
at every login unless the user chose one on the time zone page)."""

from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver

from .events import experiment_collected
from .middleware import SESSION_LANGUAGE_KEY, session_time_zone_store
from .selectors.preferences import user_language, user_time_zone
from .services.notifications import notify_collected
from .services.preferences import user_time_zone_offer


@receiver(user_logged_in, dispatch_uid="probe_language_at_login")
def language_at_login(sender, request, user, **kwargs):
    if request is None or not hasattr(request, "session"):
        return
    language = user_language(user=user)
    if language:
        request.session[SESSION_LANGUAGE_KEY] = language
    else:
        # Login rotates the session but keeps its data: drop a language another user chose.
        request.session.pop(SESSION_LANGUAGE_KEY, None)


@receiver(user_logged_in, dispatch_uid="probe_time_zone_at_login")
def time_zone_at_login(sender, request, user, **kwargs):
    if request is None or not hasattr(request, "session"):
        return
    offered = request.POST.get("time_zone", "") if request.method == "POST" else ""
    if offered:
        user_time_zone_offer(user=user, time_zone=offered[:64])
    session_time_zone_store(request, user_time_zone(user=user))


# An experiment finished collecting: its leads and the team's scorers are told.
experiment_collected.connect(notify_collected, dispatch_uid="probe_notify_collected")
