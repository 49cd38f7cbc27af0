"""The algorithm track's pages: the boards (one a suite and ruleset) with their performance profiles, and an
algorithm's page with every trial's evaluation curve. Thin: parse, call a selector, render."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import redirect, render

from leaderboard.charts.algorithms import curves_figure, profile_figure
from leaderboard.models import AlgorithmResult
from leaderboard.selectors import algorithms as selectors
from leaderboard.views import figure_json_text

DEFAULT_BOARD = ("cpu", "external")


def algorithm_boards(request):
    """The default board, or the first that has results; the page lists every board."""
    boards = selectors.algorithm_boards()
    suite, ruleset = DEFAULT_BOARD
    if boards and not any((board.suite, board.ruleset) == DEFAULT_BOARD for board in boards):
        suite, ruleset = boards[0].suite, boards[0].ruleset
    return redirect("leaderboard:algorithm-board", suite=suite, ruleset=ruleset)


def algorithm_board(request, suite: str, ruleset: str):
    rules = selectors.suite_rules(suite)
    if rules is None or ruleset not in selectors.RULESET_LABELS:
        raise Http404("No such suite or ruleset.")
    board = selectors.algorithm_board(suite=rules, ruleset=ruleset)
    figure = None
    if board.board is not None:
        labels = {str(row.result.id): row.label for row in board.rows}
        figure = figure_json_text(profile_figure(board.board.taus, board.board.rho, labels))
    context = {"board": board, "boards": selectors.algorithm_boards(), "figure": figure}
    return render(request, "leaderboard/algorithm_board.html", context)


def algorithm_result(request, pk: int):
    try:
        result = selectors.algorithm_result(pk)
    except AlgorithmResult.DoesNotExist:
        raise Http404("No algorithm result has this id.") from None
    rules = selectors.suite_rules(result.suite)
    workloads = selectors.result_workloads(result, rules)
    for workload in workloads:
        target = workload["target"]
        workload["figure"] = figure_json_text(
            curves_figure(workload["name"], workload["curves"], metric=target.metric, target=target.value)
        )
    context = {
        "result": result,
        "suite": rules,
        "workloads": workloads,
        "ruleset": selectors.RULESET_LABELS[result.ruleset],
    }
    return render(request, "leaderboard/algorithm.html", context)
