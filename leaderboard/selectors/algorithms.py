"""Reads of the algorithm track: the boards (one a suite and ruleset), each scored when read over the results on it
(`dawnboard.algorithms.boards`), and one result with its trials."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count

from dawnboard.algorithms.algoperf_versions import ALGOPERF_VERSIONS
from dawnboard.algorithms.boards import Board, ScoredResult, score_board
from dawnboard.algorithms.suites import SUITES, SuiteRules
from leaderboard.models import AlgorithmResult

RULESET_LABELS = {"external": "external tuning", "self": "self-tuning"}


def suite_rules(suite: str) -> SuiteRules | None:
    """Dawnboard's suites and AlgoPerf's versions, by their names on the boards."""
    return SUITES.get(suite) or {rules.name: rules for rules in ALGOPERF_VERSIONS.values()}.get(suite)


@dataclass(frozen=True)
class BoardSummary:
    suite: str
    ruleset: str
    results: int

    @property
    def ruleset_label(self) -> str:
        return RULESET_LABELS[self.ruleset]


def algorithm_boards() -> list[BoardSummary]:
    """Every board that has results, Dawnboard's suites first, then AlgoPerf's versions."""
    counts = {
        (row["suite"], row["ruleset"]): row["results"]
        for row in AlgorithmResult.objects.values("suite", "ruleset").annotate(results=Count("id")).order_by()
    }
    order = [*SUITES, *(rules.name for rules in ALGOPERF_VERSIONS.values())]
    return [
        BoardSummary(suite, ruleset, count)
        for (suite, ruleset), count in sorted(
            counts.items(), key=lambda item: (order.index(item[0][0]) if item[0][0] in order else 99, item[0])
        )
    ]


@dataclass(frozen=True)
class BoardRow:
    rank: int
    result: AlgorithmResult
    score: float
    ratios: dict[str, float | None]  # None: never reached, or past 4x the fastest
    times: list[float | None]  # in the board's workload order

    @property
    def label(self) -> str:
        return board_label(self.result)


@dataclass(frozen=True)
class AlgorithmBoard:
    suite: SuiteRules
    ruleset: str
    rows: list[BoardRow] = field(default_factory=list)
    board: Board | None = None

    @property
    def ruleset_label(self) -> str:
        return RULESET_LABELS[self.ruleset]

    @property
    def workloads(self) -> list[str]:
        return self.suite.base_workloads

    def as_dict(self) -> dict[str, Any]:
        return {
            "suite": self.suite.name,
            "ruleset": self.ruleset,
            "workloads": self.workloads,
            "compared_as": "multiples of each result's reference"
            if self.board and self.board.normalised
            else "seconds",
            "results": [
                {
                    "id": row.result.id,
                    "rank": row.rank,
                    "name": row.result.name,
                    "source": row.result.source,
                    "submitter": row.result.submitter.name if row.result.submitter else None,
                    "reference": row.result.reference or None,
                    "score": row.score,
                    "score_vs_reference": row.result.score_vs_reference,
                    "geomean_speedup_vs_reference": row.result.geomean_speedup,
                    "times": row.result.times,
                    "held_out": row.result.held_out,
                }
                for row in self.rows
            ],
        }


def board_label(result: AlgorithmResult) -> str:
    return f"{result.name} ({result.submitter.name})" if result.submitter else result.name


def algorithm_board(*, suite: SuiteRules, ruleset: str) -> AlgorithmBoard:
    """The board of `suite` under `ruleset`: its results ranked by their score over the board (ties: the greater
    speedup over the reference, then the earlier)."""
    results = list(
        AlgorithmResult.objects.filter(suite=suite.name, ruleset=ruleset)
        .select_related("submitter")
        .defer("curves", "bundle_content")
        .order_by("id")
    )
    board = score_board(
        [ScoredResult(str(r.id), r.times, r.reference_times, r.held_out) for r in results], suite, ruleset
    )
    if board is None:
        return AlgorithmBoard(suite, ruleset)
    ordered = sorted(results, key=lambda r: (-board.scores[str(r.id)], -(r.geomean_speedup or 0.0), r.id))
    rows = [
        BoardRow(
            rank=index + 1,
            result=result,
            score=board.scores[str(result.id)],
            ratios={w: (r if math.isfinite(r) else None) for w, r in board.ratios[str(result.id)].items()},
            times=[result.times.get(workload) for workload in suite.base_workloads],
        )
        for index, result in enumerate(ordered)
    ]
    return AlgorithmBoard(suite, ruleset, rows, board)


def algorithm_result(pk: int) -> AlgorithmResult:
    """One result with its trials (raises AlgorithmResult.DoesNotExist)."""
    return AlgorithmResult.objects.select_related("submitter").defer("bundle_content").get(pk=pk)


def result_workloads(result: AlgorithmResult, suite: SuiteRules) -> list[dict[str, Any]]:
    """Each workload the result has times for (the suite's order, variants after their bases): its target, its time
    and its reference's, the speedup, and its trials' curves."""
    curves: dict[str, list[dict]] = {}
    for curve in result.curves:
        curves.setdefault(curve["workload"], []).append(curve)
    rows = []
    for rules in suite.workloads:
        if rules.name not in result.times:
            continue
        reference = (result.reference_times or {}).get(rules.name)
        rows.append(
            {
                "name": rules.name,
                "base": rules.base,
                "target": rules.target,
                "time_to_target_s": result.times[rules.name],
                "reference_time_to_target_s": reference,
                "speedup": (result.speedups or {}).get(rules.name),
                "curves": curves.get(rules.name, []),
                "reached_trials": sum(
                    1
                    for c in curves.get(rules.name, [])
                    if c["time_to_target_s"] is not None and c["contender"] == "algorithm"
                ),
                "trials": sum(1 for c in curves.get(rules.name, []) if c["contender"] == "algorithm"),
            }
        )
    return rows
