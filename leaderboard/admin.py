"""Staff views: tasks and thresholds, submitters, submissions with their verdicts, entries (e.g. to withdraw one),
each entry's hardware match, which staff can set or override by hand, API tokens (to see and revoke), and the
algorithm track's results (to see or delete; their figures come from their logs)."""

from django.contrib import admin
from django.utils import timezone
from knox.models import AuthToken

from leaderboard.models import AlgorithmResult, Entry, HardwareMatch, Submission, Submitter, Task, TaskVersion


class TaskVersionInline(admin.TabularInline):
    model = TaskVersion
    extra = 0


@admin.register(Task)
class TaskAdmin(admin.ModelAdmin):
    list_display = ["slug", "name"]
    inlines = [TaskVersionInline]


@admin.register(Submitter)
class SubmitterAdmin(admin.ModelAdmin):
    list_display = ["name", "email", "created_at"]
    search_fields = ["name", "email"]


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ["id", "task_slug", "track", "status", "source", "submitter", "created_at", "decided_at"]
    list_filter = ["status", "source", "track"]
    readonly_fields = [
        "submitter",
        "source",
        "task_slug",
        "track",
        "status",
        "errors",
        "warnings",
        "created_at",
        "decided_at",
    ]


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    list_display = ["id", "task", "track", "model", "author", "hardware", "date", "status", "time_to_accuracy_seconds"]
    list_filter = ["task", "track", "status"]
    search_fields = ["model", "author", "hardware", "framework", "source_name"]
    list_editable = ["status"]
    exclude = ["submission"]
    readonly_fields = [
        field.name
        for field in Entry._meta.get_fields()
        if field.concrete and field.name not in ("status", "submission")
    ]


@admin.register(HardwareMatch)
class HardwareMatchAdmin(admin.ModelAdmin):
    list_display = ["entry", "instance", "instance_count", "set_by_staff", "reason"]
    list_filter = ["set_by_staff"]
    search_fields = ["entry__hardware", "reason"]
    autocomplete_fields = ["instance"]
    readonly_fields = ["entry"]

    def save_model(self, request, obj, form, change):
        """A match edited by staff stays as staff set it, whatever the resolver would say."""
        obj.set_by_staff = True
        if "instance" in form.changed_data:
            obj.reason = f"set by {request.user} in the admin"
        super().save_model(request, obj, form, change)
        _costs_refresh([obj.entry_id])  # its costs on the boards by a catalog price

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        _costs_refresh([obj.entry_id])

    def delete_queryset(self, request, queryset):
        entry_ids = list(queryset.values_list("entry_id", flat=True))
        super().delete_queryset(request, queryset)
        _costs_refresh(entry_ids)


def _costs_refresh(entry_ids: list[int]) -> None:
    # Imported when staff change a match: the services package brings the log readers (pandas), which every
    # command would otherwise load through the admin's autodiscovery.
    from leaderboard.services.policy_costs import entry_policy_costs_refresh

    entry_policy_costs_refresh(entry_ids=entry_ids)


# knox registers an admin of its own that lists digests and issues tokens from a form; this one replaces it.
if admin.site.is_registered(AuthToken):
    admin.site.unregister(AuthToken)


@admin.register(AuthToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """API tokens, each recognised by its first characters (`token_key`): the token itself is not stored.

    Read-only but for deleting, which revokes a token. Tokens are issued by `manage.py create_submitter` and
    `rotate_token`, which print them once; the admin never has one to show.
    """

    list_display = ["token_key", "user", "created", "expiry", "expired"]
    list_select_related = ["user"]
    search_fields = ["token_key", "user__username"]
    ordering = ["-created"]
    fields = ["token_key", "user", "created", "expiry"]
    readonly_fields = fields

    @admin.display(boolean=True)
    def expired(self, token: AuthToken) -> bool:
        return token.expiry is not None and token.expiry <= timezone.now()

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(AlgorithmResult)
class AlgorithmResultAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "suite", "ruleset", "source", "submitter", "geomean_speedup", "created_at"]
    list_filter = ["suite", "ruleset", "source"]
    search_fields = ["name"]
    exclude = ["bundle_content", "curves"]
    readonly_fields = [
        field.name for field in AlgorithmResult._meta.fields if field.name not in ("id", "bundle_content", "curves")
    ]
