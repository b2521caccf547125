"""Forms for model configurations: input only; the writes are in services."""

import json

from django import forms
from django.core.exceptions import ValidationError
from django.utils.text import capfirst
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

import adapters
from adapters.options import CHOICE, FLOAT, OPTION_NAMES

from ..models import ModelConfig
from ..provider_labels import provider_labels
from ..services import configs as config_services
from ..wording import word_list
from .common import apply_service_errors


def _model_label(name: str):
    return capfirst(ModelConfig._meta.get_field(name).verbose_name)


def _model_help(name: str):
    return ModelConfig._meta.get_field(name).help_text


def provider_choices() -> list[tuple[str, str]]:
    """The providers offered, with their labels in the user's language (adapters mark them)."""
    return list(provider_labels().items())


def provider_key_hints() -> list[tuple[str, str, str]]:
    """(provider label, usual key variable, whether a key is needed) for the form's help."""
    rows = []
    for name, label in provider_choices():
        adapter = adapters.get_adapter(name)
        if adapter.api_key_note:
            need = gettext(adapter.api_key_note)
        elif adapter.needs_api_key:
            need = _("needed")
        else:
            need = _("none")
        rows.append((label, adapter.api_key_env_hint or "", need))
    return rows


def _declarations(name: str) -> dict[str, adapters.Option]:
    """{provider: its declaration of option `name`} for the providers that take it."""
    found = {}
    for provider in adapters.PROVIDERS:
        for option in adapters.PROVIDERS[provider].options:
            if option.name == name:
                found[provider] = option
    return found


def _bounds(option: adapters.Option) -> dict:
    """The input's attributes for a number option's bounds (the browser's hint; the adapter
    checks them again on the server, with its own message)."""
    attrs = {"step": "any"} if option.kind == FLOAT else {}
    if option.minimum is not None:
        attrs["min"] = option.minimum
    if option.maximum is not None:
        attrs["max"] = option.maximum
    return attrs


def option_field(name: str, provider: str) -> forms.Field:
    """The form field of setting `name`, as `provider` declares it: its help text and bounds.

    A provider that does not take the setting still gets the field (the provider can be changed
    on the same form), saying which providers take it; the page's script (static/js/app.js)
    swaps help and bounds when another provider is chosen, from `data-options`.
    """
    declared = _declarations(name)
    option = declared.get(provider) or next(iter(declared.values()))
    labels = dict(provider_choices())
    per_provider = {
        p: {"help": gettext(o.help), **{k: v for k, v in _bounds(o).items() if k != "step"}}
        for p, o in declared.items()
    }
    elsewhere = gettext("Only for: %(providers)s.") % {
        "providers": word_list(labels[p] for p in declared)
    }
    attrs = {"data-options": json.dumps(per_provider), "data-not-taken": elsewhere}
    help_text = gettext(option.help) if provider in declared else elsewhere
    if provider in declared:
        attrs.update(_bounds(option))
    common = {"label": _model_label(name), "required": False, "help_text": help_text}
    if option.kind == CHOICE:
        shown = dict(ModelConfig.Effort.choices)
        choices = [(value, shown.get(value, value)) for value in option.choices]
        return forms.ChoiceField(choices=choices, widget=forms.Select(attrs=attrs), **common)
    if option.kind == FLOAT:
        return forms.FloatField(widget=forms.NumberInput(attrs=attrs), **common)
    return forms.IntegerField(widget=forms.NumberInput(attrs=attrs), **common)


class ModelConfigForm(forms.Form):
    """Every field of a configuration. The rules are config_services.config_validate's; the
    settings' fields (OPTION_NAMES) are built from the adapters' declarations."""

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

    # Prices: for the costs shown after the reveal; never sent (docs/providers.md, "Prices").
    price_input_per_million = forms.DecimalField(
        label=_model_label("price_input_per_million"),
        required=False,
        min_value=0,
        decimal_places=4,
        help_text=_model_help("price_input_per_million"),
    )
    price_output_per_million = forms.DecimalField(
        label=_model_label("price_output_per_million"),
        required=False,
        min_value=0,
        decimal_places=4,
        help_text=_model_help("price_output_per_million"),
    )

    SECRET_FIELDS = ("api_key_env", "label", "model_name", "base_url")

    def __init__(self, *args, team, instance: ModelConfig | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.team = team
        self.instance = instance
        self.provider = self._provider()
        for name in OPTION_NAMES:
            self.fields[name] = option_field(name, self.provider)
        self.order_fields(config_services.FIELDS)
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

    def _provider(self) -> str:
        """The provider whose declarations shape the settings' fields: the one submitted, else
        the configuration's, else the first offered."""
        names = list(adapters.PROVIDERS)
        if self.is_bound:
            chosen = str(self.data.get("provider", ""))
        else:
            chosen = self.initial.get("provider") or (self.instance and self.instance.provider)
        return chosen if chosen in names else names[0]

    @property
    def option_fields(self) -> list:
        """The settings' bound fields, in the order the adapters declare them."""
        return [self[name] for name in OPTION_NAMES]

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
            apply_service_errors(self, error)
        return data

    def settings(self) -> dict:
        return {field: self.cleaned_data.get(field) for field in config_services.FIELDS}
