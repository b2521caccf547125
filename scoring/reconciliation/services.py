"""Several scorers on one experiment, the writes: inviting scorers, and beginning reconciliation.

The final buckets' writes are in scoring.reconciliation.finals; the reads in scoring.reconciliation.selectors.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils.translation import gettext as _

from probe.models import Experiment, Membership
from probe.wording import word_list
from scoring.models import Assignment, Reconciliation
from scoring.queue.overview import first_open_position
from scoring.queue.services import assignment_start, scoring_open
from scoring.reconciliation.finals import final_buckets_sync
from scoring.reconciliation.selectors import reconciliation_of, scorer_candidates, scorer_progress


@transaction.atomic
def scorers_invite(*, experiment: Experiment, users: list, invited_by) -> list[Assignment]:
    """Invite team members (role scorer or above) to score the experiment, each blind and alone."""
    if not users:
        raise ValidationError(_("Choose at least one member to invite."))
    allowed = {m.user_id for m in scorer_candidates(experiment)}
    refused = [u.get_username() for u in users if u.pk not in allowed]
    if refused:
        raise ValidationError(
            _("Not a member who may score, or already scoring: %(names)s.")
            % {"names": word_list(sorted(refused))}
        )
    return [
        assignment_start(experiment=experiment, user=user, invited_by=invited_by) for user in users
    ]


@transaction.atomic
def reconciliation_start(*, experiment: Experiment, user) -> Reconciliation:
    """Open the scorers' buckets to the leads; unanimous responses are final at once."""
    experiment = (
        Experiment.objects.select_for_update(of=("self",))
        .select_related("team")
        .get(pk=experiment.pk)
    )
    if reconciliation_of(experiment) is not None:
        raise ValidationError(_("Reconciliation has already begun."))
    if not scoring_open(experiment):
        raise ValidationError(_("Scoring has not opened: every run must be collected first."))
    progress = scorer_progress(experiment)
    own = next((p for p in progress if p.assignment.user_id == user.pk), None)
    if own is not None and not own.finished:
        raise ValidationError(
            _(
                "You are scoring this experiment too: judge every response (and every re-check) first."
            )
        )
    finished = [p for p in progress if p.finished]
    if len(finished) < 2:
        raise ValidationError(
            _("Reconciliation needs two scorers who have judged every response: %(n)s so far.")
            % {"n": len(finished)}
        )
    reconciliation = Reconciliation.objects.create(
        experiment=experiment, started_by=user, name_scorers=experiment.team.show_scorer_names
    )
    final_buckets_sync(experiment=experiment)
    return reconciliation


def invitation_scoring(*, invitation, membership) -> str:
    """probe's invitation hook: make the new member a scorer of the experiments the invitation
    names (or of every experiment of the team), those whose scoring is open now; the rest as
    their scoring opens (``scorers_join_open``). Returns the first one's scoring page, or ""."""
    if invitation.all_experiments:
        experiments = Experiment.objects.filter(team_id=invitation.team_id).order_by("created")
    else:
        experiments = invitation.experiments.order_by("created")
    landing = ""
    for experiment in experiments:
        if not scoring_open(experiment):
            continue
        assignment = assignment_start(
            experiment=experiment, user=membership.user, invited_by=invitation.created_by
        )
        if not landing:
            landing = reverse(
                "scoring:item",
                kwargs={
                    "assignment_token": assignment.token,
                    "position": first_open_position(assignment),
                },
            )
    return landing


def scorers_join_open(*, experiment: Experiment) -> int:
    """An experiment whose scoring has opened: members who joined to score every experiment of
    the team become its scorers (once). Returns how many were added."""
    if not scoring_open(experiment):
        return 0
    members = Membership.objects.filter(
        team_id=experiment.team_id, scores_all_experiments=True
    ).exclude(user__assignments__experiment=experiment)
    added = 0
    for membership in members.select_related("user"):
        assignment_start(experiment=experiment, user=membership.user)
        added += 1
    return added
