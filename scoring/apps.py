from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = _("Scoring")

    def ready(self):
        from probe.access import Scope, register_blinding_check, register_scope

        from .models import Assignment
        from .queue.selectors import blinded

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
