"""The price catalog: providers, instance types, dated price quotes; reference data for footprints;
and each entry's hardware match."""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q


class Provider(models.Model):
    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=100, blank=True)

    def __str__(self) -> str:
        return self.slug


class InstanceType(models.Model):
    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="instances")
    name = models.CharField(max_length=100)
    accelerator = models.CharField(max_length=30, blank=True)
    accelerator_count = models.PositiveIntegerField(default=0)
    vcpus = models.PositiveIntegerField(default=0)
    memory_gib = models.DecimalField(max_digits=10, decimal_places=2, default=0)

    class Meta:
        ordering = ["provider__slug", "name"]
        constraints = [models.UniqueConstraint(fields=["provider", "name"], name="unique_instance_per_provider")]

    def __str__(self) -> str:
        return f"{self.provider.slug} {self.name}"


class PriceQuote(models.Model):
    """A published price, valid from a date until the next quote of the same instance, region and model."""

    class PricingModel(models.TextChoices):
        ON_DEMAND = "on-demand"
        SPOT = "spot"
        COMMIT_1Y = "commit-1y", "1-year commitment"
        COMMIT_3Y = "commit-3y", "3-year commitment"

    instance = models.ForeignKey(InstanceType, on_delete=models.PROTECT, related_name="quotes")
    region = models.CharField(max_length=50)
    pricing_model = models.CharField(max_length=12, choices=PricingModel.choices)
    usd_per_hour = models.DecimalField(max_digits=14, decimal_places=6)
    valid_from = models.DateField()
    valid_to = models.DateField(null=True, blank=True, help_text="Empty: still valid.")
    source_url = models.URLField(max_length=500)
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["instance", "region", "pricing_model", "valid_from"]
        constraints = [
            models.UniqueConstraint(
                fields=["instance", "region", "pricing_model", "valid_from"], name="unique_quote_start"
            ),
            models.CheckConstraint(condition=Q(usd_per_hour__gt=0), name="price_positive"),
            models.CheckConstraint(
                condition=Q(valid_to__isnull=True) | Q(valid_to__gt=F("valid_from")), name="quote_ends_after_it_starts"
            ),
        ]
        indexes = [models.Index(fields=["instance", "pricing_model", "valid_from"], name="quote_lookup")]

    def __str__(self) -> str:
        return f"{self.instance} {self.region} {self.pricing_model} {self.usd_per_hour} USD/h from {self.valid_from}"


class Accelerator(models.Model):
    name = models.CharField(max_length=30, unique=True)
    board_power_watts = models.DecimalField(max_digits=8, decimal_places=1)
    source_url = models.URLField(max_length=500)
    note = models.TextField(blank=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.board_power_watts} W)"


class GridRegion(models.Model):
    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="grid_regions")
    region = models.CharField(max_length=50)
    grams_co2e_per_kwh = models.DecimalField(max_digits=8, decimal_places=1)
    pue = models.DecimalField(max_digits=5, decimal_places=3, null=True, blank=True)
    source_url = models.URLField(max_length=500)
    note = models.TextField(blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["provider", "region"], name="unique_grid_region")]

    def __str__(self) -> str:
        return f"{self.provider.slug} {self.region}"


class HardwareMatch(models.Model):
    """Which catalog instance (and how many) an entry ran on, as resolved from its text or set by staff."""

    entry = models.OneToOneField("leaderboard.Entry", on_delete=models.CASCADE, related_name="hardware_match")
    instance = models.ForeignKey(InstanceType, null=True, blank=True, on_delete=models.PROTECT)
    instance_count = models.PositiveIntegerField(default=1)
    reason = models.CharField(max_length=300)
    set_by_staff = models.BooleanField(default=False, help_text="A staff match is never overwritten by the resolver.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(instance_count__gte=1), name="at_least_one_instance"),
        ]

    def __str__(self) -> str:
        return f"entry {self.entry_id}: {self.instance or 'unresolved'}"
