"""The figures of the algorithm track: a board's performance profiles (AlgoPerf's rho(tau), one step line a result)
and an algorithm's evaluation curves (its target metric against timed training, one line a trial). Plain data in,
figure dicts out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from leaderboard.charts.layout import Figure, axis, colour, dashed_line, figure_layout


def profile_figure(taus: np.ndarray, rho: Mapping[str, np.ndarray], labels: Mapping[str, str]) -> Figure:
    """Each result's profile: the share of the suite's workloads it reached within tau times the fastest, for tau
    from 1 to 4; `labels` names each result's line (key -> label), in the board's order."""
    traces = [
        {
            "type": "scatter",
            "mode": "lines",
            "name": labels[key],
            "x": [float(tau) for tau in taus],
            "y": [float(share) for share in rho[key]],
            "line": {"shape": "hv", "color": colour(index)},
            "hovertemplate": f"{labels[key]}: %{{y:.0%}} of workloads within %{{x:.2f}}x the fastest<extra></extra>",
        }
        for index, key in enumerate(labels)
    ]
    layout = figure_layout(
        None,
        xaxis=axis("tau: times the fastest time to target", range=[1, float(taus[-1])]),
        yaxis=axis("Share of workloads (rho)", range=[0, 1.05], tickformat=".0%"),
        height=380,
    )
    return {"data": traces, "layout": layout}


def curves_figure(workload: str, curves: Sequence[Mapping[str, Any]], *, metric: str, target: float) -> Figure:
    """One workload's trials: the target metric at each evaluation against the trial's accumulated submission time,
    one line a trial (the reference's dotted), and the target as a dashed line."""
    traces = []
    for curve in curves:
        label = f"{curve['contender']} study {curve['study']} trial {curve['trial']}"
        reference = curve["contender"] == "reference"
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": label,
                "legendgroup": curve["contender"],
                "showlegend": False,
                "x": curve["times_s"],
                "y": curve["metric"],
                "line": {"color": colour(1 if reference else 0), "dash": "dot" if reference else "solid", "width": 1},
                "marker": {"size": 3},
                "opacity": 0.75,
                "hovertemplate": f"{label}: %{{y:.4g}} at %{{x:.2f}} s<extra></extra>",
            }
        )
    line, label = dashed_line(y=target, text=f"target {target:g}")
    layout = figure_layout(
        None,
        xaxis=axis("Accumulated submission time (s)", rangemode="tozero"),
        yaxis=axis(metric),
        shapes=[line],
        annotations=[label],
        height=320,
    )
    return {"data": traces, "layout": layout}
