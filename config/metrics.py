"""`/metrics` in Prometheus's text format: django-prometheus's request, response, database and cache metrics,
and Dawnboard's own, read from the database and the broker at each scrape (`DawnboardCollector`):

- `dawnboard_submissions{status}`: submissions by status; `dawnboard_pending_submissions` and
  `dawnboard_failed_submissions` on their own for alerts;
- `dawnboard_submission_errors{code}`: the rejected and failed submissions' errors by code;
- `dawnboard_judging_seconds`: a histogram of the decided submissions' time from arrival to verdict;
- `dawnboard_queue_depth{queue}`: messages waiting in each work queue (judging, reference);
- `dawnboard_reference_runs{state}`: reference runs by state;
- `dawnboard_page_cache_reads_total{result}`: page-cache reads (`hit`, `stale`: the previous copy served while
  the new one renders, `rendered`), counted in each web process (`leaderboard.page_cache`).

Served only to an address in METRICS_ALLOWED_IPS or to a signed-in staff user; anyone else gets the site's 404,
as if there were no such page. Under several gunicorn workers set PROMETHEUS_MULTIPROC_DIR (`make serve` does),
so a scrape sums every worker's counters rather than reading the one it reached.
"""

from __future__ import annotations

import ipaddress
import logging
import os

import prometheus_client
from django.conf import settings
from django.http import Http404, HttpResponse
from prometheus_client import multiprocess
from prometheus_client.core import GaugeMetricFamily, HistogramMetricFamily

from benchmarks.selectors import reference_run_state_counts
from leaderboard.http_limits import client_ip
from leaderboard.selectors.operations import (
    judging_latency,
    queue_depths,
    submission_error_code_counts,
    submission_status_counts,
)

logger = logging.getLogger(__name__)


class DawnboardCollector:
    """Dawnboard's own figures, read when scraped (a handful of aggregate queries and one broker connection)."""

    def describe(self):
        return []  # registered without a scrape: nothing is read until /metrics is asked

    def collect(self):
        statuses = submission_status_counts()
        yield _labelled("dawnboard_submissions", "Submissions by status.", "status", statuses)
        yield GaugeMetricFamily(
            "dawnboard_pending_submissions", "Submissions waiting for a verdict.", statuses["pending"]
        )
        yield GaugeMetricFamily(
            "dawnboard_failed_submissions", "Submissions whose judging failed (judging_failed).", statuses["failed"]
        )
        yield _labelled(
            "dawnboard_submission_errors",
            "Errors of rejected and failed submissions, by code.",
            "code",
            submission_error_code_counts(),
        )
        latency = judging_latency()
        yield HistogramMetricFamily(
            "dawnboard_judging_seconds",
            "Decided submissions' time from arrival to verdict, in seconds.",
            buckets=[*((str(bound), count) for bound, count in latency.buckets), ("+Inf", latency.count)],
            sum_value=latency.sum_seconds,
        )
        try:
            depths = queue_depths(timeout=2.0)
        except Exception as error:  # the scrape still answers; /health/ says the broker is down
            logger.warning("metrics: the broker could not be read: %s", error)
            depths = {}
        yield _labelled("dawnboard_queue_depth", "Messages waiting in each work queue.", "queue", depths)
        yield _labelled("dawnboard_reference_runs", "Reference runs by state.", "state", reference_run_state_counts())


def _labelled(name: str, documentation: str, label: str, values: dict[str, int]) -> GaugeMetricFamily:
    family = GaugeMetricFamily(name, documentation, labels=[label])
    for value_label, value in sorted(values.items()):
        family.add_metric([value_label], value)
    return family


_collector = DawnboardCollector()
prometheus_client.REGISTRY.register(_collector)


def metrics_allowed(request) -> bool:
    """A staff user, or a client address within METRICS_ALLOWED_IPS (addresses or networks, e.g. 10.0.0.0/8)."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated and user.is_staff:
        return True
    try:
        address = ipaddress.ip_address(client_ip(request))
    except ValueError:
        return False
    return any(address in ipaddress.ip_network(allowed, strict=False) for allowed in settings.METRICS_ALLOWED_IPS)


def metrics_view(request):
    if not metrics_allowed(request):
        raise Http404
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = prometheus_client.CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        registry.register(_collector)
    else:
        registry = prometheus_client.REGISTRY
    return HttpResponse(prometheus_client.generate_latest(registry), content_type=prometheus_client.CONTENT_TYPE_LATEST)
