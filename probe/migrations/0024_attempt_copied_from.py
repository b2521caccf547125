from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("probe", "0023_key_entry_comments_and_mentions"),
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
