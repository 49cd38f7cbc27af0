"""A reference run asked for through the API: what was asked, where it is, and how it ended."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class ReferenceRun(models.Model):
    """One queued reference job. A worker on the `reference` queue runs it and writes its progress here."""

    class State(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    task_slug = models.CharField(max_length=50)
    recipe = models.CharField(max_length=50)
    seed = models.PositiveIntegerField(default=0)
    max_epochs = models.PositiveIntegerField(null=True, blank=True)
    device = models.CharField(max_length=10, default="cpu")
    echo_factor = models.PositiveIntegerField(default=1)
    echo_stage = models.CharField(max_length=10, default="example")
    submit = models.BooleanField(
        default=True, help_text="Enter the result into the board when it reaches the threshold."
    )
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)

    task_id = models.CharField(max_length=64, blank=True, help_text="The Celery task's id, when queued to a worker.")
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    progress = models.JSONField(default=dict, blank=True, help_text="Epoch, step and the latest quality.")
    outcome = models.JSONField(null=True, blank=True, help_text="The finished run: results, files, submission.")
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    lease_until = models.DateTimeField(
        null=True,
        blank=True,
        help_text="While running: the worker renews it with a heartbeat; a run past it was lost with its worker.",
    )

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["state", "lease_until"], name="reference_run_lease")]
        constraints = [
            models.CheckConstraint(condition=Q(echo_factor__gte=1), name="reference_echo_factor_positive"),
            models.CheckConstraint(
                condition=Q(max_epochs__isnull=True) | Q(max_epochs__gte=1), name="reference_max_epochs_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"reference run {self.pk}: {self.task_slug}/{self.recipe} ({self.state})"


class Study(models.Model):
    """One of the DAWNBench paper's studies on the algorithm track (`benchmarks.algorithms.study`): a setting varied
    over values, each trained `runs_per_value` times to the workload's target. `runs` holds every run as the study
    module records it (value, seed, reached, time and epochs to target, steps, batch size, timed seconds,
    throughput)."""

    class Setting(models.TextChoices):
        BATCH_SIZE = "batch_size"
        ALGORITHM = "algorithm"

    workload = models.CharField(max_length=50)
    setting = models.CharField(max_length=20, choices=Setting.choices)
    values = models.JSONField(help_text="The values of the setting, in the order run.")
    algorithm = models.CharField(max_length=200, blank=True, help_text="The algorithm of a batch-size study.")
    runs_per_value = models.PositiveIntegerField()
    target = models.JSONField(help_text="The workload's target: metric, value, higher_is_better.")
    runs = models.JSONField(default=list)
    machine = models.JSONField(default=dict, blank=True, help_text="torch, threads and device the runs used.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "studies"
        constraints = [
            models.CheckConstraint(condition=Q(runs_per_value__gte=1), name="study_runs_per_value_positive"),
            models.CheckConstraint(condition=Q(setting__in=["batch_size", "algorithm"]), name="study_setting_known"),
        ]

    def __str__(self) -> str:
        return f"study {self.pk}: {self.workload}, {self.setting} over {len(self.values)} values"
