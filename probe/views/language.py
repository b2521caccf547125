"""The language switcher: Django's set_language, remembered on the user when one is signed in."""

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.utils.translation import check_for_language
from django.views.decorators.http import require_POST
from django.views.i18n import set_language

from ..htmx import HtmxHttpRequest
from ..middleware import SESSION_LANGUAGE_KEY
from ..services.preferences import user_language_set


@login_not_required
@require_POST
def language_set(request: HtmxHttpRequest):
    # set_language sets the language cookie and redirects to a safe `next`; it ignores a
    # language that is not offered, and so does this.
    response = set_language(request)
    language = request.POST.get("language", "")
    if request.user.is_authenticated and check_for_language(language) and language in _offered():
        user_language_set(user=request.user, language=language)
        request.session[SESSION_LANGUAGE_KEY] = language
    return response


def _offered() -> set[str]:
    return {code for code, _name in settings.LANGUAGES}
