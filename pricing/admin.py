"""Staff: the catalog (providers, instances with their price history, accelerators, grid regions)."""

from django.contrib import admin

from pricing.models import Accelerator, GridRegion, InstanceType, PriceQuote, Provider


class PriceQuoteInline(admin.TabularInline):
    model = PriceQuote
    extra = 0


@admin.register(InstanceType)
class InstanceTypeAdmin(admin.ModelAdmin):
    list_display = ["name", "provider", "accelerator", "accelerator_count", "vcpus", "memory_gib"]
    list_filter = ["provider", "accelerator"]
    search_fields = ["name"]
    inlines = [PriceQuoteInline]


admin.site.register([Provider, PriceQuote, Accelerator, GridRegion])
