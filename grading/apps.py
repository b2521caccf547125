from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GradingConfig(AppConfig):
    name = "grading"
    verbose_name = _("Grading")

    def ready(self):
        from scoring.queue.panels import register_item_panel

        from .panel import opinion_panel

        register_item_panel(opinion_panel)

        from django.db.models.signals import post_save

        from probe.models import Team

        post_save.connect(_team_defaults, sender=Team, dispatch_uid="grading-team-defaults")


def _team_defaults(sender, instance, created, raw=False, **kwargs):
    """A new team gets the default grading prompts, as it gets the default prompts: no page
    makes them on a GET."""
    if created and not raw:
        from .services import grading_prompt_defaults_ensure

        grading_prompt_defaults_ensure(team=instance)
