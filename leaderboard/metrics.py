"""The four leaderboard metrics: which track they rank, by which recomputed field, in which unit."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LeaderboardMetric:
    slug: str
    track: str
    field: str
    unit: str
    label: str


LEADERBOARD_METRICS: dict[str, LeaderboardMetric] = {
    metric.slug: metric
    for metric in (
        LeaderboardMetric("training-time", "train", "time_to_accuracy_seconds", "seconds", "Training time"),
        LeaderboardMetric("training-cost", "train", "training_cost_usd", "USD", "Training cost"),
        LeaderboardMetric("inference-latency", "inference", "latency_ms", "milliseconds", "Inference latency"),
        LeaderboardMetric(
            "inference-cost", "inference", "inference_cost_usd_per_10k", "USD per 10,000 items", "Inference cost"
        ),
    )
}
