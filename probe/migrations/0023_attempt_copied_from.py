from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("probe", "0022_default_prompts_for_existing_teams"),
    ]

    operations = [
        migrations.AddField(
            model_name="attempt",
            name="copied_from",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=models.deletion.SET_NULL,
                related_name="+",
                to="probe.attempt",
            ),
        ),
    ]
