"""What grading does when the rest of the project changes: a new team gets the default grading
prompts, as it gets the default prompts, so no page makes them on a GET."""

from .services import grading_prompt_defaults_ensure


def team_defaults(sender, instance, created, raw=False, **kwargs):
    if created and not raw:
        grading_prompt_defaults_ensure(team=instance)
