"""The error pages (400, 403, 404, 405, 500): in the user's language, with the site's navigation
and a way back, for pages; a JSON body naming the status for the API.

Django renders 400.html, 403.html, 404.html and 500.html without the request's context; these
views render them with it, so the top bar (the user's teams, the language switch) is there.
A 500 may come from the database itself, so that page falls back to one that needs nothing.
"""

import logging

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _

logger = logging.getLogger(__name__)


def _titles() -> dict[int, tuple[str, str]]:
    # Looked up per request: the words are in the language of the request being answered.
    return {
        400: (_("Bad request"), _("The request could not be read. Nothing was changed.")),
        403: (
            _("Not allowed"),
            _("Your role in this team does not allow this. An owner of the team can change roles."),
        ),
        404: (
            _("Not found"),
            _("There is nothing here, or it belongs to a team you are not a member of."),
        ),
        405: (
            _("Not allowed this way"),
            _("This address does not take that kind of request. Nothing was changed."),
        ),
        500: (
            _("Something went wrong"),
            _("The server failed to answer. What you saved before is kept; try again in a moment."),
        ),
    }


def _back(request: HttpRequest) -> str:
    """The page the user came from, when it is one of this site's; else nothing."""
    referer = request.headers.get("Referer", "")
    if referer and url_has_allowed_host_and_scheme(
        referer, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return referer
    return ""


def wants_json(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def error_response(request: HttpRequest, status: int) -> HttpResponse:
    title, explanation = _titles()[status]
    if wants_json(request):
        return JsonResponse({"detail": title, "status": status}, status=status)
    context = {"status": status, "title": title, "explanation": explanation, "back": _back(request)}
    return HttpResponse(
        loader.render_to_string("errors/error.html", context, request=request), status=status
    )


def bad_request(request, exception=None):
    return error_response(request, 400)


def permission_denied(request, exception=None):
    return error_response(request, 403)


def page_not_found(request, exception=None):
    return error_response(request, 404)


def csrf_failure(request, reason=""):
    """A form sent without its CSRF token, or with a stale one: usually a page left open too
    long, or cookies refused. Said plainly, in the user's language."""
    if wants_json(request):
        return JsonResponse({"detail": _("CSRF check failed."), "status": 403}, status=403)
    context = {
        "status": 403,
        "title": _("The form has expired"),
        "explanation": _(
            "The page was open too long, or your browser refused this site's cookies. Nothing "
            "was changed: reload the page and try again."
        ),
        "back": _back(request),
    }
    return HttpResponse(
        loader.render_to_string("errors/error.html", context, request=request), status=403
    )


def server_error(request):
    try:
        return error_response(request, 500)
    except Exception:  # the page itself failed (the database is down, say): nothing fancy
        logger.exception("the error page could not be rendered with its navigation")
        title, explanation = _titles()[500]
        return HttpResponse(
            loader.render_to_string(
                "errors/error_plain.html", {"title": title, "explanation": explanation}
            ),
            status=500,
        )
