"""Tokens get a team and an access level.

A token made before tokens had a team acted in every team of its user. It is kept, scoped to
its user's team and to reading and writing, when the user is a member of exactly one team: it
can do nothing it could not do before. When the user is in several teams, or in none, no team
can be chosen for it without guessing, so it is revoked: its user makes a new one.
"""

import django.db.models.deletion
from django.db import migrations, models
from django.utils import timezone


def scope_existing_tokens(apps, schema_editor):
    ApiToken = apps.get_model("api", "ApiToken")
    Membership = apps.get_model("probe", "Membership")
    now = timezone.now()
    for token in ApiToken.objects.filter(team__isnull=True):
        teams = list(Membership.objects.filter(user_id=token.user_id).values_list("team_id", flat=True))
        if len(teams) == 1:
            token.team_id = teams[0]
            token.access = "write"
            token.save(update_fields=["team", "access"])
        elif token.revoked is None:
            token.revoked = now
            token.save(update_fields=["revoked"])


class Migration(migrations.Migration):
    dependencies = [
        ("api", "0001_api_tokens"),
        ("probe", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="team",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="api_tokens",
                to="probe.team",
                verbose_name="team",
            ),
        ),
        migrations.AddField(
            model_name="apitoken",
            name="access",
            field=models.CharField(
                choices=[("read", "read"), ("write", "read and write")],
                default="read",
                max_length=5,
                verbose_name="access",
            ),
        ),
        migrations.RunPython(scope_existing_tokens, migrations.RunPython.noop),
    ]
