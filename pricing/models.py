"""The price catalog: providers, instance types, dated price quotes; reference data for footprints.

Nothing here knows of entries: which instance an entry ran on is the leaderboard's `HardwareMatch`."""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q

from pricing.domain.catalog import (
    GRID_DECIMAL_PLACES,
    MEMORY_DECIMAL_PLACES,
    POWER_DECIMAL_PLACES,
    PRICE_DECIMAL_PLACES,
    PUE_DECIMAL_PLACES,
    Quote,
)
from pricing.domain.cost import usd_per_hour_text


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
    memory_gib = models.DecimalField(max_digits=10, decimal_places=MEMORY_DECIMAL_PLACES, default=0)

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
        MONTHLY = "monthly", "monthly subscription (over 720 hours)"

    instance = models.ForeignKey(InstanceType, on_delete=models.PROTECT, related_name="quotes")
    region = models.CharField(max_length=50)
    pricing_model = models.CharField(max_length=12, choices=PricingModel.choices)
    usd_per_hour = models.DecimalField(max_digits=20, decimal_places=PRICE_DECIMAL_PLACES)
    valid_from = models.DateField()
    valid_to = models.DateField(null=True, blank=True, help_text="Empty: still valid.")
    source_url = models.URLField(max_length=500)
    note = models.TextField(blank=True)
    # The price as its source quotes it, where that is not USD per hour (pricing.domain.catalog.Quote):
    # `usd_per_hour` is then worked out from these, which are kept as given.
    currency = models.CharField(max_length=3, default="USD")
    quoted_price = models.DecimalField(max_digits=20, decimal_places=PRICE_DECIMAL_PLACES, null=True, blank=True)
    quoted_per = models.CharField(max_length=5, blank=True, help_text="hour or month")
    currency_per_usd = models.DecimalField(max_digits=20, decimal_places=PRICE_DECIMAL_PLACES, null=True, blank=True)
    usd_per_currency = models.DecimalField(max_digits=20, decimal_places=PRICE_DECIMAL_PLACES, null=True, blank=True)
    exchange_rate_source = models.CharField(max_length=500, blank=True)

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
        price = usd_per_hour_text(self.usd_per_hour)
        return f"{self.instance} {self.region} {self.pricing_model} {price} USD/h from {self.valid_from}"

    @property
    def quote_text(self) -> str | None:
        """The price as its source quotes it ('5129 CNY per month at 6.70 CNY per USD / 720 h'); None for USD/h."""
        if self.quoted_price is None:
            return None
        return Quote(
            currency=self.currency,
            amount=self.quoted_price.normalize(),
            per=self.quoted_per,
            currency_per_usd=self.currency_per_usd.normalize() if self.currency_per_usd is not None else None,
            usd_per_currency=self.usd_per_currency.normalize() if self.usd_per_currency is not None else None,
            exchange_rate_source=self.exchange_rate_source,
        ).text


class Accelerator(models.Model):
    name = models.CharField(max_length=30, unique=True)
    board_power_watts = models.DecimalField(max_digits=8, decimal_places=POWER_DECIMAL_PLACES)
    source_url = models.URLField(max_length=500)
    note = models.TextField(blank=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.board_power_watts} W)"


class GridRegion(models.Model):
    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="grid_regions")
    region = models.CharField(max_length=50)
    grams_co2e_per_kwh = models.DecimalField(max_digits=10, decimal_places=GRID_DECIMAL_PLACES)
    pue = models.DecimalField(max_digits=5, decimal_places=PUE_DECIMAL_PLACES, null=True, blank=True)
    source_url = models.URLField(max_length=500)
    note = models.TextField(blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["provider", "region"], name="unique_grid_region")]

    def __str__(self) -> str:
        return f"{self.provider.slug} {self.region}"
