from django.contrib import admin

from benchmarks.models import ReferenceRun


@admin.register(ReferenceRun)
class ReferenceRunAdmin(admin.ModelAdmin):
    list_display = ["id", "task_slug", "recipe", "seed", "device", "state", "created_at", "finished_at"]
    list_filter = ["state", "task_slug", "recipe"]
    readonly_fields = ["task_id", "state", "progress", "outcome", "error", "started_at", "finished_at"]
