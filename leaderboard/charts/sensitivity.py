"""The threshold-sensitivity figure of a task: the Kendall tau between the official board order and the order at
each shifted threshold (1 at the official threshold itself), against the shift in points of the task's scale."""

from __future__ import annotations

from collections.abc import Sequence

from dawnboard import display
from leaderboard.charts.layout import Figure, axis, colour, figure_layout


def sensitivity_figure(shifts: Sequence[dict], *, point_label: str) -> Figure:
    """`shifts` as `ShiftSensitivity.as_dict()` gives them; the official threshold is drawn at 0 with tau 1."""
    points = sorted([(0.0, 1.0, None), *((shift["delta"], shift["kendall_tau"], shift) for shift in shifts)])
    drawn = [(delta, tau, shift) for delta, tau, shift in points if tau is not None]
    hover = [
        "the official threshold"
        if shift is None
        else f"{display.number(delta)} point: tau {tau:.3f} over {shift['entries_ranked']:,} entries ranked"
        for delta, tau, shift in drawn
    ]
    trace = {
        "type": "scatter",
        "mode": "lines+markers",
        "name": "Kendall tau",
        "x": [delta for delta, _, _ in drawn],
        "y": [tau for _, tau, _ in drawn],
        "text": hover,
        "hovertemplate": "%{text}<extra></extra>",
        "line": {"color": colour(0)},
    }
    ticks = [delta for delta, _, _ in points]
    layout = figure_layout(
        None,
        xaxis=axis(
            f"Threshold shift ({point_label})",
            range=[min(ticks) - 0.15, max(ticks) + 0.15],
            tickvals=ticks,
            ticktext=[("+" if delta > 0 else "") + display.number(delta) if delta else "official" for delta in ticks],
        ),
        yaxis=axis("Kendall tau with the official order", range=[-1.05, 1.05], tickvals=[-1, -0.5, 0, 0.5, 1]),
        height=360,
        showlegend=False,
    )
    return {"data": [trace], "layout": layout}
