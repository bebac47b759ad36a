"""Percentile bootstrap intervals, seeded so the same data always gives the same interval."""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np


def bootstrap_interval(values: Sequence[float], stat: Callable[[np.ndarray], float] = np.mean,
                       confidence: float = 0.95, resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """(low, high) of `stat` over resamples of `values` with replacement; (nan, nan) when empty."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, data.size, size=(resamples, data.size))
    stats = np.array([stat(data[row]) for row in idx]) if stat is not np.mean else data[idx].mean(axis=1)
    alpha = (1 - confidence) / 2
    return float(np.quantile(stats, alpha)), float(np.quantile(stats, 1 - alpha))
