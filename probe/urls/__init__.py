"""URLs of the probe app (namespace ``probe``), one module per context; each view's scope keyword
names its object."""

from . import banks, configs, discussion, experiments, prompts, teams

app_name = "probe"

urlpatterns = (
    teams.urlpatterns
    + banks.urlpatterns
    + prompts.urlpatterns
    + configs.urlpatterns
    + experiments.urlpatterns
    + discussion.urlpatterns
)
