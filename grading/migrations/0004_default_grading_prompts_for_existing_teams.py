"""Version 1 of the default grading prompts (English, Japanese) for every team that lacks them:
a new team gets them when it is created (grading.apps), so the graders page need not make them
on a GET."""

from django.db import migrations


def defaults_for_every_team(apps, schema_editor):
    from grading import texts
    from probe.services.prompts import normalise_text

    Team = apps.get_model("probe", "Team")
    GradingPrompt = apps.get_model("grading", "GradingPrompt")
    for team in Team.objects.all():
        for language, text in texts.DEFAULT_TEXT.items():
            name = texts.DEFAULT_NAME[language]
            if GradingPrompt.objects.filter(team=team, name=name).exists():
                continue
            text = normalise_text(text)
            examples = [
                {f: str(e.get(f, "") or "").strip() for f in texts.EXAMPLE_FIELDS}
                for e in texts.DEFAULT_EXAMPLES[language]
            ]
            GradingPrompt.objects.create(
                team=team,
                name=name,
                language=language,
                text=text,
                examples=examples,
                content_hash=texts.content_hash(text, examples),
            )


class Migration(migrations.Migration):
    dependencies = [("grading", "0003_trust_threshold")]

    operations = [migrations.RunPython(defaults_for_every_team, migrations.RunPython.noop)]
