"""Bootstrap resampling of segments and percentile intervals.

Every configuration of a run shares one matrix of resampled segment indices (seeded), so the
intervals of two configurations are paired. A statistic takes the resamples as ``weights``
``[n_samples, n_seg]``, the number of times each segment is drawn in each sample, and computes
every sample in closed form from per-segment sums where it can: a resample then costs a
weighted sum rather than a recomputation (docs/design.md, "Meta-evaluation").
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from metaeval.errors import UsageError
from metaeval.stats.defaults import CI
from metaeval.stats.result import Correlation


def bootstrap_indices(n_items: int, n_samples: int, rng: np.random.Generator) -> np.ndarray:
    """Indices ``[n_samples, n_items]`` drawn with replacement (one row per bootstrap sample)."""
    if n_items < 1 or n_samples < 1:
        raise UsageError(f"bootstrap needs at least one item and one sample, got {n_items} items, {n_samples} samples")
    return rng.integers(0, n_items, size=(n_samples, n_items))


def resample_weights(indices: np.ndarray, n_items: int) -> np.ndarray:
    """How often each item is drawn in each sample: ``[n_samples, n_items]`` float counts."""
    indices = np.asarray(indices)
    rows = np.repeat(np.arange(indices.shape[0]), indices.shape[1])
    weights = np.zeros((indices.shape[0], n_items))
    np.add.at(weights, (rows, indices.ravel()), 1.0)
    return weights


def percentile_ci(samples: np.ndarray, level: float = CI) -> tuple[float, float]:
    """Percentile interval of the defined bootstrap ``samples`` (NaN if none is defined)."""
    if not 0.0 < level < 1.0:
        raise UsageError(f"confidence level must be in (0, 1), got {level!r}")
    samples = np.asarray(samples, dtype=float)
    samples = samples[~np.isnan(samples)]
    if samples.size == 0:
        return math.nan, math.nan
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(samples, [alpha, 1.0 - alpha])
    return float(low), float(high)


def with_samples(result: Correlation, samples: np.ndarray | None, level: float) -> Correlation:
    """``result`` with its bootstrap ``samples`` and their percentile interval (unchanged without
    samples; no interval when ``result`` is undefined)."""
    if samples is None:
        return result
    low, high = percentile_ci(samples, level) if result.defined else (math.nan, math.nan)
    return dataclasses.replace(result, ci_low=low, ci_high=high, samples=samples)


__all__ = ["bootstrap_indices", "percentile_ci", "resample_weights", "with_samples"]
