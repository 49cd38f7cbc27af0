"""Print a task's leaderboard for one metric."""

from __future__ import annotations

import json as json_module

from django.core.management.base import BaseCommand, CommandError

from dawnboard import display
from dawnboard.metrics import LEADERBOARD_METRICS, time_metric_of
from dawnboard.rules import Track
from dawnboard.verification import VERIFICATION_LEVELS
from leaderboard.selectors import COST_AT, LATENCY_STATS, UnknownLeaderboard, leaderboard
from pricing.domain.cost import AS_SUBMITTED, COST_POLICIES, COST_POLICY_MEANINGS


class Command(BaseCommand):
    help = "Print the leaderboard of TASK by METRIC (training-time, training-cost, inference-latency, inference-cost)."
    # A read of the database, like `dbshell`: it skips the system checks (`manage.py check`, `migrate` and the
    # server run them), which import every view and the libraries behind them, 0.5 s of a 1 s command.
    requires_system_checks = []

    def add_base_argument(self, parser, *args, **kwargs):
        """Django's own `--version` (its version number) gives way to the task version a board is read for."""
        if "--version" not in args:
            super().add_base_argument(parser, *args, **kwargs)

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
            "--version", help="The task version whose board to print, e.g. mlperf-v4.0 (default: the current one)."
        )
        parser.add_argument(
            "--latency-stat",
            choices=list(LATENCY_STATS),
            help="Rank the inference-latency board by this statistic (default: mean); p90 and p99 leave out"
            " entries without measured percentiles.",
        )
        parser.add_argument(
            "--cost-at",
            choices=list(COST_AT),
            help="Rank the inference-cost board at this cost (default: single-stream); throughput leaves out"
            " entries not measured offline through LoadGen.",
        )
        parser.add_argument(
            "--verification",
            help="The board of the entries of these verification levels only, comma-separated: "
            + ", ".join(VERIFICATION_LEVELS)
            + " (default: every entry).",
        )

    def handle(self, *args, task: str, metric: str, json: bool = False, limit: int | None = None, **options):
        cost_basis = options.get("cost_basis")
        if limit is not None and limit < 1:
            raise CommandError("--limit must be at least 1.")
        query = {"task_slug": task, "metric_slug": metric, "cost_basis": cost_basis, "version": options.get("version")}
        try:
            # The text lists the entries left out, so it reads the whole board and shows the first `limit` rows.
            board = leaderboard(
                **query,
                limit=limit if json else None,
                latency_stat=options.get("latency_stat"),
                cost_at=options.get("cost_at"),
                verification=options.get("verification"),
            )
        except UnknownLeaderboard as unknown:
            raise CommandError(unknown.message) from None
        if json:
            self.stdout.write(json_module.dumps(board, indent=2))
            return
        for line in self._describe(board, limit=limit, cost_basis=cost_basis):
            self.stdout.write(line)

    def _describe(self, board: dict, *, limit: int | None, cost_basis: str | None) -> list[str]:
        metric = LEADERBOARD_METRICS[board["metric"]]
        heading = board["unit"] + "".join(f", {board[name]}" for name in ("latency_stat", "cost_at") if name in board)
        if "verification" in board:
            heading += f"; {' or '.join(board['verification'])} entries only"
        if metric.is_cost:
            basis = cost_basis or AS_SUBMITTED
            heading += f"; cost basis {basis}: {COST_POLICY_MEANINGS[basis]}"
        lines = [f"{board['task']} {board['metric']} ({heading})"]
        if cost_basis is not None and not metric.is_cost:
            lines.append(f"(--cost-basis ranks the cost boards only; {board['metric']} is not priced)")
        lines += [_row_line(row, metric_slug=board["metric"]) for row in board["results"][:limit]]
        if not board["results"]:
            lines.append("(no entries)")
        if metric.is_cost:
            lines += _left_out(board, basis=cost_basis or AS_SUBMITTED)
        return lines


def _row_line(row: dict, *, metric_slug: str) -> str:
    """One board row for people: the rank, the value in its unit, then who ran what on which hardware, when."""
    team = row["team"] + (f" (submitted by {row['submitter']})" if row["submitter"] else "")
    value = display.board_value(row["value"], metric_slug)
    described = " / ".join((row["model"], team, row["hardware"], row["framework"], row["date"]))
    return f"{row['rank']:>4}  {value:>14}  {described}  [{row['verification']}]"


def _left_out(board: dict, *, basis: str) -> list[str]:
    """How many entries of the board this cost board prices are missing from it for want of a price."""
    time_metric = time_metric_of(LEADERBOARD_METRICS[board["metric"]])
    timed = leaderboard(task_slug=board["task"], metric_slug=time_metric.slug)["results"]
    priced = {row["entry_id"] for row in board["results"]}
    missing = [row for row in timed if row["entry_id"] not in priced]
    if not missing:
        return []
    if basis == AS_SUBMITTED:
        field = "costPerHour" if time_metric.track == Track.TRAIN else "cost"
        why = f"they state no {field}; rank them at a catalog price with --cost-basis catalog-at-submission"
    else:
        why = (
            f"no {basis} price: their hardware matches no catalog instance, or the catalog has no such price "
            "(`.venv/bin/python manage.py resolve_hardware` says why for each)"
        )
    count = len(missing)
    return [
        f"{count} {'entry' if count == 1 else 'entries'} of the {time_metric.slug} board left out: {why}.",
        f"All of them: .venv/bin/python manage.py leaderboard {board['task']} {time_metric.slug}",
    ]
