from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = _("Scoring")

    def ready(self):
        from probe.access import Scope, register_blinding_check, register_scope
        from probe.events import experiment_collected
        from probe.services.teams import register_invitation_hook

        from .models import Assignment
        from .queue.selectors import blinded
        from .reconciliation.services import invitation_scoring, scorers_join_open

        register_scope(
            "assignment_token",
            Scope(
                Assignment,
                "experiment__team",
                field="token",
                owner_path="user",
                select_related=("experiment__team",),
            ),
        )
        register_blinding_check(blinded)
        # An invitation that names experiments makes its invitee their scorer; a member who
        # joined to score every experiment joins each one as its scoring opens.
        register_invitation_hook(invitation_scoring)

        def join_open(sender, experiment_pk, **kwargs):
            scorers_join_open(experiment=sender.objects.get(pk=experiment_pk))

        experiment_collected.connect(join_open, dispatch_uid="scoring_join_open", weak=False)
