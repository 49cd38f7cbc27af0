"""Reads of the task catalog: the rules submissions are judged by, the current versions."""

from __future__ import annotations

from django.db.models import QuerySet

from dawnboard.rules import Scale, TaskRules, rules_catalog
from leaderboard.models import TaskVersion


def task_catalog(task_slug: str | None = None) -> dict[str, dict[str, TaskRules]]:
    """Every task version's rules, keyed by task slug then by the `version` an entry names; given a task, that
    task's alone (what judging one submission reads)."""
    versions = TaskVersion.objects.select_related("task")
    if task_slug is not None:
        versions = versions.filter(task__slug=task_slug)
    return catalog_of(versions)


def rules_of(version: TaskVersion) -> TaskRules:
    """One version's rules (with its task loaded), read from that row alone."""
    return catalog_of([version])[version.task.slug][version.version]


def catalog_of(versions) -> dict[str, dict[str, TaskRules]]:
    """The catalog of these TaskVersion rows (with their task), of the model as it is or as a migration has it.

    What the rows do not hold (how several runs are scored, the logs' format, which way the target points, an
    MLPerf benchmark's name) is read from `dawnboard.rules`, its one home.
    """
    rules = rules_catalog()
    catalog: dict[str, dict[str, TaskRules]] = {}
    for version in versions:
        code = rules.get(version.task.slug, {}).get(version.version)
        extras = {}
        if code is not None:
            extras = {
                "runs": code.runs,
                "log_format": code.log_format,
                "higher_is_better": code.higher_is_better,
                "benchmark": code.benchmark,
            }
        catalog.setdefault(version.task.slug, {})[version.version] = TaskRules(
            task_slug=version.task.slug,
            version=version.version,
            metric_label=version.metric_label,
            log_column=version.log_column,
            inference_fields=tuple(version.inference_fields),
            threshold=version.threshold,
            scale=Scale(version.scale),
            source=version.source,
            documented_log_columns=tuple(version.documented_log_columns),
            documented_fields=tuple(version.documented_fields),
            **extras,
        )
    return catalog


def current_task_versions() -> QuerySet[TaskVersion]:
    return TaskVersion.objects.filter(is_current=True).select_related("task").order_by("task__slug")
