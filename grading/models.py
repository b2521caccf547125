"""Grading prompts, graders, grading jobs, their attempts and the grades."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from probe.models import Experiment, ModelConfig, Response, Team
from probe.models.bases import LeasedWork, ProviderCall, VersionedText


class GradingPrompt(VersionedText):
    """The instruction text and calibration examples given to a model grader. Never edited: a
    change is the next version of the same name; the hash covers the text and the examples.
    The fields of every versioned text are probe's (VersionedText), as a prompt version's."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="grading_prompts")
    # [{"question", "key", "answer_format", "answer", "confidence", "label", "reason"}, ...]
    examples = models.JSONField(_("calibration examples"), default=list, blank=True)

    class Meta:
        ordering = ["name", "-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["team", "name", "version"], name="gradingprompt_unique_name_version"
            )
        ]
        verbose_name = _("grading prompt version")
        verbose_name_plural = _("grading prompt versions")


class Grader(models.Model):
    """The deterministic rules alone (no configuration), or the rules then a model: a model
    configuration and a grading prompt version. Its version is taken per job (GradingJob)."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="graders")
    label = models.CharField(_("label"), max_length=120)
    model_config = models.ForeignKey(
        ModelConfig,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="graders",
        verbose_name=_("model configuration"),
    )
    prompt = models.ForeignKey(
        GradingPrompt,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="graders",
        verbose_name=_("grading prompt version"),
    )
    archived = models.BooleanField(_("archived"), default=False)
    created = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["label", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["team", "label"], name="grader_unique_label"),
            models.CheckConstraint(
                condition=(
                    models.Q(model_config__isnull=True, prompt__isnull=True)
                    | models.Q(model_config__isnull=False, prompt__isnull=False)
                ),
                name="grader_model_needs_prompt",
            ),
        ]
        verbose_name = _("grader")
        verbose_name_plural = _("graders")

    def __str__(self) -> str:
        return self.label

    @property
    def uses_model(self) -> bool:
        return self.model_config_id is not None


class GradingJob(LeasedWork):
    """One grader version grading the frozen responses of one experiment. The configuration and
    the prompt are snapshotted when it starts, so a later edit changes nothing it sends. Its
    lease, progress and activity are a run's (LeasedWork), taken through collection's Leases."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Grading")
        DONE = "done", _("Done")
        FAILED = "failed", _("Failed")
        CANCELLED = "cancelled", _("Cancelled")

    ACTIVE = (Status.QUEUED, Status.RUNNING)

    experiment = models.ForeignKey(Experiment, on_delete=models.CASCADE, related_name="+")
    grader = models.ForeignKey(Grader, on_delete=models.PROTECT, related_name="jobs")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    config_snapshot = models.JSONField(default=dict, blank=True)
    config_hash = models.CharField(max_length=64, blank=True)
    prompt = models.ForeignKey(
        GradingPrompt, null=True, blank=True, on_delete=models.PROTECT, related_name="jobs"
    )
    prompt_hash = models.CharField(max_length=64, blank=True)
    parser_version = models.CharField(max_length=20, blank=True)
    rules_version = models.CharField(max_length=20)
    created = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["experiment", "-created", "-pk"]

    def __str__(self) -> str:
        return f"{self.grader} on experiment {self.experiment_id}"

    @property
    def short_version(self) -> str:
        """The grader version in short: the configuration's and the prompt's hashes (7
        characters each), the parser and the rules; the rules' version alone without a model."""
        if not self.config_hash:
            return self.rules_version
        parts = (self.config_hash[:7], self.prompt_hash[:7], self.parser_version)
        return " · ".join((*parts, self.rules_version))


class GradeAttempt(ProviderCall):
    """One request of a model grader for one response, kept whatever came back (the fields
    every provider call records: probe's ProviderCall, as a run's attempt)."""

    job = models.ForeignKey(GradingJob, on_delete=models.CASCADE, related_name="attempts")
    response = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="+")
    # The model as the provider named it in its reply: the grade's version_model.
    reported_model = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["job", "response", "number", "pk"]
        indexes = [
            models.Index(fields=["job", "response", "outcome"], name="gradeattempt_job_resp")
        ]

    def __str__(self) -> str:
        return f"grading attempt {self.number} of response {self.response_id}: {self.outcome}"


class Grade(models.Model):
    """A grader's verdict on one response in one job, with the version that gave it.

    ``state``: decided (a label of the scheme, and its bucket), undecided (the rules could not
    decide and no model was asked), parse failure (the model's reply was unreadable or off the
    menu: never a bucket) or failed (the request failed for good)."""

    class State(models.TextChoices):
        DECIDED = "decided", _("decided")
        UNDECIDED = "undecided", _("left to people")
        PARSE_FAILURE = "parse_failure", _("unreadable reply")
        FAILED = "failed", _("request failed")

    class By(models.TextChoices):
        RULES = "rules", _("deterministic rules")
        MODEL = "model", _("model")

    job = models.ForeignKey(GradingJob, on_delete=models.CASCADE, related_name="grades")
    response = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="+")
    state = models.CharField(max_length=14, choices=State.choices)
    by = models.CharField(max_length=6, choices=By.choices)
    label = models.CharField(max_length=20, blank=True)  # the scheme's label, as parsed
    bucket = models.CharField(max_length=20, blank=True)  # "" unless decided
    reason = models.TextField(blank=True)
    rule = models.CharField(max_length=40, blank=True)  # which rule decided (by rules)
    # How sure the grader is of its label, 0 to 1: 1 for a rule (it decides only what is
    # certain), the reply's CONFIDENCE line for a model (None where it stated none).
    confidence = models.FloatField(null=True, blank=True)
    attempt = models.ForeignKey(
        GradeAttempt, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # The grader's version, on every grade: (model as reported, configuration hash, prompt
    # hash, parser version); a rules grade carries the rules' version as its parser version.
    version_model = models.CharField(max_length=200, blank=True)
    version_config = models.CharField(max_length=64, blank=True)
    version_prompt = models.CharField(max_length=64, blank=True)
    version_parser = models.CharField(max_length=20)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["job", "response"]
        constraints = [
            models.UniqueConstraint(fields=["job", "response"], name="grade_unique_job_response")
        ]

    def __str__(self) -> str:
        return f"grade of response {self.response_id} in job {self.job_id}: {self.state}"

    @property
    def version(self) -> tuple[str, str, str, str]:
        return (self.version_model, self.version_config, self.version_prompt, self.version_parser)


class SecondOpinion(models.Model):
    """A grader's verdict shown to one scorer on one answer, once they had committed their own
    bucket for every answer of its item. ``first_bucket`` is their bucket when it was shown: the
    bucket every agreement figure uses. Keeping it or changing it is recorded with its cause."""

    class Action(models.TextChoices):
        PENDING = "", _("not answered yet")
        KEEP = "keep", _("kept my bucket")
        CHANGE = "change", _("changed my bucket")

    assignment = models.ForeignKey(
        "scoring.Assignment", on_delete=models.CASCADE, related_name="second_opinions"
    )
    grade = models.ForeignKey(Grade, on_delete=models.CASCADE, related_name="opinions")
    response = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="+")
    first_bucket = models.CharField(max_length=20)
    shown_at = models.DateTimeField(auto_now_add=True)
    action = models.CharField(max_length=6, choices=Action.choices, blank=True)
    new_bucket = models.CharField(max_length=20, blank=True)
    cause = models.TextField(blank=True)
    responded_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["assignment", "response"]
        constraints = [
            models.UniqueConstraint(
                fields=["assignment", "grade"], name="secondopinion_unique_assignment_grade"
            )
        ]

    def __str__(self) -> str:
        return f"second opinion on response {self.response_id} for assignment {self.assignment_id}"


class TrustThreshold(models.Model):
    """When a team trusts a grader version: the lower end of its agreement interval (against
    the final buckets, else against the scorers) no worse than the scorers' agreement with each
    other less ``margin``, over at least ``min_answers`` answers judged by both."""

    class Metric(models.TextChoices):
        PERCENT = "percent", _("percent agreement")
        KAPPA = "kappa", _("Cohen's kappa")
        AC1 = "ac1", _("Gwet's AC1")

    team = models.OneToOneField(Team, on_delete=models.CASCADE, related_name="trust_threshold")
    metric = models.CharField(
        _("figure"), max_length=8, choices=Metric.choices, default=Metric.PERCENT
    )
    min_answers = models.PositiveIntegerField(_("at least this many judged answers"), default=300)
    margin = models.FloatField(
        _("allowed shortfall"),
        default=0.0,
        help_text=_("How far below the scorers' agreement the lower end may be (0: none)."),
    )
    updated = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"trust threshold of {self.team}"


class RoutingPlan(models.Model):
    """An experiment's answers split between a grader and people (opt-in, set by a lead before
    the first scorer starts). The grader decides the answers where it is certain: the rules'
    decisions, and the model's at or above ``confidence_cut``, calibrated on the judged answers
    of ``calibration_job`` (a job of the same grader version that meets the team's trust
    threshold). People judge the rest, and an audit: a uniform random sample of the
    grader-decided answers, ``audit_share`` of them and at least ``audit_min``, drawn with
    ``seed``."""

    experiment = models.OneToOneField(
        Experiment, on_delete=models.CASCADE, related_name="routing_plan"
    )
    job = models.ForeignKey(GradingJob, on_delete=models.PROTECT, related_name="routing_plans")
    calibration_job = models.ForeignKey(
        GradingJob, on_delete=models.PROTECT, related_name="calibrated_plans"
    )
    confidence_cut = models.FloatField()
    calibration_sentence = models.TextField(blank=True)
    audit_share = models.FloatField(default=0.10)
    audit_min = models.PositiveIntegerField(default=30)
    seed = models.BigIntegerField()
    created = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    def __str__(self) -> str:
        return f"routing of experiment {self.experiment_id}"


class RoutedAnswer(models.Model):
    """Where one answer of a routed experiment goes, and why. ``grader_bucket``: the grader's
    bucket for an answer it decided (the audit's included), "" for one people judge alone;
    ``returned``: why a grader-decided answer went back to people after routing."""

    class Route(models.TextChoices):
        GRADER = "grader", _("decided by the grader")
        AUDIT = "audit", _("audit: decided by the grader, judged by people too")
        PEOPLE = "people", _("judged by people")

    class Why(models.TextChoices):
        CERTAIN = "certain", _("the grader is certain")
        UNCERTAIN = "uncertain", _("below the confidence cut")
        FLAGGED = "flagged", _("a (!) item")
        DISPUTED = "disputed", _("a disputed key")
        SUSPECT = "suspect", _("a key suspect")
        UNREADABLE = "unreadable", _("an unreadable reply")
        UNDECIDED = "undecided", _("left to people")

    class Returned(models.TextChoices):
        NO = "", _("not returned")
        DISPUTED = "disputed", _("its key was disputed")
        AMENDED = "amended", _("its key was amended")
        SUSPECT = "suspect", _("its key became a suspect")

    plan = models.ForeignKey(RoutingPlan, on_delete=models.CASCADE, related_name="answers")
    response = models.OneToOneField(Response, on_delete=models.CASCADE, related_name="+")
    route = models.CharField(max_length=6, choices=Route.choices)
    why = models.CharField(max_length=10, choices=Why.choices)
    grader_bucket = models.CharField(max_length=20, blank=True)
    # An answer the grader decided (or of the audit) that went back to people after routing,
    # and why (scoring.queue.reopen): the grader decides it no more, its figures count it as
    # people's. ``route`` keeps what routing decided.
    returned = models.CharField(max_length=10, choices=Returned.choices, blank=True, default="")
    returned_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["plan", "response"]
        indexes = [models.Index(fields=["plan", "route"], name="routedanswer_plan_route")]

    def __str__(self) -> str:
        return f"response {self.response_id}: {self.route}"
