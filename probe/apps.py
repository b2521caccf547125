from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ProbeConfig(AppConfig):
    name = "probe"
    verbose_name = _("Probe")

    def ready(self) -> None:
        from . import signals  # noqa: F401 - connects the receivers
