"""Every refusal is a 4xx with a JSON body: `detail` in words, and `problems` naming each field."""

import functools

from django.core.exceptions import RequestDataTooBig
from django.http import HttpResponseNotAllowed, JsonResponse
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from ninja.errors import AuthenticationError, HttpError, Throttled, ValidationError

from probe.wording import word_list


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


# The request's language for the validation errors pydantic writes in English, by their type
# (the type itself is pydantic's and stays out of the body; the field names the place).
VALIDATION_MESSAGES = {
    "missing": gettext_lazy("This field is required."),
    "int_parsing": gettext_lazy("Enter a whole number."),
    "int_type": gettext_lazy("Enter a whole number."),
    "int_from_float": gettext_lazy("Enter a whole number."),
    "float_parsing": gettext_lazy("Enter a number."),
    "float_type": gettext_lazy("Enter a number."),
    "bool_parsing": gettext_lazy("Enter true or false."),
    "bool_type": gettext_lazy("Enter true or false."),
    "string_type": gettext_lazy("Enter text."),
    "list_type": gettext_lazy("Enter a list."),
    "dict_type": gettext_lazy("Enter an object."),
    "model_type": gettext_lazy("Enter an object."),
    "enum": gettext_lazy("Choose one of the values the schema lists."),
    "literal_error": gettext_lazy("Choose one of the values the schema lists."),
    "string_too_long": gettext_lazy("This text is too long."),
    "too_long": gettext_lazy("This list is too long."),
    "string_too_short": gettext_lazy("This text is too short."),
    "too_short": gettext_lazy("This list is too short."),
    "greater_than": gettext_lazy("This number is too small."),
    "greater_than_equal": gettext_lazy("This number is too small."),
    "less_than": gettext_lazy("This number is too large."),
    "less_than_equal": gettext_lazy("This number is too large."),
    "extra_forbidden": gettext_lazy("This field is not one the schema lists."),
    "string_pattern_mismatch": gettext_lazy("Choose one of the values the schema lists."),
    "json_invalid": gettext_lazy("The request body is not valid JSON; nothing was saved."),
}
# Django Ninja's own refusals, written in English: the same words in the request's language.
NINJA_MESSAGES = {
    "Cannot parse request body": gettext_lazy(
        "The request body is not valid JSON; nothing was saved."
    ),
    "CSRF check Failed": gettext_lazy("CSRF check failed."),
}


def _message(error: dict) -> str:
    known = VALIDATION_MESSAGES.get(error.get("type", ""))
    if known is not None:
        return str(known)
    # A rarer refusal pydantic words in English: English keeps its detail, another language
    # gets a sentence of its own (the field still says where).
    if (get_language() or "en").startswith("en"):
        return error.get("msg", "")
    return _("This value is not valid: see the schema.")


def _ninja_message(message: str) -> str:
    known = NINJA_MESSAGES.get(message.split(" (", 1)[0])
    return str(known) if known is not None else message


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
            request,
            {"detail": _ninja_message(str(error.message)), "problems": []},
            status=error.status_code,
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
            {"field": _field(e.get("loc", ())), "message": _message(e)} for e in error.errors
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


def method_not_allowed(view):
    """The view of one path, answering a method none of its operations takes (DELETE /api/me,
    GET on a POST-only endpoint) in the API's shape and the request's language: Django Ninja
    answers it itself, before any handler, as text/html in English."""

    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        if not isinstance(response, HttpResponseNotAllowed):
            return response
        allowed = sorted(m.strip() for m in response["Allow"].split(",") if m.strip())
        refusal = JsonResponse(
            {
                "detail": _("This endpoint does not take %(method)s: use %(allowed)s.")
                % {"method": request.method, "allowed": word_list(allowed)},
                "problems": [],
            },
            status=405,
        )
        refusal["Allow"] = ", ".join(allowed)
        return refusal

    return wrapper
