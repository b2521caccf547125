"""The Japanese default prompt's note in Japanese: version 1 of "Default (Japanese)" was made with
the English note ("Default prompt of the app"). Only a note still as it was made changes."""

from django.db import migrations

NAME = "Default (Japanese)"
ENGLISH = "Default prompt of the app"
JAPANESE = "アプリの既定のプロンプト"


def japanese_note(apps, schema_editor):
    PromptVersion = apps.get_model("probe", "PromptVersion")
    PromptVersion.objects.filter(name=NAME, version=1, language="ja", note=ENGLISH).update(
        note=JAPANESE
    )


def english_note(apps, schema_editor):
    PromptVersion = apps.get_model("probe", "PromptVersion")
    PromptVersion.objects.filter(name=NAME, version=1, language="ja", note=JAPANESE).update(
        note=ENGLISH
    )


class Migration(migrations.Migration):
    dependencies = [("probe", "0025_user_time_zone_chosen")]

    operations = [migrations.RunPython(japanese_note, english_note)]
