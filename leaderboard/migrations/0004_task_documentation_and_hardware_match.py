"""Task versions learn their documented log columns and entry fields (filled from `dawnboard.rules`), and the
hardware match moves from pricing to the leaderboard, which owns the entries it points at: the rows are
copied here (and back, if reversed), and pricing's table is dropped by pricing's next migration. Entries that
had no match (stored before the catalog was loaded) are matched against the bundled catalog."""

import django.db.models.deletion
from django.db import migrations, models

from dawnboard.rules import TASKS
from pricing.domain.resolver import KnownInstance, resolve_hardware


def fill_documentation(apps, schema_editor):
    TaskVersion = apps.get_model("leaderboard", "TaskVersion")
    for spec in TASKS:
        for rules in spec.versions:
            TaskVersion.objects.filter(task__slug=spec.slug, version=rules.version).update(
                documented_log_columns=list(rules.documented_log_columns),
                documented_fields=list(rules.documented_fields),
            )


def copy_matches(apps, schema_editor):
    _copy(apps.get_model("pricing", "HardwareMatch"), apps.get_model("leaderboard", "HardwareMatch"))


def copy_matches_back(apps, schema_editor):
    _copy(apps.get_model("leaderboard", "HardwareMatch"), apps.get_model("pricing", "HardwareMatch"))


def _copy(source, target):
    copies = target.objects.bulk_create(
        target(
            entry_id=match.entry_id,
            instance_id=match.instance_id,
            instance_count=match.instance_count,
            reason=match.reason,
            set_by_staff=match.set_by_staff,
        )
        for match in source.objects.all()
    )
    # auto_now stamped the copies with this moment: give each back the time its match was last set.
    set_at = dict(source.objects.values_list("entry_id", "updated_at"))
    for copy in copies:
        copy.updated_at = set_at[copy.entry_id]
    target.objects.bulk_update(copies, ["updated_at"], batch_size=500)


def match_unmatched_entries(apps, schema_editor):
    """Entries stored before any catalog was loaded have no match yet: resolve them against the bundled one."""
    Entry = apps.get_model("leaderboard", "Entry")
    HardwareMatch = apps.get_model("leaderboard", "HardwareMatch")
    InstanceType = apps.get_model("pricing", "InstanceType")
    instances = {(i.provider.slug, i.name): i for i in InstanceType.objects.select_related("provider")}
    known = [
        KnownInstance(provider=provider, name=name, accelerator=i.accelerator, accelerator_count=i.accelerator_count)
        for (provider, name), i in instances.items()
    ]
    for entry in Entry.objects.filter(hardware_match__isnull=True):
        resolution = resolve_hardware(entry.hardware, known)
        HardwareMatch.objects.create(
            entry=entry,
            instance=instances.get((resolution.provider, resolution.instance)),
            instance_count=max(resolution.count, 1),
            reason=resolution.reason[:300],
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
        migrations.RunPython(copy_matches, copy_matches_back),
        migrations.RunPython(match_unmatched_entries, migrations.RunPython.noop),
    ]
