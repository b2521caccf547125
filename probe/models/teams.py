"""Teams, their members and roles, invitations, and what each user chose for themself."""

from django.conf import settings
from django.db import models
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
    require_oidc = models.BooleanField(
        _("require sign-in through the identity provider"),
        default=False,
        help_text=_(
            "When on, members log in only through the identity provider; their local "
            "passwords are refused. Staff accounts still log in locally."
        ),
    )
    # Shown to members who have not chosen a time zone of their own (nor had one offered by
    # their browser at login); empty: the server's TIME_ZONE.
    time_zone = models.CharField(_("time zone"), max_length=64, blank=True)
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
    # Joined from an invitation to score every current and future experiment: each experiment
    # whose scoring opens makes this member one of its scorers.
    scores_all_experiments = models.BooleanField(default=False)
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
    # What the invitee will score: these experiments, or every current and future one of the
    # team; accepting puts them there and lands on the first one's scoring page.
    experiments = models.ManyToManyField(
        "probe.Experiment", blank=True, related_name="+", verbose_name=_("experiments to score")
    )
    all_experiments = models.BooleanField(_("every current and future experiment"), default=False)

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


class UserPreference(models.Model):
    """What a user chose for themself, kept across browsers: the interface language and the
    time zone every date and time is shown in (empty: not chosen)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preference"
    )
    language = models.CharField(
        _("language"), max_length=10, choices=settings.LANGUAGES, blank=True
    )
    time_zone = models.CharField(_("time zone"), max_length=64, blank=True)
    # Chosen on the time zone page: kept whatever the browser says. Not chosen: each login
    # takes the browser's zone again (a user who travels sees their dates where they are).
    time_zone_chosen = models.BooleanField(_("time zone chosen by the user"), default=False)
    # Notifications by e-mail too (where the server sends mail), not only in the inbox.
    notify_by_email = models.BooleanField(_("e-mail me my notifications"), default=True)
    changed = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("user preference")
        verbose_name_plural = _("user preferences")

    def __str__(self) -> str:
        return f"{self.user}: {self.language}"
