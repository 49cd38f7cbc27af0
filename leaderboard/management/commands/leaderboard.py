"""Print a task's leaderboard for one metric."""

from __future__ import annotations

import json as json_module

from django.core.management.base import BaseCommand, CommandError

from dawnboard.metrics import LEADERBOARD_METRICS
from leaderboard.selectors import LATENCY_STATS, UnknownLeaderboard, leaderboard
from pricing.domain.cost import COST_POLICIES


class Command(BaseCommand):
    help = "Print the leaderboard of TASK by METRIC (training-time, training-cost, inference-latency, inference-cost)."

    def add_arguments(self, parser):
        parser.add_argument("task")
        parser.add_argument("metric", choices=list(LEADERBOARD_METRICS))
        parser.add_argument("--json", action="store_true", help="Print one JSON document and nothing else.")
        parser.add_argument("--limit", type=int, default=None, help="At most N rows.")
        parser.add_argument(
            "--cost-basis",
            choices=COST_POLICIES,
            help="Rank the cost boards by this price policy (default: the entries' own figures).",
        )
        parser.add_argument(
            "--latency-stat",
            choices=list(LATENCY_STATS),
            help="Rank the inference-latency board by this statistic (default: mean); p90 and p99 leave out"
            " entries without measured percentiles.",
        )

    def handle(self, *args, task: str, metric: str, json: bool = False, limit: int | None = None, **options):
        cost_basis = options.get("cost_basis")
        if limit is not None and limit < 1:
            raise CommandError("--limit must be at least 1.")
        try:
            board = leaderboard(
                task_slug=task,
                metric_slug=metric,
                limit=limit,
                cost_basis=cost_basis,
                latency_stat=options.get("latency_stat"),
            )
        except UnknownLeaderboard as unknown:
            raise CommandError(unknown.message) from None
        if json:
            self.stdout.write(json_module.dumps(board, indent=2))
            return
        stat = f", {board['latency_stat']}" if "latency_stat" in board else ""
        self.stdout.write(f"{board['task']} {board['metric']} ({board['unit']}{stat})")
        for row in board["results"]:
            self.stdout.write(
                f"{row['rank']:>4}  {row['value']:>14.6g}  {row['model']} / {row['team']} / {row['hardware']}"
                f" / {row['framework']} / {row['date']}"
            )
        if not board["results"]:
            self.stdout.write("(no entries)")
