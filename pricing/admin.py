"""Staff: the catalog (providers, instances with their price history, accelerators, grid regions).

A quote saved or deleted here is announced (`prices_changed`), so that the boards priced by it are priced again.
"""

from django.contrib import admin

from pricing.models import Accelerator, GridRegion, InstanceType, PriceQuote, Provider
from pricing.signals import prices_changed


class PriceQuoteInline(admin.TabularInline):
    model = PriceQuote
    extra = 0


@admin.register(InstanceType)
class InstanceTypeAdmin(admin.ModelAdmin):
    list_display = ["name", "provider", "accelerator", "accelerator_count", "vcpus", "memory_gib"]
    list_filter = ["provider", "accelerator"]
    search_fields = ["name"]
    inlines = [PriceQuoteInline]

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        if any(formset.has_changed() for formset in formsets):
            prices_changed.send(sender=PriceQuote, instance_ids={form.instance.pk})


@admin.register(PriceQuote)
class PriceQuoteAdmin(admin.ModelAdmin):
    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        moved_from = form.initial.get("instance") if change and "instance" in form.changed_data else None
        prices_changed.send(sender=PriceQuote, instance_ids={obj.instance_id} | ({moved_from} if moved_from else set()))

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        prices_changed.send(sender=PriceQuote, instance_ids={obj.instance_id})

    def delete_queryset(self, request, queryset):
        instance_ids = set(queryset.values_list("instance_id", flat=True))
        super().delete_queryset(request, queryset)
        prices_changed.send(sender=PriceQuote, instance_ids=instance_ids)


admin.site.register([Provider, Accelerator, GridRegion])
