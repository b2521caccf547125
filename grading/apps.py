from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GradingConfig(AppConfig):
    name = "grading"
    verbose_name = _("Grading")

    def ready(self):
        from scoring.queue.panels import register_item_panel

        from .panel import opinion_panel

        register_item_panel(opinion_panel)
