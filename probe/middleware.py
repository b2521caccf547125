"""No page but login without an account (Django's own middleware, made htmx-aware)."""

from django.contrib.auth.middleware import LoginRequiredMiddleware as DjangoLoginRequired
from django.http import HttpResponse
from django.shortcuts import resolve_url


class LoginRequiredMiddleware(DjangoLoginRequired):
    def handle_no_permission(self, request, view_func):
        if request.headers.get("HX-Request"):
            # htmx would swap the login page into a fragment: send the whole browser there.
            response = HttpResponse(status=401)
            response["HX-Redirect"] = resolve_url(self.get_login_url(view_func))
            return response
        return super().handle_no_permission(request, view_func)
