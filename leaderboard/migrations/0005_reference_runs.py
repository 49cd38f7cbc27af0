"""Reference runs: a submission keeps its run record, an entry may reproduce a seed entry; and the tasks are
brought in line with `dawnboard.rules` (every task and version written as the rules say), which adds the
bundled digits task to a database made before it.

Written against the models as they stand at this migration (`apps.get_model`).
"""

import django.db.models.deletion
from django.db import migrations, models

from dawnboard.rules import TASKS


def sync_tasks(apps, schema_editor):
    Task = apps.get_model("leaderboard", "Task")
    TaskVersion = apps.get_model("leaderboard", "TaskVersion")
    for spec in TASKS:
        task, _ = Task.objects.update_or_create(
            slug=spec.slug, defaults={"name": spec.name, "description": spec.description}
        )
        for rules in spec.versions:
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
                    "documented_log_columns": list(rules.documented_log_columns),
                    "documented_fields": list(rules.documented_fields),
                },
            )


class Migration(migrations.Migration):

    dependencies = [
        ('leaderboard', '0004_task_documentation_and_hardware_match'),
    ]

    operations = [
        migrations.AddField(
            model_name='entry',
            name='reproduces',
            field=models.ForeignKey(blank=True, help_text='The seed entry a reference run reproduces.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='reproductions', to='leaderboard.entry'),
        ),
        migrations.AddField(
            model_name='submission',
            name='run_record',
            field=models.JSONField(blank=True, help_text="A reference run's record (run.json): config, machine, versions, curve.", null=True),
        ),
        migrations.AlterField(
            model_name='submission',
            name='source',
            field=models.CharField(choices=[('api', 'Api'), ('command', 'submit command'), ('import', 'DAWNBench import'), ('reference', 'reference run')], max_length=10),
        ),
        # The reverse leaves the tasks in place: entries may point at a task added here.
        migrations.RunPython(sync_tasks, migrations.RunPython.noop),
    ]
