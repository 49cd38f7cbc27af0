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
    bucket_size = -(-count // max(1, (max_points - 3) // 2))  # ceil division
    whole = count // bucket_size  # full buckets; the rest of the rows make one short last bucket
    buckets = metric[: whole * bucket_size].reshape(whole, bucket_size)
    offsets = np.arange(whole) * bucket_size
    picked = [offsets + np.argmin(buckets, axis=1), offsets + np.argmax(buckets, axis=1)]
    rest = metric[whole * bucket_size :]
    if len(rest):
        picked.append(whole * bucket_size + np.array([np.argmin(rest), np.argmax(rest)]))
    always = [0, count - 1] + ([keep] if keep is not None else [])
    return np.unique(np.concatenate([*picked, np.asarray(always, dtype=np.int64)]))
