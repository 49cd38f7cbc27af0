"""Task versions learn their documented log columns and entry fields (filled from `dawnboard.rules`), and the
hardware match moves from pricing to the leaderboard, which owns the entries it points at: the rows are
copied here, and pricing's table is dropped by pricing's next migration."""

import django.db.models.deletion
from django.db import migrations, models

from dawnboard.rules import TASKS


def fill_documentation(apps, schema_editor):
    TaskVersion = apps.get_model("leaderboard", "TaskVersion")
    for spec in TASKS:
        for rules in spec.versions:
            TaskVersion.objects.filter(task__slug=spec.slug, version=rules.version).update(
                documented_log_columns=list(rules.documented_log_columns),
                documented_fields=list(rules.documented_fields),
            )


def copy_matches(apps, schema_editor):
    OldMatch = apps.get_model("pricing", "HardwareMatch")
    NewMatch = apps.get_model("leaderboard", "HardwareMatch")
    NewMatch.objects.bulk_create(
        NewMatch(
            entry_id=match.entry_id,
            instance_id=match.instance_id,
            instance_count=match.instance_count,
            reason=match.reason,
            set_by_staff=match.set_by_staff,
            updated_at=match.updated_at,
        )
        for match in OldMatch.objects.all()
    )


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0003_board_generation"),
        ("pricing", "0002_bundled_catalog"),
    ]

    operations = [
        migrations.AddField(
            model_name="taskversion",
            name="documented_fields",
            field=models.JSONField(
                blank=True, default=list, help_text="Entry fields the task's format adds; none raises a warning."
            ),
        ),
        migrations.AddField(
            model_name="taskversion",
            name="documented_log_columns",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text="The log columns the task's format documents; none raises a warning.",
            ),
        ),
        migrations.RunPython(fill_documentation, migrations.RunPython.noop),
        migrations.CreateModel(
            name="HardwareMatch",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("instance_count", models.PositiveIntegerField(default=1)),
                ("reason", models.CharField(max_length=300)),
                (
                    "set_by_staff",
                    models.BooleanField(
                        default=False, help_text="A staff match is never overwritten by the resolver."
                    ),
                ),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "entry",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="hardware_match",
                        to="leaderboard.entry",
                    ),
                ),
                (
                    "instance",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        to="pricing.instancetype",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("instance_count__gte", 1)), name="match_at_least_one_instance"
                    )
                ],
            },
        ),
        migrations.RunPython(copy_matches, migrations.RunPython.noop),
    ]
