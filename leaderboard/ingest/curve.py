"""Which curve points to keep for charts when a log has more rows than a chart can use."""

from __future__ import annotations

import numpy as np

MAX_CURVE_POINTS = 2000


def curve_point_indices(metric: np.ndarray, *, keep: int | None, max_points: int = MAX_CURVE_POINTS) -> np.ndarray:
    """Indices of the rows to store as curve points, in file order.

    A short log is kept whole. A long one is cut into equal buckets and each keeps its best and worst
    evaluation, so the chart keeps the curve's envelope; the first and last rows and the threshold
    crossing (`keep`) are always kept. The verbatim log stays on the submission for anyone who
    wants every row.
    """
    count = len(metric)
    if count <= max_points:
        return np.arange(count)
    bucket_count = max(1, (max_points - 3) // 2)
    edges = np.linspace(0, count, bucket_count + 1).astype(np.int64)
    starts, stops = edges[:-1], edges[1:]
    lows = np.minimum.reduceat(metric, starts)
    highs = np.maximum.reduceat(metric, starts)
    picked = [0, count - 1] + ([keep] if keep is not None else [])
    for start, stop, low, high in zip(starts, stops, lows, highs, strict=True):
        window = metric[start:stop]
        picked.append(start + int(np.argmax(window == low)))
        picked.append(start + int(np.argmax(window == high)))
    return np.unique(np.asarray(picked, dtype=np.int64))
