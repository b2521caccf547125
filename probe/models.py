"""Teams and roles, item banks (blocks, items, key entries) and the audit log."""

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from adapters import registry


class Role(models.TextChoices):
    VIEWER = "viewer", _("Viewer")
    SCORER = "scorer", _("Scorer")
    EDITOR = "editor", _("Editor")
    OWNER = "owner", _("Owner")


# Each role can do everything the roles before it can.
ROLE_RANK = {Role.VIEWER: 1, Role.SCORER: 2, Role.EDITOR: 3, Role.OWNER: 4}


def role_at_least(role: str | None, needed: str) -> bool:
    return role is not None and ROLE_RANK[Role(role)] >= ROLE_RANK[Role(needed)]


class Team(models.Model):
    name = models.CharField(_("name"), max_length=120)
    slug = models.SlugField(_("slug"), max_length=60, unique=True)
    show_scorer_names = models.BooleanField(
        _("name scorers during reconciliation"),
        default=True,
        help_text=_("When off, the lead sees each scorer's bucket without their name."),
    )
    recheck_carried = models.BooleanField(
        _("send carried answers through the blind queue"),
        default=False,
        help_text=_(
            "An answer identical to one already given a final bucket (same item, key, answer and "
            "confidence) carries that bucket. When on, scorers still see it, for a fresh look."
        ),
    )
    recheck_after_days = models.PositiveIntegerField(
        _("re-check key sources after (days)"),
        default=365,
        help_text=_(
            "A key entry whose sources were last checked longer ago than this is due for a re-check."
        ),
    )
    created = models.DateTimeField(auto_now_add=True)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="teams"
    )

    class Meta:
        ordering = ["name"]
        verbose_name = _("team")
        verbose_name_plural = _("teams")

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("probe:team_home", kwargs={"team_slug": self.slug})


class Membership(models.Model):
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(_("role"), max_length=10, choices=Role.choices, default=Role.VIEWER)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["team", "user"], name="membership_unique_team_user")
        ]
        ordering = ["team__name", "user__username"]
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")

    def __str__(self) -> str:
        return f"{self.user} in {self.team} ({self.role})"


class Bank(models.Model):
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="banks")
    name = models.CharField(_("name"), max_length=200)
    description = models.TextField(_("description"), blank=True)
    # The language of the headings the bank's text file was written with (Block / ブロック,
    # Answer key / 解答鍵), so that a text export writes them back the same way.
    text_language = models.CharField(
        _("language of the text headings"),
        max_length=8,
        choices=[("en", _("English")), ("ja", _("Japanese"))],
        default="en",
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["name", "pk"]
        verbose_name = _("bank")
        verbose_name_plural = _("banks")

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("probe:bank_detail", kwargs={"bank_pk": self.pk})


class Block(models.Model):
    bank = models.ForeignKey(Bank, on_delete=models.CASCADE, related_name="blocks")
    code = models.CharField(
        _("code"), max_length=4, help_text=_("A short code letter, such as A or B.")
    )
    title = models.CharField(_("title"), max_length=200)
    description = models.TextField(_("description"), blank=True)
    order = models.PositiveIntegerField(_("order"), default=0)

    class Meta:
        ordering = ["order", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["bank", "code"], name="block_unique_code_in_bank")
        ]
        verbose_name = _("block")
        verbose_name_plural = _("blocks")

    def __str__(self) -> str:
        return f"{self.code}. {self.title}"


class AnswerKind(models.TextChoices):
    DATE = "date", _("date")
    NAME = "name", _("name")
    NUMBER = "number", _("number")
    IDENTIFIER = "identifier", _("identifier")
    SHORT_PHRASE = "short_phrase", _("short phrase")
    FREE_TEXT = "free_text", _("free text")


class Item(models.Model):
    block = models.ForeignKey(Block, on_delete=models.CASCADE, related_name="items")
    question = models.TextField(_("question"))
    answer_format = models.CharField(
        _("expected answer format"),
        max_length=200,
        blank=True,
        help_text=_("Optional, for example 'a status code' or 'one word'."),
    )
    retired = models.BooleanField(_("retired"), default=False)
    topic = models.CharField(
        _("topic"),
        max_length=200,
        blank=True,
        help_text=_("Optional: a finer subject than the block's, for the report's slices."),
    )
    ref = models.CharField(
        _("id in the source file"),
        max_length=100,
        blank=True,
        help_text=_("The item's id in the CSV or JSON Lines file it came from; kept on export."),
    )
    answer_kind = models.CharField(
        _("kind of answer"),
        max_length=20,
        choices=AnswerKind.choices,
        blank=True,
        help_text=_(
            "Date, name, number, identifier, short phrase or free text: for the report's slices."
        ),
    )
    # Changes when the question or the key answer changes; the old ones are kept as ItemVersion
    # rows, and an experiment's snapshot records the version it took.
    version = models.PositiveIntegerField(_("version"), default=1)
    retired_reason = models.TextField(_("why retired"), blank=True)
    order = models.PositiveIntegerField(_("order"), default=0)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["block__order", "block_id", "order", "pk"]
        # A bank page numbers and moves items within their block by this order.
        indexes = [models.Index(fields=["block", "order"], name="item_block_order")]
        verbose_name = _("item")
        verbose_name_plural = _("items")

    def __str__(self) -> str:
        return self.question[:80]

    @property
    def key_entry_or_none(self) -> "KeyEntry | None":
        try:
            return self.key_entry
        except KeyEntry.DoesNotExist:
            return None


class KeyEntry(models.Model):
    item = models.OneToOneField(Item, on_delete=models.CASCADE, related_name="key_entry")
    answer = models.TextField(_("answer"))
    flagged = models.BooleanField(
        _("flagged (!)"),
        default=False,
        help_text=_("Check against a primary source before marking a model wrong."),
    )
    flag_note = models.TextField(_("flag note"), blank=True)
    sources = models.JSONField(_("source references"), default=list, blank=True)
    sources_checked = models.DateField(
        _("sources checked on"),
        null=True,
        blank=True,
        help_text=_("The day someone last checked the answer against its sources."),
    )
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("key entry")
        verbose_name_plural = _("key entries")

    def __str__(self) -> str:
        return self.answer[:80]


class ItemVersion(models.Model):
    """An item as it was before its question or key answer changed (its version then)."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="versions")
    version = models.PositiveIntegerField()
    question = models.TextField()
    answer_format = models.CharField(max_length=200, blank=True)
    key_answer = models.TextField(blank=True)  # "" when the item had no key entry
    created = models.DateTimeField(auto_now_add=True)  # when it stopped being the current one
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["item", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["item", "version"], name="itemversion_unique_version")
        ]

    def __str__(self) -> str:
        return f"v{self.version}: {self.question[:60]}"


class KeyEntryRevision(models.Model):
    """A bank key entry as it was before a change, with who changed it, when, why and the source."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="key_revisions")
    answer = models.TextField(blank=True)  # "" when the item had no key entry before
    flagged = models.BooleanField(default=False)
    flag_note = models.TextField(blank=True)
    sources = models.JSONField(default=list, blank=True)
    new_answer = models.TextField(blank=True)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    changed_at = models.DateTimeField(auto_now_add=True)
    reason = models.TextField(blank=True)
    source = models.TextField(blank=True)  # the primary source checked, when the review did it

    class Meta:
        ordering = ["item", "-changed_at", "-pk"]

    def __str__(self) -> str:
        return f"key of item {self.item_id} changed {self.changed_at:%Y-%m-%d}"


class AuditEvent(models.Model):
    class Action(models.TextChoices):
        CREATE = "create", _("created")
        UPDATE = "update", _("changed")
        DELETE = "delete", _("deleted")
        MOVE = "move", _("moved")
        RETIRE = "retire", _("retired")
        RESTORE = "restore", _("restored")
        IMPORT = "import", _("imported")
        EXPORT = "export", _("exported")
        KEY_VIEW = "key_view", _("viewed the key")
        MEMBER = "member", _("changed membership")
        LOGIN_LOCKED = "login_locked", _("login locked")

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="audit_events")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Kept as text so the record outlives the bank it describes.
    bank_name = models.CharField(max_length=200, blank=True)
    bank = models.ForeignKey(
        Bank, null=True, blank=True, on_delete=models.SET_NULL, related_name="audit_events"
    )
    action = models.CharField(max_length=20, choices=Action.choices)
    subject = models.CharField(max_length=40)
    summary = models.TextField(blank=True)
    details = models.JSONField(default=dict, blank=True)
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created", "-pk"]
        indexes = [models.Index(fields=["team", "-created"], name="audit_team_created")]
        verbose_name = _("audit event")
        verbose_name_plural = _("audit events")

    def __str__(self) -> str:
        return f"{self.created:%Y-%m-%d %H:%M} {self.user} {self.action} {self.subject}"


class Invitation(models.Model):
    """A one-time, expiring link that makes its holder a member of a team.

    Addressed either to an e-mail address (whoever opens the link may accept it, or create an
    account with it) or to an existing account that already shares a team with the inviting
    owner (only that account may accept it). Only a hash of the link's token is stored.
    """

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="invitations")
    role = models.CharField(_("role"), max_length=10, choices=Role.choices, default=Role.VIEWER)
    email = models.EmailField(_("e-mail address"), blank=True)
    invitee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="invitations_received",
    )
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    expires = models.DateTimeField(_("expires"))
    accepted = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    revoked = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=(models.Q(email="") & models.Q(invitee__isnull=False))
                | (~models.Q(email="") & models.Q(invitee__isnull=True)),
                name="invitation_one_addressee",
            )
        ]
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")

    def __str__(self) -> str:
        return f"{self.addressee} to {self.team} ({self.role})"

    @property
    def addressee(self) -> str:
        return self.email or (self.invitee.get_username() if self.invitee else "")


# Collection: prompt versions, model configurations, experiments, runs, attempts, responses --


class PromptVersion(models.Model):
    """The exact instruction text put before the items. Never edited: a change is a new version."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="prompt_versions")
    name = models.CharField(_("name"), max_length=120)
    version = models.PositiveIntegerField(_("version"), default=1)
    language = models.CharField(_("language"), max_length=10, default="en")
    text = models.TextField(_("instruction text"))
    content_hash = models.CharField(_("content hash"), max_length=64, editable=False)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="children"
    )
    note = models.CharField(_("what changed"), max_length=300, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["name", "-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["team", "name", "version"], name="prompt_unique_name_version"
            )
        ]
        verbose_name = _("prompt version")
        verbose_name_plural = _("prompt versions")

    def __str__(self) -> str:
        return f"{self.name} v{self.version}"

    @property
    def short_hash(self) -> str:
        return self.content_hash[:12]


class ModelConfig(models.Model):
    """Provider + model + settings, with a label. The API key is only ever named, never held."""

    class Effort(models.TextChoices):
        NONE = "", _("(not sent)")
        MINIMAL = "minimal", _("minimal")
        LOW = "low", _("low")
        MEDIUM = "medium", _("medium")
        HIGH = "high", _("high")

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="model_configs")
    label = models.CharField(_("label"), max_length=120)
    provider = models.CharField(_("provider"), max_length=30)
    model_name = models.CharField(_("model"), max_length=200)
    base_url = models.URLField(
        _("base URL"),
        blank=True,
        help_text=_(
            "For OpenAI-compatible servers (vLLM, Ollama, llama.cpp, OpenRouter) and the simulator."
        ),
    )
    temperature = models.FloatField(_("temperature"), null=True, blank=True)
    max_output_tokens = models.PositiveIntegerField(_("output token limit"), null=True, blank=True)
    reasoning_effort = models.CharField(
        _("reasoning effort"), max_length=10, choices=Effort.choices, blank=True
    )
    thinking_budget = models.PositiveIntegerField(
        _("thinking budget (tokens)"), null=True, blank=True
    )
    seed = models.BigIntegerField(_("seed"), null=True, blank=True)
    api_key_env = models.CharField(
        _("API key environment variable"),
        max_length=100,
        blank=True,
        help_text=_(
            "The NAME of the environment variable that holds the key, such as OPENAI_API_KEY. The key itself is never stored."
        ),
    )
    concurrency_limit = models.PositiveSmallIntegerField(
        _("concurrent requests"),
        default=4,
        help_text=_(
            "At most this many requests at once to this provider and key, across all workers."
        ),
    )
    archived = models.BooleanField(_("archived"), default=False)
    created = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["label", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["team", "label"], name="modelconfig_unique_label")
        ]
        verbose_name = _("model configuration")
        verbose_name_plural = _("model configurations")

    def __str__(self) -> str:
        return self.label

    @property
    def is_simulated(self) -> bool:
        return registry.is_simulated(self.provider)

    @property
    def is_manual(self) -> bool:
        return self.provider == "manual"

    def settings_snapshot(self) -> dict:
        return {
            "label": self.label,
            "provider": self.provider,
            "model_name": self.model_name,
            "base_url": self.base_url,
            "temperature": self.temperature,
            "max_output_tokens": self.max_output_tokens,
            "reasoning_effort": self.reasoning_effort,
            "thinking_budget": self.thinking_budget,
            "seed": self.seed,
            "api_key_env": self.api_key_env,
            "concurrency_limit": self.concurrency_limit,
        }


class Experiment(models.Model):
    class Mode(models.TextChoices):
        SHEET = "sheet", _("The whole sheet in one request")
        ITEM = "item", _("One request per item")

    class Status(models.TextChoices):
        READY = "ready", _("Ready to collect")
        COLLECTING = "collecting", _("Collecting")
        COLLECTED = "collected", _("Collection complete")
        CANCELLED = "cancelled", _("Cancelled")

    class Scheme(models.TextChoices):
        FOUR = "four", _("Four buckets")
        AA = "aa", _("Correct / Incorrect / Partial / Not attempted")

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="experiments")
    name = models.CharField(_("name"), max_length=200)
    bank = models.ForeignKey(
        Bank, null=True, blank=True, on_delete=models.SET_NULL, related_name="experiments"
    )
    bank_name = models.CharField(max_length=200)
    prompt_version = models.ForeignKey(
        PromptVersion,
        on_delete=models.PROTECT,
        related_name="experiments",
        verbose_name=_("prompt version"),
    )
    mode = models.CharField(_("mode"), max_length=10, choices=Mode.choices, default=Mode.SHEET)
    repeats = models.PositiveSmallIntegerField(_("repeats"), default=2)
    seed = models.BigIntegerField(_("run-order seed"))
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.READY)
    scheme = models.CharField(
        _("scoring scheme"), max_length=8, choices=Scheme.choices, default=Scheme.FOUR
    )
    hide_confidence = models.BooleanField(
        _("hide confidence while judging correctness"), default=False
    )

    class ConfirmWrong(models.TextChoices):
        ALWAYS = "always", _("Every time")
        ONCE = "once", _("Once per item")
        NEVER = "never", _("Never")

    confirm_wrong = models.CharField(
        _("confirm a HIGH-confidence answer marked wrong"),
        max_length=8,
        choices=ConfirmWrong.choices,
        default=ConfirmWrong.ONCE,
    )
    noise_floor = models.FloatField(
        _("noise floor (items)"),
        null=True,
        blank=True,
        help_text=_("Gaps in net usable below this are noise. Empty: 3 items per 30."),
    )
    created = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    collection_started = models.DateTimeField(null=True, blank=True)
    collection_finished = models.DateTimeField(null=True, blank=True)
    # The earlier experiment this one measures again ("Run again"), if any.
    follows = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="follow_ups",
        verbose_name=_("follows"),
    )

    class Meta:
        ordering = ["-created", "-pk"]
        verbose_name = _("experiment")
        verbose_name_plural = _("experiments")

    def __str__(self) -> str:
        return self.name

    @property
    def collection_complete(self) -> bool:
        return self.status == self.Status.COLLECTED


class ExperimentItem(models.Model):
    """The snapshot of one item and its key entry, taken when the experiment was created."""

    experiment = models.ForeignKey(Experiment, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveIntegerField()  # 1..N, the number the model sees
    block_code = models.CharField(max_length=4)
    block_title = models.CharField(max_length=200)
    question = models.TextField()
    answer_format = models.CharField(max_length=200, blank=True)
    key_answer = models.TextField(blank=True)
    key_flagged = models.BooleanField(default=False)
    key_flag_note = models.TextField(blank=True)
    key_sources = models.JSONField(default=list, blank=True)
    topic = models.CharField(max_length=200, blank=True)
    answer_kind = models.CharField(max_length=20, blank=True)
    item_version = models.PositiveIntegerField(null=True, blank=True)  # the item's, when taken
    source_item = models.ForeignKey(
        Item, null=True, blank=True, on_delete=models.SET_NULL, related_name="snapshots"
    )

    class Meta:
        ordering = ["experiment", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["experiment", "position"], name="experimentitem_unique_position"
            )
        ]

    def __str__(self) -> str:
        return f"{self.position}. {self.question[:60]}"


class Run(models.Model):
    """One administration of the experiment's items to one model configuration (one repeat)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting")
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Collecting")
        COLLECTED = "collected", _("Collected")
        FAILED = "failed", _("Failed")
        CANCELLED = "cancelled", _("Cancelled")
        CLOSED = "closed", _("Closed as failed")

    FINISHED = (Status.COLLECTED, Status.CLOSED)

    experiment = models.ForeignKey(Experiment, on_delete=models.CASCADE, related_name="runs")
    model_config = models.ForeignKey(ModelConfig, on_delete=models.PROTECT, related_name="runs")
    repeat = models.PositiveSmallIntegerField(default=1)
    order = models.PositiveIntegerField(default=0)  # place in the randomised run order
    config_snapshot = models.JSONField(default=dict)  # the configuration's settings at creation
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    error_message = models.TextField(blank=True)
    error_request_id = models.CharField(max_length=200, blank=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    compliance = models.FloatField(null=True, blank=True)  # share of items parsed without issue
    # Collection bookkeeping. A worker collecting the run holds its lease (a token and an
    # expiry it renews); the periodic sweep queues the run again when nobody holds it.
    lease_token = models.CharField(max_length=32, blank=True)
    lease_expires = models.DateTimeField(null=True, blank=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)  # last task sent for the run
    progress_at = models.DateTimeField(null=True, blank=True)  # last attempt or response stored
    # What the worker holding the lease is doing (requests in flight, waits, the last error),
    # written with each renewal so the page can say why a run does not move.
    activity = models.JSONField(default=dict, blank=True)
    # A run of an earlier experiment included in a follow-up as it was (copied, not collected).
    included_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["experiment", "order", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["experiment", "model_config", "repeat"], name="run_unique_config_repeat"
            )
        ]

    def __str__(self) -> str:
        return f"{self.config_snapshot.get('label', self.model_config_id)} #{self.repeat}"

    @property
    def label(self) -> str:
        return self.config_snapshot.get("label") or str(self.model_config)

    @property
    def is_manual(self) -> bool:
        return self.config_snapshot.get("provider") == "manual"


class Attempt(models.Model):
    """One HTTP attempt (or one pasted reply) for a run: every one is kept, with its raw body."""

    class Outcome(models.TextChoices):
        COMPLETE = "complete", _("complete")
        TRUNCATED = "truncated", _("truncated")
        REFUSED = "refused", _("refused")
        RETRYABLE = "retryable", _("error, retried")
        FATAL = "fatal", _("error, fatal")

    SUCCESS = (Outcome.COMPLETE, Outcome.TRUNCATED, Outcome.REFUSED)

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="attempts")
    # None in sheet mode (one request for all items); the item in per-item mode.
    item = models.ForeignKey(
        ExperimentItem, null=True, blank=True, on_delete=models.CASCADE, related_name="attempts"
    )
    number = models.PositiveSmallIntegerField(default=1)
    created = models.DateTimeField(auto_now_add=True)
    outcome = models.CharField(max_length=10, choices=Outcome.choices)
    http_status = models.PositiveSmallIntegerField(null=True, blank=True)
    latency_ms = models.PositiveIntegerField(null=True, blank=True)
    request_id = models.CharField(max_length=200, blank=True)
    finish_reason = models.CharField(max_length=60, blank=True)
    input_tokens = models.PositiveIntegerField(null=True, blank=True)
    output_tokens = models.PositiveIntegerField(null=True, blank=True)
    reasoning_tokens = models.PositiveIntegerField(null=True, blank=True)
    error_kind = models.CharField(max_length=60, blank=True)
    error_message = models.TextField(blank=True)
    retry_after = models.FloatField(null=True, blank=True)
    text = models.TextField(blank=True)  # the answer text extracted from the body
    raw_body = models.TextField(blank=True)  # exactly what the provider sent back
    # The request as sent (method, URL, headers, JSON body), never with the key: adapters.wire.
    request_sent = models.JSONField(null=True, blank=True)
    pasted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["run", "item", "number", "pk"]
        indexes = [models.Index(fields=["run", "item", "outcome"], name="attempt_run_item_outcome")]

    def __str__(self) -> str:
        return f"attempt {self.number} of run {self.run_id}: {self.outcome}"


class Response(models.Model):
    """One run's answer to one item: parsed from an attempt's text, which stays as it was."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="responses")
    item = models.ForeignKey(ExperimentItem, on_delete=models.CASCADE, related_name="responses")
    attempt = models.ForeignKey(Attempt, on_delete=models.PROTECT, related_name="responses")
    # None (not ""): the item is missing from the sheet, which is not the same as an empty answer.
    answer = models.TextField(null=True, blank=True)  # noqa: DJ001
    confidence = models.CharField(max_length=6, blank=True)  # HIGH | MEDIUM | LOW | ""
    abstained = models.BooleanField(default=False)
    hedged = models.BooleanField(default=False)
    issues = models.JSONField(default=list, blank=True)
    parser_version = models.PositiveSmallIntegerField(default=1)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "item__position"]
        constraints = [
            models.UniqueConstraint(fields=["run", "item"], name="response_unique_run_item")
        ]

    def __str__(self) -> str:
        return f"run {self.run_id} item {self.item_id}: {self.answer!r}"


class UserPreference(models.Model):
    """What a user chose for themself, kept across browsers: for now the interface language."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preference"
    )
    language = models.CharField(_("language"), max_length=10, choices=settings.LANGUAGES)
    changed = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("user preference")
        verbose_name_plural = _("user preferences")

    def __str__(self) -> str:
        return f"{self.user}: {self.language}"
