"""Whether the user chose their time zone (the time zone page) or it was only offered by their
browser at a login, which the next login may then replace.

Before, both were kept in the one field and cannot be told apart: a zone already kept is taken
as chosen, so nobody's choice is lost; a user whose zone was only offered gets the browser's at
logins once they save "My team's" on the time zone page, or choose their zone there."""

from django.db import migrations, models


def kept_zones_are_chosen(apps, schema_editor):
    UserPreference = apps.get_model("probe", "UserPreference")
    UserPreference.objects.exclude(time_zone="").update(time_zone_chosen=True)


class Migration(migrations.Migration):
    dependencies = [("probe", "0024_attempt_copied_from")]

    operations = [
        migrations.AddField(
            model_name="userpreference",
            name="time_zone_chosen",
            field=models.BooleanField(default=False, verbose_name="time zone chosen by the user"),
        ),
        migrations.RunPython(kept_zones_are_chosen, migrations.RunPython.noop),
    ]
