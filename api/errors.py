"""Every refusal is a 4xx with a JSON body: `detail` in words, and `problems` naming each field."""

from django.core.exceptions import RequestDataTooBig
from django.utils.translation import gettext as _
from ninja.errors import AuthenticationError, HttpError, Throttled, ValidationError


class Refused(HttpError):
    def __init__(self, message: str, problems: list[dict], status: int = 422):
        super().__init__(status, message)
        self.problems = problems


def refuse(message: str, problems: list[dict], *, status: int = 422) -> Refused:
    return Refused(message, problems, status)


def _field(loc) -> str | None:
    # ("body", "payload", "configs", 0) -> "configs.0"; ("query", "w") -> "w"
    parts = [str(p) for p in loc if p not in ("body", "payload", "query", "path")]
    return ".".join(parts) or None


def install(api) -> None:
    """The API's error handlers: one JSON shape for every refusal."""

    @api.exception_handler(Refused)
    def refused(request, error: Refused):
        return api.create_response(
            request, {"detail": error.message, "problems": error.problems}, status=error.status_code
        )

    @api.exception_handler(HttpError)
    def http_error(request, error: HttpError):
        return api.create_response(
            request, {"detail": error.message, "problems": []}, status=error.status_code
        )

    @api.exception_handler(Throttled)
    def throttled(request, error: Throttled):
        response = api.create_response(
            request,
            {
                "detail": _("Too many requests: try again in %(n)s seconds.") % {"n": error.wait},
                "problems": [],
            },
            status=429,
        )
        response["Retry-After"] = str(error.wait)
        return response

    @api.exception_handler(ValidationError)
    def invalid(request, error: ValidationError):
        problems = [
            {"field": _field(e.get("loc", ())), "message": e.get("msg", "")} for e in error.errors
        ]
        return api.create_response(
            request,
            {"detail": _("The request was refused; nothing was saved."), "problems": problems},
            status=422,
        )

    @api.exception_handler(AuthenticationError)
    def unauthenticated(request, error):
        return api.create_response(
            request,
            {
                "detail": _("Send a valid API token: Authorization: Bearer <token>."),
                "problems": [],
            },
            status=401,
        )

    @api.exception_handler(RequestDataTooBig)
    def too_big(request, error):
        return api.create_response(
            request,
            {"detail": _("The request body is too large; nothing was saved."), "problems": []},
            status=413,
        )
