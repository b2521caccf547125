"""Forms for model configurations: input only; the writes are in services."""

from django import forms
from django.core.exceptions import ValidationError
from django.utils.text import capfirst
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

import adapters

from ..models import ModelConfig
from ..services import configs as config_services


def _model_label(name: str):
    return capfirst(ModelConfig._meta.get_field(name).verbose_name)


def _model_help(name: str):
    return ModelConfig._meta.get_field(name).help_text


def provider_choices() -> list[tuple[str, str]]:
    """The providers offered, with their labels in the user's language (adapters mark them)."""
    return [(name, gettext(label)) for name, label in adapters.provider_choices()]


def provider_key_hints() -> list[tuple[str, str, str]]:
    """(provider label, usual key variable, whether a key is needed) for the form's help."""
    rows = []
    for name, label in provider_choices():
        adapter = adapters.get_adapter(name)
        if name == "openai_chat":
            need = _("for api.openai.com and OpenRouter; optional for local servers")
        elif adapter.needs_api_key:
            need = _("needed")
        else:
            need = _("none")
        rows.append((label, adapter.api_key_env_hint or "", need))
    return rows


class ModelConfigForm(forms.Form):
    """Every field of a configuration. The rules are config_services.config_validate's."""

    label = forms.CharField(
        label=_model_label("label"),
        max_length=120,
        help_text=_(
            "Hidden from scorers until their reveal; make it say which model and settings."
        ),
    )
    provider = forms.ChoiceField(label=_model_label("provider"), choices=provider_choices)
    model_name = forms.CharField(
        label=_model_label("model_name"),
        max_length=200,
        help_text=_(
            "As the provider spells it, such as gpt-4.1 or claude-sonnet-4-5; for the simulator: sim-expert, sim-overconfident, sim-cautious, sim-sloppy or sim-flaky."
        ),
    )
    # A CharField, not a URLField: Django's URL validator refuses host names without a dot,
    # such as http://ollama:11434/v1 inside docker-compose.
    base_url = forms.CharField(
        label=_model_label("base_url"),
        max_length=200,
        required=False,
        help_text=_(
            "Empty: the provider's own API. For OpenAI-compatible servers (vLLM, Ollama, llama.cpp, OpenRouter) and the simulator."
        ),
    )
    temperature = forms.FloatField(
        label=_model_label("temperature"),
        required=False,
        help_text=_("0 to 2; empty: the provider's default."),
    )
    max_output_tokens = forms.IntegerField(
        label=_model_label("max_output_tokens"), required=False, min_value=1
    )
    reasoning_effort = forms.ChoiceField(
        label=_model_label("reasoning_effort"), required=False, choices=ModelConfig.Effort.choices
    )
    thinking_budget = forms.IntegerField(
        label=_model_label("thinking_budget"),
        required=False,
        min_value=0,
        help_text=_("Anthropic (at least 1024) and Gemini only; instead of a reasoning effort."),
    )
    seed = forms.IntegerField(
        label=_model_label("seed"),
        required=False,
        min_value=-(2**63),
        max_value=2**63 - 1,
        help_text=_("Sent where the API takes one (OpenAI chat, Gemini, the simulator)."),
    )
    api_key_env = forms.CharField(
        label=_model_label("api_key_env"),
        max_length=100,
        required=False,
        help_text=_model_help("api_key_env"),
        widget=forms.TextInput(
            attrs={"autocomplete": "off", "spellcheck": "false", "class": "mono"}
        ),
    )
    concurrency_limit = forms.IntegerField(
        label=_model_label("concurrency_limit"),
        min_value=1,
        max_value=config_services.MAX_CONCURRENCY,
        initial=4,
        help_text=_model_help("concurrency_limit"),
    )

    SECRET_FIELDS = ("api_key_env", "label", "model_name", "base_url")

    def __init__(self, *args, team, instance: ModelConfig | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.team = team
        self.instance = instance
        self.pasted_key_fields: list[str] = []
        if self.is_bound:
            # Take a pasted key out of the submitted data at once, so that no error path
            # (too long, invalid, ...) can render it back into the page.
            data = self.data.copy()
            for field in self.SECRET_FIELDS:
                value = str(data.get(field, ""))
                if (field == "api_key_env" and config_services.looks_like_secret(value)) or (
                    config_services.KEY_IN_TEXT.search(value)
                ):
                    data[field] = ""
                    self.pasted_key_fields.append(field)
            self.data = data

    @classmethod
    def initial_for(cls, config: ModelConfig) -> dict:
        return {field: getattr(config, field) for field in config_services.FIELDS}

    def clean(self):
        data = super().clean()
        if self.pasted_key_fields:
            message = {
                "api_key_env": _(
                    "This looks like an API key, not the name of a variable. Put the key in an "
                    "environment variable of the web server and the workers, and enter only the "
                    "variable's NAME here (for example OPENAI_API_KEY). What you typed was not saved."
                )
            }
            for field in self.pasted_key_fields:
                self.add_error(
                    field,
                    message.get(
                        field,
                        _(
                            "This looks like it contains an API key. Keys belong in an environment variable, never here."
                        ),
                    ),
                )
            return data
        if self.errors:
            return data
        try:
            data.update(
                config_services.config_validate(team=self.team, data=data, instance=self.instance)
            )
        except ValidationError as error:
            for field, errors in error.error_dict.items():
                self.add_error(field if field in self.fields else None, errors)
        return data

    def settings(self) -> dict:
        return {field: self.cleaned_data.get(field) for field in config_services.FIELDS}
