"""`/metrics` (config/metrics.py): django-prometheus's metrics and Dawnboard's own, read from the database at each
scrape, served only to METRICS_ALLOWED_IPS or to staff (anyone else gets 404)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from benchmarks.models import ReferenceRun
from leaderboard.models import Submission

pytestmark = pytest.mark.django_db


def samples(response) -> dict[tuple[str, tuple], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    }


def decided(status: str, seconds: float, errors=()) -> Submission:
    submission = Submission.objects.create(source="api", task_slug="digits", track="train", status=status)
    Submission.objects.filter(id=submission.id).update(
        decided_at=submission.created_at + timedelta(seconds=seconds), errors=list(errors)
    )
    return submission


@pytest.fixture
def scraper(client, settings):
    settings.METRICS_ALLOWED_IPS = ["10.0.0.0/8", "127.0.0.1"]
    return client


def test_submissions_by_status_and_code_judging_latency_and_reference_runs(scraper):
    decided("accepted", 0.3)
    decided("accepted", 4.0)
    decided("rejected", 0.2, [{"code": "unknown_task", "message": "x"}, {"code": "missing_log", "message": "y"}])
    decided("rejected", 20.0, [{"code": "unknown_task", "message": "z"}])
    decided("failed", 700.0, [{"code": "judging_failed", "message": "lost"}])
    Submission.objects.create(source="api", task_slug="digits", track="train")  # pending, undecided
    ReferenceRun.objects.create(task_slug="digits", recipe="cnn", state="running", started_at=timezone.now())

    response = scraper.get("/metrics")

    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain; version=")
    got = samples(response)
    by_status = {status: got[("dawnboard_submissions", (("status", status),))] for status in Submission.Status.values}
    assert by_status == {"pending": 1, "accepted": 2, "rejected": 2, "failed": 1}
    assert got[("dawnboard_pending_submissions", ())] == 1 and got[("dawnboard_failed_submissions", ())] == 1
    assert got[("dawnboard_submission_errors", (("code", "unknown_task"),))] == 2
    assert got[("dawnboard_submission_errors", (("code", "missing_log"),))] == 1
    assert got[("dawnboard_submission_errors", (("code", "judging_failed"),))] == 1
    bucket = {le: got[("dawnboard_judging_seconds_bucket", (("le", le),))] for le in ("0.25", "0.5", "5.0", "600.0")}
    assert bucket == {"0.25": 1, "0.5": 2, "5.0": 3, "600.0": 4}
    assert got[("dawnboard_judging_seconds_bucket", (("le", "+Inf"),))] == 5
    assert got[("dawnboard_judging_seconds_count", ())] == 5
    assert got[("dawnboard_judging_seconds_sum", ())] == pytest.approx(724.5)
    assert got[("dawnboard_reference_runs", (("state", "running"),))] == 1
    assert any(name == "django_http_requests_total_by_method_total" for name, _ in got)  # django-prometheus's


def test_page_cache_reads_are_counted_by_result(scraper, settings):
    settings.PAGE_CACHE_SECONDS = 60
    before = samples(scraper.get("/metrics"))
    scraper.get("/")
    scraper.get("/")

    after = samples(scraper.get("/metrics"))

    def read(result, got):
        return got.get(("dawnboard_page_cache_reads_total", (("result", result),)), 0)

    assert read("hit", after) - read("hit", before) >= 1
    assert read("rendered", after) - read("rendered", before) >= 1


def test_an_address_outside_the_list_gets_404_and_staff_get_the_metrics(client, settings):
    settings.METRICS_ALLOWED_IPS = ["10.0.0.0/8"]

    assert client.get("/metrics").status_code == 404  # 127.0.0.1 is not in 10/8
    assert client.get("/metrics", REMOTE_ADDR="10.1.2.3").status_code == 200
    user = get_user_model().objects.create_user("reader", password="x")
    client.force_login(user)
    assert client.get("/metrics").status_code == 404  # signed in, not staff
    user.is_staff = True
    user.save()
    assert client.get("/metrics").status_code == 200


def test_behind_a_proxy_the_forwarded_address_is_judged_not_the_proxy_s(client, settings):
    settings.METRICS_ALLOWED_IPS = ["127.0.0.1"]
    settings.BEHIND_TLS_PROXY = True

    forwarded = client.get("/metrics", HTTP_X_FORWARDED_FOR="203.0.113.9", HTTP_X_FORWARDED_PROTO="https")

    assert forwarded.status_code == 404
