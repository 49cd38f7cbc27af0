"""The four leaderboard metrics: which track they rank, by which recomputed result, in which unit."""

from __future__ import annotations

from dataclasses import dataclass

from dawnboard.rules import Track


@dataclass(frozen=True)
class LeaderboardMetric:
    """One ranking. `field` names the recomputed result (a `Results` attribute) it sorts by, lowest first."""

    slug: str
    track: Track
    field: str
    unit: str
    label: str

    @property
    def is_cost(self) -> bool:
        return self.field in COST_FIELDS


TRAINING_TIME = LeaderboardMetric("training-time", Track.TRAIN, "time_to_accuracy_seconds", "seconds", "Training time")
TRAINING_COST = LeaderboardMetric("training-cost", Track.TRAIN, "training_cost_usd", "USD", "Training cost")
INFERENCE_LATENCY = LeaderboardMetric(
    "inference-latency", Track.INFERENCE, "latency_ms", "milliseconds", "Inference latency"
)
INFERENCE_COST = LeaderboardMetric(
    "inference-cost", Track.INFERENCE, "inference_cost_usd_per_10k", "USD per 10,000 items", "Inference cost"
)
COST_FIELDS = frozenset({TRAINING_COST.field, INFERENCE_COST.field})

LEADERBOARD_METRICS: dict[str, LeaderboardMetric] = {
    metric.slug: metric for metric in (TRAINING_TIME, TRAINING_COST, INFERENCE_LATENCY, INFERENCE_COST)
}


def time_metric_of(cost_metric: LeaderboardMetric) -> LeaderboardMetric:
    """The board whose entries a cost board prices: training time for training cost, latency for inference."""
    return TRAINING_TIME if cost_metric.track == Track.TRAIN else INFERENCE_LATENCY
