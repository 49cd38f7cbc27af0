"""Board generations per task: one row per task beside the site's (id 1, no task)."""

from django.core.management.color import no_style
from django.db import migrations, models


def create_task_generations(apps, schema_editor):
    generation = apps.get_model("leaderboard", "BoardGeneration")
    # 0003 wrote the site's row with an explicit id, which PostgreSQL's sequence did not count.
    with schema_editor.connection.cursor() as cursor:
        for sql in schema_editor.connection.ops.sequence_reset_sql(no_style(), [generation]):
            cursor.execute(sql)
    for task_id in apps.get_model("leaderboard", "Task").objects.values_list("id", flat=True):
        generation.objects.get_or_create(task_id=task_id, defaults={"value": 0})


class Migration(migrations.Migration):
    dependencies = [("leaderboard", "0007_submission_queueing")]

    operations = [
        migrations.AddField(
            model_name="boardgeneration",
            name="task",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=models.deletion.CASCADE,
                related_name="board_generation",
                to="leaderboard.task",
            ),
        ),
        migrations.RunPython(create_task_generations, migrations.RunPython.noop),
    ]
