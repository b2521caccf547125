"""Who may see other scorers' judgements of an experiment: the one rule, read everywhere.

Every page, fragment, export and API answer that could show a judgement of another scorer (the
key review's counts, reconciliation, agreement, the final report and its exports, the results
API, comparisons) asks ``sees_others_judgements``; nothing else decides it.

- A scorer of the experiment sees none until their own judging of it is complete (every
  response judged, no re-check waiting), *whatever the state of reconciliation*: a scorer who
  joins after reconciliation has begun, or whose judgements a key amendment sent back, judges
  alone like everyone else. Even once complete, a scorer sees others' only after
  reconciliation has begun: until then scorers stay independent.
- A member who is not scoring it sees them if their role could not score it blind later: an
  editor or owner reviewing the key, a viewer reading the team's report. A member with the
  scorer role who has not joined yet sees none (they may still join).

Model identity is a different rule (``probe.access.is_blinded``, until the scorer's reveal).
"""

from probe.models import Experiment, Membership, Response, Role

from .models import Assignment, Judgement, Reconciliation


def own_judging_complete(assignment: Assignment) -> bool:
    """Whether this scorer has judged every response of the experiment, re-checks included."""
    total = Response.objects.filter(run__experiment_id=assignment.experiment_id).count()
    judged = Judgement.objects.filter(assignment=assignment)
    return judged.count() >= total and not judged.filter(needs_recheck=True).exists()


def still_judging(experiment: Experiment, user) -> bool:
    """Whether this user scores the experiment and has not completed their own judging."""
    assignment = Assignment.objects.filter(experiment=experiment, user=user).first()
    return assignment is not None and not own_judging_complete(assignment)


def sees_others_judgements(experiment: Experiment, user) -> bool:
    """The rule (the module's docstring): may this user see any other scorer's judgement?"""
    if user is None or not user.is_authenticated:
        return False
    assignment = Assignment.objects.filter(experiment=experiment, user=user).first()
    if assignment is not None:
        return (
            own_judging_complete(assignment)
            and Reconciliation.objects.filter(experiment=experiment).exists()
        )
    role = (
        Membership.objects.filter(team_id=experiment.team_id, user=user)
        .values_list("role", flat=True)
        .first()
    )
    return role is not None and role != Role.SCORER
