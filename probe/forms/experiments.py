"""Forms for experiments and pasted replies: input only; the writes are in services."""

from django import forms
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from scoring.schemes import DEFAULT_SCHEME
from scoring.schemes import offered as offered_schemes

from ..models import Bank, Experiment, ModelConfig, PromptVersion, Team
from ..prompts import DEFAULT_PROMPT_NAME
from ..selectors.banks import bank_languages
from ..services.collection import MAX_PASTE_CHARS
from ..services.experiments import MAX_REPEATS, SEED_LIMIT


class ConfigChoiceField(forms.ModelMultipleChoiceField):
    def label_from_instance(self, config: ModelConfig) -> str:
        label = config.label
        if config.is_simulated and "simulated" not in label.lower():
            label += " " + str(_("(simulated)"))
        elif config.is_manual:
            label += " " + str(_("(manual: you paste the reply)"))
        return f"{label} · {config.model_name}" if config.model_name else label


class LanguageSelect(forms.Select):
    """A select whose options carry data-language, so the page can match prompt to bank."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.languages: dict[str, str] = {}

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        language = self.languages.get(str(value))
        if language:
            option["attrs"]["data-language"] = language
        return option


class ExperimentForm(forms.Form):
    name = forms.CharField(
        label=_("Name"),
        max_length=200,
        required=False,
        help_text=_("Empty: the bank's name and today's date."),
    )
    bank = forms.ModelChoiceField(
        label=_("Bank"),
        queryset=Bank.objects.none(),
        widget=LanguageSelect(attrs={"data-prompt-follows": "id_prompt_version"}),
        help_text=_(
            "Its active items and their key are copied into the experiment now; later edits to the bank do not change it."
        ),
    )
    prompt_version = forms.ModelChoiceField(
        label=_("Prompt version"),
        queryset=PromptVersion.objects.none(),
        widget=LanguageSelect,
        help_text=_("Chosen to match the bank's language; choose another to override."),
    )
    configs = ConfigChoiceField(
        label=_("Model configurations"),
        queryset=ModelConfig.objects.none(),
        widget=forms.CheckboxSelectMultiple,
    )
    repeats = forms.IntegerField(
        label=_("Repeats"),
        min_value=1,
        max_value=MAX_REPEATS,
        initial=2,
        help_text=_(
            "Runs per configuration. Two or more show how much a model varies from run to run; with one, that variation is unknown."
        ),
    )
    mode = forms.ChoiceField(
        label=_("How the items are sent"),
        choices=Experiment.Mode.choices,
        initial=Experiment.Mode.SHEET,
        widget=forms.RadioSelect,
    )
    seed = forms.IntegerField(
        label=_("Run-order seed"),
        required=False,
        min_value=0,
        max_value=SEED_LIMIT - 1,
        help_text=_(
            "Empty: a random seed. It is stored and shown, so the order can be reproduced."
        ),
    )

    # Its choices and help are the offered schemes' (scoring.schemes), set in __init__.
    scheme = forms.ChoiceField(
        label=_("Scoring scheme"),
        required=False,
        initial=DEFAULT_SCHEME,
        widget=forms.RadioSelect,
    )
    hide_confidence = forms.BooleanField(
        label=_("Hide the confidence while scorers judge correctness"),
        required=False,
        help_text=_("It is still used to derive the bucket."),
    )
    confirm_wrong = forms.ChoiceField(
        label=_("Ask before a HIGH-confidence answer is marked wrong"),
        choices=Experiment.ConfirmWrong.choices,
        required=False,
        initial=Experiment.ConfirmWrong.ONCE,
        widget=forms.RadioSelect,
        help_text=_(
            "A confident, specific disagreement is more often a correct model than a wrong key. Once per item: the first such answer on an item asks, the rest of that item does not."
        ),
    )
    noise_floor = forms.FloatField(
        label=_("Noise floor (items)"),
        required=False,
        min_value=0,
        help_text=_("Gaps in net usable below this are marked as noise. Empty: 3 items per 30."),
    )

    def clean_confirm_wrong(self):
        return self.cleaned_data.get("confirm_wrong") or Experiment.ConfirmWrong.ONCE

    def clean_scheme(self):
        return self.cleaned_data.get("scheme") or DEFAULT_SCHEME

    def __init__(self, *args, team: Team, bank: str | None = None, **kwargs):
        """``bank``: the pk a link asked for (``?bank=`` from the bank's page), chosen to start
        with when it is one of the team's banks; anything else is ignored."""
        super().__init__(*args, **kwargs)
        offered = offered_schemes()
        self.fields["scheme"].choices = [(s.key, s.label) for s in offered]
        self.fields["scheme"].help_text = " ".join(str(s.help) for s in offered if s.help)
        self.fields["bank"].queryset = team.banks.order_by("name", "pk")
        self.fields["prompt_version"].queryset = team.prompt_versions.order_by("name", "-version")
        self.fields["configs"].queryset = team.model_configs.filter(archived=False).order_by(
            "label", "pk"
        )
        # Sensible starting points: the bank when there is only one, and the default prompt in
        # the bank's language (the interface's, for a bank with no language of its own). The
        # page's script keeps the prompt in step when another bank is chosen.
        banks = list(self.fields["bank"].queryset[:2])
        asked = (
            self.fields["bank"].queryset.filter(pk=int(bank)).first()
            if bank and bank.isdigit()
            else None
        )
        if asked is not None:
            banks = [asked]
        if len(banks) == 1:
            self.fields["bank"].initial = banks[0].pk
        languages = bank_languages(self.fields["bank"].queryset)
        self.fields["bank"].widget.languages = {str(pk): lang for pk, lang in languages.items()}
        defaults = {}
        for language, name in DEFAULT_PROMPT_NAME.items():
            prompt = team.prompt_versions.filter(name=name).order_by("-version").first()
            if prompt is not None:
                defaults[language] = prompt
        self.fields["prompt_version"].widget.languages = {
            str(prompt.pk): language for language, prompt in defaults.items()
        }
        interface = (translation.get_language() or "en").split("-")[0]
        language = languages.get(banks[0].pk, interface) if len(banks) == 1 else interface
        default_prompt = defaults.get(language) or defaults.get("en")
        if default_prompt is not None:
            self.fields["prompt_version"].initial = default_prompt.pk


class PasteForm(forms.Form):
    text = forms.CharField(
        label=_("The model's whole reply"),
        strip=False,
        max_length=MAX_PASTE_CHARS,
        widget=forms.Textarea(attrs={"rows": 14, "spellcheck": "false", "class": "mono"}),
    )
    item = forms.IntegerField(required=False, widget=forms.HiddenInput)
