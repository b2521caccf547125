"""No page but login without an account (Django's own middleware, made htmx-aware), and the
language a signed-in user chose."""

from django.conf import settings
from django.contrib.auth.middleware import LoginRequiredMiddleware as DjangoLoginRequired
from django.http import HttpResponse
from django.shortcuts import resolve_url
from django.utils import translation


class LoginRequiredMiddleware(DjangoLoginRequired):
    def handle_no_permission(self, request, view_func):
        if request.headers.get("HX-Request"):
            # htmx would swap the login page into a fragment: send the whole browser there.
            response = HttpResponse(status=401)
            response["HX-Redirect"] = resolve_url(self.get_login_url(view_func))
            return response
        return super().handle_no_permission(request, view_func)


# The session key that holds a signed-in user's chosen language (set at login and by the
# language switcher), so that applying it costs no query per request.
SESSION_LANGUAGE_KEY = "probe_language"


class UserLanguageMiddleware:
    """A signed-in user sees the language they chose, on any browser; others get Django's choice.

    LocaleMiddleware has already picked a language from the language cookie or Accept-Language;
    a choice the user made (remembered on the user, copied into the session at login) wins over
    both. The cookie is kept in step so the login page after a logout stays in that language.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        language = (
            request.session.get(SESSION_LANGUAGE_KEY) if hasattr(request, "session") else None
        )
        if language and language in dict(settings.LANGUAGES):
            translation.activate(language)
            request.LANGUAGE_CODE = language
        response = self.get_response(request)
        if language and request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) != language:
            response.set_cookie(
                settings.LANGUAGE_COOKIE_NAME,
                language,
                max_age=settings.LANGUAGE_COOKIE_AGE,
                path=settings.LANGUAGE_COOKIE_PATH,
                domain=settings.LANGUAGE_COOKIE_DOMAIN,
                secure=settings.LANGUAGE_COOKIE_SECURE,
                httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
                samesite=settings.LANGUAGE_COOKIE_SAMESITE,
            )
        return response
