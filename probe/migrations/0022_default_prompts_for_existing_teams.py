"""Every team has the default prompts: they were made on the first visit of the prompt list or
the new-experiment page, which now only read (a new team gets them when it is created)."""

from django.db import IntegrityError, migrations, transaction


def defaults_for_every_team(apps, schema_editor):
    from probe import prompts

    Team = apps.get_model("probe", "Team")
    PromptVersion = apps.get_model("probe", "PromptVersion")
    for team in Team.objects.all():
        for language, text in prompts.DEFAULT_PROMPTS.items():
            name = prompts.DEFAULT_PROMPT_NAME[language]
            if PromptVersion.objects.filter(team=team, name=name).exists():
                continue
            try:
                with transaction.atomic():
                    PromptVersion.objects.create(
                        team=team,
                        name=name,
                        version=1,
                        language=language,
                        text=text,
                        content_hash=prompts.content_hash(text),
                        note="Default prompt of the app",
                    )
            except IntegrityError:
                continue


class Migration(migrations.Migration):
    dependencies = [("probe", "0021_experiment_scheme_choices_from_registry")]

    operations = [migrations.RunPython(defaults_for_every_team, migrations.RunPython.noop)]
