"""An entry's rank is its board's rank, by construction: for every metric, cost basis and latency statistic,
over random figures (decimals stored to 20 places, floats, ties of value and of date), on SQLite and, in the
PostgreSQL pass of `make test`, on PostgreSQL."""

from __future__ import annotations

import datetime
import re
from decimal import Decimal

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dawnboard.metrics import INFERENCE_COST, INFERENCE_LATENCY, LEADERBOARD_METRICS
from dawnboard.rules import Track
from leaderboard import selectors
from leaderboard.models import Entry, HardwareMatch, Submission, TaskVersion
from leaderboard.services import entry_policy_costs_refresh
from pricing.domain.cost import COST_POLICIES
from pricing.models import InstanceType
from tests.factories import inference_document
from tests.leaderboard.api.helpers import json_bytes, submit

pytestmark = pytest.mark.django_db

DATES = [datetime.date(2019, 6, day) for day in (1, 2, 3)]  # few, so that dates tie often
INSTANCES = ("p3.2xlarge", "c5.large", None)  # None: hardware the catalog cannot price

# A few values drawn from a small pool tie often; the others are arbitrary, with up to 20 decimal places as a
# cost is stored, and 16 significant figures as a float holds (the digits SQLite's float keeps and Django's
# 15-digit read of a decimal does not).
SMALL_POOL = st.sampled_from([Decimal("0.5"), Decimal("1.234567890123457e-5"), Decimal("3")])
ANY_DECIMAL = st.decimals(min_value=Decimal("1e-12"), max_value=Decimal("1e6"), places=20, allow_nan=False)
FIGURE = st.one_of(SMALL_POOL, ANY_DECIMAL)


@st.composite
def entry_figures(draw, track: Track) -> dict:
    figures = {"date": draw(st.sampled_from(DATES)), "instance": draw(st.sampled_from(INSTANCES))}
    if track == Track.TRAIN:
        figures["time_to_accuracy_seconds"] = float(draw(FIGURE))
        figures["training_cost_usd"] = draw(st.one_of(st.none(), FIGURE))
        # The as-submitted board ranks by the stored cost; the price only words its arithmetic.
        figures["cost_per_hour_usd"] = None if figures["training_cost_usd"] is None else Decimal("1.5")
    else:
        figures["latency_ms"] = float(draw(FIGURE))
        figures["inference_cost_usd_per_10k"] = draw(st.one_of(st.none(), FIGURE))
        if draw(st.booleans()):  # measured: percentiles in order, as the table's constraint wants
            p50, p90, p99, top = sorted(float(draw(FIGURE)) for _ in range(4))
            figures |= {"latency_p50_ms": p50, "latency_p90_ms": p90, "latency_p99_ms": p99, "latency_max_ms": top}
    return figures


def create_entry(version: TaskVersion, track: Track, figures: dict) -> Entry:
    figures = dict(figures)
    instance = figures.pop("instance")
    submission = Submission.objects.create(
        source=Submission.Source.IMPORT, task_slug=version.task.slug, track=track, status=Submission.Status.ACCEPTED
    )
    entry = Entry.objects.create(
        submission=submission,
        task=version.task,
        task_version=version,
        track=track,
        version=version.version,
        author="team",
        author_email="team@example.org",
        framework="PyTorch",
        model="model",
        hardware=instance or "a machine of its own",
        claimed={},
        accuracy=float(version.threshold) + 1,
        **figures,
    )
    if instance is not None:
        HardwareMatch.objects.create(
            entry=entry, instance=InstanceType.objects.get(provider__slug="aws", name=instance), reason="test"
        )
        entry_policy_costs_refresh(entry_ids=[entry.id])  # as matching it does (`hardware_match_entry`)
    return entry


def boards_of(track: Track) -> list[dict]:
    """Every board of the track: each metric, each cost basis of a cost board, each latency statistic."""
    boards = []
    for metric in LEADERBOARD_METRICS.values():
        if metric.track != track:
            continue
        if metric.is_cost:
            boards += [{"metric": metric, "cost_basis": policy} for policy in COST_POLICIES]
        elif metric == INFERENCE_LATENCY:
            boards += [{"metric": metric, "latency_stat": stat} for stat in selectors.LATENCY_STATS]
        else:
            boards.append({"metric": metric})
    return boards


def assert_entry_ranks_are_board_ranks(entries: list[Entry], track: Track) -> None:
    for board in boards_of(track):
        metric = board["metric"]
        document = selectors.leaderboard(
            task_slug="cifar10",
            metric_slug=metric.slug,
            cost_basis=board.get("cost_basis"),
            latency_stat=board.get("latency_stat"),
        )
        board_ranks = {row["entry_id"]: row["rank"] for row in document["results"]}
        for entry in entries:
            place = selectors.entry_rank(
                Entry.objects.get(id=entry.id),  # as a page reads it: the figures as stored
                metric=metric,
                **{name: value for name, value in board.items() if name != "metric"},
            )
            assert place.rank == board_ranks.get(entry.id), (board, entry.id, place)
            assert place.board_size == (document["count"] if place.rank is not None else None)


@pytest.mark.parametrize("track", [Track.TRAIN, Track.INFERENCE])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_an_entrys_rank_is_its_boards_rank_on_every_board(track, data):
    version = TaskVersion.objects.get(task__slug="cifar10", is_current=True)
    figures = data.draw(st.lists(entry_figures(track), min_size=1, max_size=6))
    with transaction.atomic():  # each example on an empty board
        entries = [create_entry(version, track, each) for each in figures]
        assert_entry_ranks_are_board_ranks(entries, track)
        transaction.set_rollback(True)


def test_a_measured_cost_read_back_to_15_digits_ranks_first_of_one(client, api_client):
    """The newcomer's case: a cost per 10,000 items whose 16th digit SQLite keeps and Django's read rounds up."""
    document = inference_document(cost=1.234567890123457e-09, latency=0.0574, hardware="a machine of its own")
    assert submit(api_client, track="inference", entry=json_bytes(document), log=None).status_code == 201
    entry = Entry.objects.get()

    html = client.get(f"/entries/{entry.id}/").content.decode()

    assert f'data-metric="{INFERENCE_COST.slug}" data-rank="1"' in html
    assert set(re.findall(r'data-rank="(\d+)"', html)) == {"1"}  # ranked first on every board (ids may hold "#2")
    assert not re.search(r"#\d+ of", html.replace("#1 of", ""))
    assert [place.rank for place in selectors.entry_board_ranks(entry)] == [1, 1]


def test_a_measured_entry_is_also_ranked_by_its_percentiles(client):
    version = TaskVersion.objects.get(task__slug="cifar10", is_current=True)
    measured = {"latency_p50_ms": 1.0, "latency_p90_ms": 2.0, "latency_p99_ms": 3.0, "latency_max_ms": 4.0}
    slow = create_entry(version, Track.INFERENCE, {"date": DATES[0], "instance": None, "latency_ms": 9.0, **measured})
    create_entry(version, Track.INFERENCE, {"date": DATES[0], "instance": None, "latency_ms": 5.0})

    places = {(place.metric.slug, place.latency_stat.slug): place.rank for place in selectors.entry_board_ranks(slow)}

    assert places == {
        ("inference-latency", "mean"): 2,
        ("inference-latency", "p90"): 1,
        ("inference-latency", "p99"): 1,
        ("inference-cost", "mean"): None,
    }
