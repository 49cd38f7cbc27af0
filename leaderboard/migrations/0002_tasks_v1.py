"""The DAWNBench v1.0 tasks and thresholds.

Source: DAWNBench v1 rules (https://dawn.cs.stanford.edu/benchmark/v1/) and the entry format of
https://github.com/stanford-futuredata/dawn-bench-entries: CIFAR10 94 % top-1 test accuracy,
ImageNet 93 % top-5 validation accuracy, SQuAD v1.1 dev F1 0.75 (DAWNBench pages also printed 0.73;
here the threshold is bound to the task version, so an entry is judged by exactly one number).
"""

from decimal import Decimal

from django.db import migrations

RULES_SOURCE = "https://dawn.cs.stanford.edu/benchmark/v1/"
TASKS = [
    {
        "slug": "cifar10",
        "name": "CIFAR10 image classification",
        "description": "Train to 94% top-1 accuracy on the CIFAR10 test set; infer one image at a time.",
        "metric_label": "CIFAR10 test top-1 accuracy (%)",
        "log_column": "top1Accuracy",
        "inference_fields": ["top1Accuracy", "accuracy"],
        "threshold": Decimal("94.0"),
        "scale": "percent",
    },
    {
        "slug": "imagenet",
        "name": "ImageNet image classification",
        "description": "Train to 93% top-5 accuracy on the ImageNet validation set; infer one image at a time.",
        "metric_label": "ImageNet validation top-5 accuracy (%)",
        "log_column": "top5Accuracy",
        "inference_fields": ["top5Accuracy"],
        "threshold": Decimal("93.0"),
        "scale": "percent",
    },
    {
        "slug": "squad",
        "name": "SQuAD question answering",
        "description": "Train to an F1 score of 0.75 on the SQuAD v1.1 dev set; answer one question at a time.",
        "metric_label": "SQuAD v1.1 dev F1 (fraction)",
        "log_column": "f1Score",
        "inference_fields": ["f1Score"],
        "threshold": Decimal("0.75"),
        "scale": "fraction",
    },
]


def create_tasks(apps, schema_editor):
    Task = apps.get_model("leaderboard", "Task")
    TaskVersion = apps.get_model("leaderboard", "TaskVersion")
    for spec in TASKS:
        task, _ = Task.objects.update_or_create(
            slug=spec["slug"], defaults={"name": spec["name"], "description": spec["description"]}
        )
        TaskVersion.objects.update_or_create(
            task=task,
            version="v1.0",
            defaults={
                "metric_label": spec["metric_label"],
                "log_column": spec["log_column"],
                "inference_fields": spec["inference_fields"],
                "threshold": spec["threshold"],
                "scale": spec["scale"],
                "is_current": True,
                "source": RULES_SOURCE,
            },
        )


def remove_tasks(apps, schema_editor):
    TaskVersion = apps.get_model("leaderboard", "TaskVersion")
    TaskVersion.objects.filter(version="v1.0", task__slug__in=[spec["slug"] for spec in TASKS]).delete()


class Migration(migrations.Migration):
    dependencies = [("leaderboard", "0001_initial")]
    operations = [migrations.RunPython(create_tasks, remove_tasks)]
