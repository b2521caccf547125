"""Forms for prompt versions: input only; the writes are in services."""

from django import forms
from django.conf import global_settings, settings
from django.utils.translation import gettext_lazy as _

from ..models import PromptVersion
from ..wording import full_width_brackets

MONO = {"class": "mono", "spellcheck": "false", "autocomplete": "off"}


def language_choices() -> list[tuple[str, str]]:
    """The app's own languages first, then every language Django knows."""
    first = list(settings.LANGUAGES)
    seen = {code for code, _name in first}
    rest = sorted(
        ((code, name) for code, name in global_settings.LANGUAGES if code not in seen),
        key=lambda pair: str(pair[1]),
    )
    # Called as the form is shown, in the reader's language.
    return [(code, full_width_brackets(_(name))) for code, name in first + rest]


def language_name(code: str) -> str:
    return str(dict(language_choices()).get(code, code))


class PromptCreateForm(forms.Form):
    name = forms.CharField(
        label=_("Name"),
        max_length=120,
        help_text=_("Versions of a prompt share its name: editing makes the next version."),
    )
    language = forms.ChoiceField(
        label=_("Language"),
        choices=language_choices,
        initial="en",
        help_text=_(
            "Keep the tokens ANSWER, CONFIDENCE, UNKNOWN, HIGH, MEDIUM and LOW in English in every language: the parser reads them."
        ),
    )
    text = forms.CharField(
        label=_("Instruction text"),
        strip=False,
        widget=forms.Textarea(attrs={**MONO, "rows": 20}),
        help_text=_("Put before the numbered items, exactly as written here."),
    )
    note = forms.CharField(
        label=_("Note"),
        max_length=300,
        required=False,
        help_text=_("Optional: what this prompt is for."),
    )


class PromptEditForm(forms.Form):
    text = forms.CharField(
        label=_("Instruction text"), strip=False, widget=forms.Textarea(attrs={**MONO, "rows": 20})
    )
    note = forms.CharField(
        label=_("What changed"),
        max_length=300,
        help_text=_("Shown in the version history, such as “Define MEDIUM more strictly”."),
    )
    language = forms.ChoiceField(label=_("Language"), choices=language_choices)

    @classmethod
    def initial_for(cls, prompt: PromptVersion) -> dict:
        return {"text": prompt.text, "language": prompt.language}
