"""Request plumbing: login required on every page, private pages never cached, the client's
address behind a proxy, and the language a signed-in user chose."""

import time
import zoneinfo

from django.conf import settings
from django.contrib.auth.middleware import LoginRequiredMiddleware as DjangoLoginRequired
from django.shortcuts import resolve_url
from django.utils import timezone, translation
from django.utils.cache import add_never_cache_headers
from django_htmx.http import HttpResponseClientRedirect

from .selectors.preferences import user_time_zone
from .views.errors import error_response


class LoginRequiredMiddleware(DjangoLoginRequired):
    def handle_no_permission(self, request, view_func):
        if request.headers.get("HX-Request"):
            # htmx would swap the login page into a fragment: send the whole browser there.
            response = HttpResponseClientRedirect(resolve_url(self.get_login_url(view_func)))
            response.status_code = 401
            return response
        return super().handle_no_permission(request, view_func)


class MethodNotAllowedPageMiddleware:
    """A 405 with no body (HttpResponseNotAllowed) becomes the error page, Allow kept.

    htmx requests keep the bare answer: a fragment swap never shows an error page.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code != 405 or response.content or getattr(request, "htmx", False):
            return response
        page = error_response(request, 405)
        if response.has_header("Allow"):
            page["Allow"] = response["Allow"]
        return page


class RefusedCharactersMiddleware:
    """A page's address or query string with a NUL character answers 400, before a view sees it.

    PostgreSQL cannot store or compare text holding NUL, so a search box or filter given one
    (`?q=%00`) would otherwise fail inside the database. The API refuses such text itself, per
    field (422 naming it), so its paths are left to it.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.path.startswith("/api/") and _holds_nul(request):
            return error_response(request, 400)
        return self.get_response(request)


def _holds_nul(request) -> bool:
    # Forms are left to their fields, which refuse NUL with a message and keep what was typed.
    query = request.META.get("QUERY_STRING", "")
    return "\x00" in request.path or "%00" in query.lower() or "\x00" in query


class PrivatePagesNotCachedMiddleware:
    """Cache-Control: no-store on every response to a logged-in user or an API token.

    Every page behind the login, and every API answer, shows a team's private bank, a key, raw
    model replies or an export; none of it may stay in a shared computer's browser cache or a
    proxy's. A view that sets its own Cache-Control keeps it (static files are served before
    this runs).
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        user = getattr(request, "user", None)
        private = (user is not None and user.is_authenticated) or (
            "HTTP_AUTHORIZATION" in request.META
        )
        if private and not response.has_header("Cache-Control"):
            add_never_cache_headers(response)
        return response


def client_ip(request) -> str:
    """The address a login attempt came from, for throttling.

    With TRUSTED_PROXY_COUNT = n > 0 the app sits behind n proxies that each append the address
    they saw to X-Forwarded-For: the n-th entry from the right is the client's (anything left of
    it was written by the client and can be forged). Without proxies, the socket's address.
    """
    count = settings.TRUSTED_PROXY_COUNT
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if count > 0 and forwarded:
        hops = [part.strip() for part in forwarded.split(",") if part.strip()]
        if len(hops) >= count:
            return hops[-count]
    return request.META.get("REMOTE_ADDR", "")


# The session key that holds the time zone a signed-in user's pages are shown in, with the time
# it was worked out: a team's new zone reaches its members' sessions within TIME_ZONE_RECHECK.
SESSION_TIME_ZONE_KEY = "probe_time_zone"
TIME_ZONE_RECHECK = 600  # seconds


def session_time_zone_store(request, zone: str) -> None:
    request.session[SESSION_TIME_ZONE_KEY] = [zone, int(time.time())]


class TimeZoneMiddleware:
    """Every date and time a signed-in user sees is in their zone (selectors.user_time_zone),
    worked out once per session (and again every TIME_ZONE_RECHECK seconds), not per request."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated or not hasattr(request, "session"):
            return self.get_response(request)
        stored = request.session.get(SESSION_TIME_ZONE_KEY)
        if not stored or time.time() - stored[1] > TIME_ZONE_RECHECK:
            stored = [user_time_zone(user=user), int(time.time())]
            request.session[SESSION_TIME_ZONE_KEY] = stored
        try:
            timezone.activate(zoneinfo.ZoneInfo(stored[0]))
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            timezone.deactivate()
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()


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
