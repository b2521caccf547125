"""Request plumbing: login required on every page, private pages never cached, the client's
address behind a proxy."""

from django.conf import settings
from django.contrib.auth.middleware import LoginRequiredMiddleware as DjangoLoginRequired
from django.http import HttpResponse
from django.shortcuts import resolve_url
from django.utils.cache import add_never_cache_headers


class LoginRequiredMiddleware(DjangoLoginRequired):
    def handle_no_permission(self, request, view_func):
        if request.headers.get("HX-Request"):
            # htmx would swap the login page into a fragment: send the whole browser there.
            response = HttpResponse(status=401)
            response["HX-Redirect"] = resolve_url(self.get_login_url(view_func))
            return response
        return super().handle_no_permission(request, view_func)


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
