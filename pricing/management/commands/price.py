"""Print the quote the catalog gives for an instance on a date."""

import datetime
import json as json_module

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from pricing.domain.cost import usd_per_hour_text
from pricing.models import InstanceType, PriceQuote
from pricing.selectors import quote_on


class Command(BaseCommand):
    help = "Print the price of INSTANCE [--provider P] [--on YYYY-MM-DD] [--model on-demand|spot] [--region R]."
    requires_system_checks = []  # a read, like `leaderboard`: the checks import every view for nothing

    def add_arguments(self, parser):
        parser.add_argument("instance")
        parser.add_argument("--provider")
        parser.add_argument("--on", type=datetime.date.fromisoformat, help="The day (default: today).")
        parser.add_argument("--model", default="on-demand", choices=PriceQuote.PricingModel.values)
        parser.add_argument("--region")
        parser.add_argument("--json", action="store_true", help="Print one JSON document and nothing else.")

    def handle(self, *args, instance: str, **options):
        instances = InstanceType.objects.select_related("provider").filter(name=instance)
        if options["provider"]:
            instances = instances.filter(provider__slug=options["provider"])
        if not instances:
            raise CommandError(f"No instance type '{instance}' in the catalog.")
        if len(instances) > 1:
            providers = ", ".join(sorted(i.provider.slug for i in instances))
            raise CommandError(f"'{instance}' exists at several providers ({providers}): name one with --provider.")
        day = options["on"] or timezone.localdate()
        quote = quote_on(instance=instances[0], day=day, pricing_model=options["model"], region=options["region"])
        if quote is None:
            raise CommandError(f"No {options['model']} price for {instances[0]} on {day}.")
        document = {
            "provider": quote.instance.provider.slug,
            "instance": quote.instance.name,
            "region": quote.region,
            "pricing_model": quote.pricing_model,
            "usd_per_hour": usd_per_hour_text(quote.usd_per_hour),
            "valid_from": quote.valid_from.isoformat(),
            "valid_to": quote.valid_to.isoformat() if quote.valid_to else None,
            "source": quote.source_url,
        }
        if options["json"]:
            self.stdout.write(json_module.dumps(document))
        else:
            until = document["valid_to"] or "now"
            self.stdout.write(
                f"{document['provider']} {document['instance']} {document['region']} {document['pricing_model']}: "
                f"{document['usd_per_hour']} USD/h from {document['valid_from']} to {until} ({document['source']})"
            )
