"""Forms of grading's pages: a grader, the next version of a grading prompt, starting a job."""

from __future__ import annotations

import json

from django import forms
from django.utils.translation import gettext_lazy as _

from probe.models import ModelConfig

from .models import Grader, GradingJob, GradingPrompt, TrustThreshold


class GraderForm(forms.Form):
    label = forms.CharField(label=_("Label"), max_length=120)
    model_config = forms.ModelChoiceField(
        label=_("Model configuration"),
        queryset=ModelConfig.objects.none(),
        required=False,
        empty_label=_("none: the deterministic rules alone"),
        help_text=_(
            "Any configuration that sends requests: a provider, an OpenAI-compatible "
            "server or the local simulator."
        ),
    )
    prompt = forms.ModelChoiceField(
        label=_("Grading prompt version"), queryset=GradingPrompt.objects.none(), required=False
    )

    def __init__(self, *args, team, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["model_config"].queryset = ModelConfig.objects.filter(team=team).exclude(
            provider="manual"
        )
        self.fields["prompt"].queryset = GradingPrompt.objects.filter(team=team)


class PromptVersionForm(forms.Form):
    prompt = forms.ModelChoiceField(queryset=GradingPrompt.objects.none(), widget=forms.HiddenInput)
    text = forms.CharField(label=_("Instruction text"), widget=forms.Textarea(attrs={"rows": 10}))
    examples = forms.CharField(
        label=_("Calibration examples (JSON list)"),
        widget=forms.Textarea(attrs={"rows": 8}),
        required=False,
    )
    note = forms.CharField(label=_("What changed"), max_length=300)

    def __init__(self, *args, team, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["prompt"].queryset = GradingPrompt.objects.filter(team=team)

    def clean_examples(self):
        raw = self.cleaned_data["examples"].strip()
        if not raw:
            return None
        try:
            value = json.loads(raw)
        except ValueError as error:
            raise forms.ValidationError(
                _("The examples are not valid JSON: %(error)s") % {"error": error}
            ) from None
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise forms.ValidationError(_("The examples must be a JSON list of objects."))
        return value


class StartForm(forms.Form):
    grader = forms.ModelChoiceField(label=_("Grader"), queryset=Grader.objects.none())

    def __init__(self, *args, team, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["grader"].queryset = Grader.objects.filter(team=team, archived=False)


class ThresholdForm(forms.ModelForm):
    class Meta:
        model = TrustThreshold
        fields = ["metric", "min_answers", "margin"]

    def clean_margin(self):
        margin = self.cleaned_data["margin"]
        if not 0 <= margin <= 1:
            raise forms.ValidationError(_("Give a shortfall between 0 and 1."))
        return margin


class RoutingForm(forms.Form):
    """Route the experiment's answers with one of its finished grading jobs."""

    job = forms.ModelChoiceField(label=_("Grading job"), queryset=GradingJob.objects.none())
    audit_share = forms.FloatField(
        label=_("Audit share"),
        initial=0.10,
        min_value=0.01,
        max_value=1,
        help_text=_("Of the answers the grader decides, the share people judge too (blind)."),
    )
    audit_min = forms.IntegerField(
        label=_("At least this many audit answers"), initial=30, min_value=30
    )

    def __init__(self, *args, experiment, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["job"].queryset = GradingJob.objects.filter(
            experiment=experiment, status=GradingJob.Status.DONE
        ).select_related("grader")
