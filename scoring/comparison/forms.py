"""The "Run again" page's form: input only; the follow-up is made by followups.py."""

from django import forms
from django.db.models import Count, Q
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from probe.forms.experiments import ConfigChoiceField
from probe.models import Experiment, ModelConfig, PromptVersion, Run
from probe.services.experiments import MAX_REPEATS, SEED_LIMIT
from scoring.comparison import followups

__all__ = ["FollowUpForm", "RunChoiceField"]


class RunChoiceField(forms.ModelMultipleChoiceField):
    def label_from_instance(self, run: Run) -> str:
        return _("Run %(n)s: %(label)s, repeat %(repeat)s (%(answers)s answers)") % {
            "n": run.order,
            "label": run.label,
            "repeat": run.repeat,
            "answers": run.n_answers,
        }


class FollowUpForm(forms.Form):
    name = forms.CharField(
        label=gettext_lazy("Name"),
        max_length=200,
        required=False,
        help_text=gettext_lazy("Empty: the earlier name and today's date."),
    )
    items = forms.ChoiceField(
        label=gettext_lazy("Items"),
        choices=[
            (
                followups.SNAPSHOT,
                gettext_lazy("The earlier snapshot, with the key in force (amendments included)"),
            ),
            (followups.CURRENT, gettext_lazy("The bank's items as they are now")),
        ],
        initial=followups.SNAPSHOT,
        widget=forms.RadioSelect,
    )
    prompt_version = forms.ModelChoiceField(
        label=gettext_lazy("Prompt version"), queryset=PromptVersion.objects.none()
    )
    configs = ConfigChoiceField(
        label=gettext_lazy("Model configurations"),
        queryset=ModelConfig.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        required=False,
    )
    include_runs = RunChoiceField(
        label=gettext_lazy("Include earlier runs as they are"),
        queryset=Run.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        required=False,
        help_text=gettext_lazy(
            "Their answers are copied, not asked again; each takes its configuration's place for "
            "its repeat. Only with the same prompt version and items that were asked before."
        ),
    )
    repeats = forms.IntegerField(label=gettext_lazy("Repeats"), min_value=1, max_value=MAX_REPEATS)
    seed = forms.IntegerField(
        label=gettext_lazy("Run-order seed"),
        required=False,
        min_value=0,
        max_value=SEED_LIMIT - 1,
        help_text=gettext_lazy("Empty: a random seed."),
    )

    def __init__(self, *args, origin: Experiment, **kwargs):
        super().__init__(*args, **kwargs)
        team = origin.team
        earlier = set(origin.runs.values_list("model_config_id", flat=True))
        self.fields["prompt_version"].queryset = team.prompt_versions.order_by("name", "-version")
        self.fields["prompt_version"].initial = origin.prompt_version_id
        # The team's usable configurations, and the earlier ones even if archived since (an
        # archived one can still stand in through an included run).
        self.fields["configs"].queryset = ModelConfig.objects.filter(
            Q(archived=False) | Q(pk__in=earlier), team=team
        ).order_by("label", "pk")
        self.fields["configs"].initial = sorted(earlier)
        self.fields["include_runs"].queryset = (
            origin.runs.filter(status=Run.Status.COLLECTED)
            .select_related("model_config")
            .annotate(n_answers=Count("responses"))
            .order_by("order")
        )
        self.fields["repeats"].initial = origin.repeats
