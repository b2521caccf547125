"""At login, the language the user chose before takes over from the browser's."""

from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver

from .middleware import SESSION_LANGUAGE_KEY
from .selectors.preferences import user_language


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
