"""Teams and roles, item banks (blocks, items, key entries) and the audit log."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _


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
    order = models.PositiveIntegerField(_("order"), default=0)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["block__order", "block_id", "order", "pk"]
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
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("key entry")
        verbose_name_plural = _("key entries")

    def __str__(self) -> str:
        return self.answer[:80]


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


def missing_key_q() -> Q:
    return Q(key_entry__isnull=True)
