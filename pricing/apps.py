from django.apps import AppConfig


class PricingConfig(AppConfig):
    name = "pricing"
    verbose_name = "Pricing"

    def ready(self) -> None:
        from pricing import signals  # noqa: F401  (connects the receivers)
