"""Seed the tasks and their v1.0 versions from the rules package (`dawnboard.rules`).

Written against the models as they stood at this migration (`apps.get_model`): it sets only the fields
that existed then; later migrations fill the fields they add from the same source.
"""

from django.db import migrations

from dawnboard.rules import TASKS

VERSION = "v1.0"


def create_tasks(apps, schema_editor):
    Task = apps.get_model("leaderboard", "Task")
    TaskVersion = apps.get_model("leaderboard", "TaskVersion")
    for spec in TASKS:
        task, _ = Task.objects.update_or_create(
            slug=spec.slug, defaults={"name": spec.name, "description": spec.description}
        )
        for rules in spec.versions:
            if rules.version != VERSION:
                continue
            TaskVersion.objects.update_or_create(
                task=task,
                version=rules.version,
                defaults={
                    "metric_label": rules.metric_label,
                    "log_column": rules.log_column,
                    "inference_fields": list(rules.inference_fields),
                    "threshold": rules.threshold,
                    "scale": rules.scale.value,
                    "is_current": rules.version == spec.current_version,
                    "source": rules.source,
                },
            )


def remove_tasks(apps, schema_editor):
    TaskVersion = apps.get_model("leaderboard", "TaskVersion")
    TaskVersion.objects.filter(version=VERSION, task__slug__in=[spec.slug for spec in TASKS]).delete()


class Migration(migrations.Migration):
    dependencies = [("leaderboard", "0001_initial")]
    operations = [migrations.RunPython(create_tasks, remove_tasks)]
