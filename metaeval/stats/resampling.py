"""Bootstrap resampling of segments and of systems, and percentile intervals.

Every configuration of a run shares one matrix of resampled segment indices (seeded), so the
intervals of two configurations are paired. A statistic takes the resamples as ``weights``
``[n_samples, n_seg]``, the number of times each segment is drawn in each sample, and computes
every sample in closed form from per-segment sums where it can: a resample then costs a
weighted sum rather than a recomputation (docs/design.md, "Meta-evaluation").

System-level statistics may also resample systems (:data:`RESAMPLINGS`; Deutsch, Dror & Roth
2021, BOOT-SYSTEMS and BOOT-BOTH): each resample draws as many systems as there are, with
replacement, from a stream of its own (:func:`system_draws`), the same draws for every
configuration with the same systems. A statistic of the drawn systems is the statistic of the
list of drawn systems, copies included (:func:`drawn`), except that pair statistics leave out
the pairs formed by two copies of one system, which compare a system with itself
(:func:`pair_weights`).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from metaeval.errors import UsageError
from metaeval.stats.defaults import CI
from metaeval.stats.result import Correlation

#: What the bootstrap of system-level statistics resamples: the segments (each system's score
#: recomputed from the drawn segments), the systems (their full-sample scores), or both.
RESAMPLINGS = ("segments", "systems", "both")
#: Spawn key of the stream the system draws come from, beside the segment stream of ``seed``.
SYSTEM_STREAM = 1


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


def system_draws(seed: int, n_systems: int, first: int, count: int) -> np.ndarray:
    """The systems drawn by the resamples ``first`` to ``first + count - 1`` of a run with
    bootstrap ``seed``, ``[count, n_systems]`` indices drawn with replacement. A stream of its
    own for each number of systems and block of resamples, so that the segment resamples are the
    same whatever is resampled at system level, and every configuration with the same systems
    gets the same draws wherever its block is computed."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(SYSTEM_STREAM, n_systems, first)))
    return rng.integers(0, n_systems, size=(count, n_systems))


def drawn(values: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """``values`` (``[n_samples, n_sys]`` or ``[n_sys]``) of the drawn systems of each resample:
    ``[n_samples, n_drawn]``, a system drawn twice appearing twice."""
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        return values[draws]
    return np.take_along_axis(values, draws, axis=1)


def pair_weights(draws: np.ndarray, n_systems: int) -> np.ndarray:
    """How many pairs of drawn systems each system pair ``(i < j)`` (``np.triu_indices(n, 1)``
    order) stands for in each resample: ``c_i c_j``, ``c`` the number of copies of each system
    drawn. Pairs of two copies of one system are not counted. ``[n_samples, n_pairs]``."""
    counts = resample_weights(draws, n_systems)
    i, j = np.triu_indices(n_systems, 1)
    return counts[:, i] * counts[:, j]


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


__all__ = [
    "RESAMPLINGS", "bootstrap_indices", "drawn", "pair_weights", "percentile_ci", "resample_weights", "system_draws",
    "with_samples",
]  # fmt: skip
