"""Pricing API: instance types with their price history."""

from rest_framework import generics, serializers

from pricing.domain.catalog import PRICE_DECIMAL_PLACES
from pricing.domain.cost import usd_per_hour_text
from pricing.models import InstanceType, PriceQuote


class PriceField(serializers.DecimalField):
    """USD per hour with 6 decimal places, or every one the catalog gives (see `usd_per_hour_text`)."""

    def to_representation(self, value):
        return usd_per_hour_text(value)


class PriceQuoteSerializer(serializers.ModelSerializer):
    usd_per_hour = PriceField(max_digits=20, decimal_places=PRICE_DECIMAL_PLACES, read_only=True)
    quote = serializers.SerializerMethodField(help_text="The price as its source quotes it, where not USD per hour.")

    class Meta:
        model = PriceQuote
        fields = [
            "id", "region", "pricing_model", "usd_per_hour", "valid_from", "valid_to", "source_url", "note", "quote",
        ]  # fmt: skip

    def get_quote(self, quote: PriceQuote) -> dict | None:
        if quote.quoted_price is None:
            return None
        return {
            "currency": quote.currency,
            "price": str(quote.quoted_price.normalize()),
            "per": quote.quoted_per,
            "currency_per_usd": str(quote.currency_per_usd.normalize()) if quote.currency_per_usd else None,
            "usd_per_currency": str(quote.usd_per_currency.normalize()) if quote.usd_per_currency else None,
            "exchange_rate_source": quote.exchange_rate_source,
            "text": quote.quote_text,
        }


class InstanceTypeSerializer(serializers.ModelSerializer):
    provider = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    url = serializers.HyperlinkedIdentityField(view_name="pricing-api:instance-detail")

    class Meta:
        model = InstanceType
        fields = ["id", "url", "provider", "name", "accelerator", "accelerator_count", "vcpus", "memory_gib"]


class InstanceTypeDetailSerializer(InstanceTypeSerializer):
    quotes = PriceQuoteSerializer(many=True, read_only=True)

    class Meta(InstanceTypeSerializer.Meta):
        fields = [*InstanceTypeSerializer.Meta.fields, "quotes"]


class InstanceTypeListView(generics.ListAPIView):
    serializer_class = InstanceTypeSerializer
    queryset = InstanceType.objects.select_related("provider")
    filterset_fields = ["provider__slug", "accelerator"]


class InstanceTypeDetailView(generics.RetrieveAPIView):
    serializer_class = InstanceTypeDetailSerializer
    queryset = InstanceType.objects.select_related("provider").prefetch_related("quotes")
    pagination_class = None  # one object: neither paged nor filtered, in the browsable API too
    filter_backends = []
