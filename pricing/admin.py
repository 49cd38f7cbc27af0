"""Staff: the catalog, and each entry's hardware match, which staff can set or override by hand."""

from django.contrib import admin

from pricing.models import Accelerator, GridRegion, HardwareMatch, InstanceType, PriceQuote, Provider


class PriceQuoteInline(admin.TabularInline):
    model = PriceQuote
    extra = 0


@admin.register(InstanceType)
class InstanceTypeAdmin(admin.ModelAdmin):
    list_display = ["name", "provider", "accelerator", "accelerator_count", "vcpus", "memory_gib"]
    list_filter = ["provider", "accelerator"]
    search_fields = ["name"]
    inlines = [PriceQuoteInline]


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


admin.site.register([Provider, PriceQuote, Accelerator, GridRegion])
