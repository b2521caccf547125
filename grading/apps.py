from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GradingConfig(AppConfig):
    name = "grading"
    verbose_name = _("Grading")

    def ready(self):
        from scoring.queue.panels import register_item_panel

        from .panel import opinion_panel

        register_item_panel(opinion_panel)

        from scoring.queue.decided import register_decider
        from scoring.report.sections import register_report_section

        from .routing import answers_return, audit_answers, grader_decided, is_routed
        from .routing_report import routing_section

        register_decider(grader_decided, is_routed, audit_answers, answers_return)
        register_report_section(routing_section)

        from django.db.models.signals import post_save

        from probe.models import Team

        from .signals import team_defaults

        post_save.connect(team_defaults, sender=Team, dispatch_uid="grading-team-defaults")
