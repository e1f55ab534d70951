"""Comparing two configurations measured on the same data: paired bootstrap and permutation tests,
Williams' test between dependent correlations, and significance clusters.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from metaeval.errors import UsageError
from metaeval.stats.defaults import ALPHA, BOOTSTRAP
from metaeval.stats.result import Correlation

#: differences of statistics (all within [-1, 1]) at most this far from 0 are rounding, not evidence
ROUNDING = 1e-12
#: Paired tests between two configurations: the paired bootstrap, PERM-BOTH over scores, Williams'
#: test and the pairs permutation test (:mod:`metaeval.stats.paired`).
COMPARE_METHODS = ("bootstrap", "permutation", "williams", "pairs-permutation")


@dataclass(frozen=True)
class PairedTest:
    """The outcome of comparing statistic A with statistic B on the same data.

    ``delta = value_a - value_b``; ``p_value`` is two-sided unless ``method`` says otherwise.
    """

    value_a: float
    value_b: float
    delta: float
    p_value: float
    method: str
    n_samples: int


def paired_bootstrap_test(a: Correlation, b: Correlation) -> PairedTest:
    """Paired bootstrap resampling test (Koehn 2004; WMT metrics tasks).

    ``a`` and ``b`` must carry bootstrap samples drawn from the same resamples. With the
    observed ``delta = a - b``, the one-sided p-value is the fraction of samples whose
    difference does not have the observed sign (``<= 0`` when delta > 0, ``>= 0`` when
    delta < 0); the reported p-value is two-sided: ``min(1, 2 * one_sided)``. A zero
    observed delta gives p = 1. Samples where either side is undefined are dropped.
    Differences within :data:`ROUNDING` of zero are zero: two configurations that agree on
    a resample differ there by summation rounding only (1e-17), whose sign depends on the
    CPU's vector width, and must not decide the p-value.
    """
    if a.samples is None or b.samples is None:
        raise UsageError("paired bootstrap test needs bootstrap samples on both sides (n_bootstrap > 0)")
    if a.samples.shape != b.samples.shape:
        raise UsageError(f"bootstrap samples differ in shape: {a.samples.shape} vs {b.samples.shape}")
    name = "paired bootstrap, two-sided sign-flip fraction"
    delta = a.value - b.value
    if not (a.defined and b.defined):
        return PairedTest(a.value, b.value, math.nan, math.nan, name, 0)
    d = a.samples - b.samples
    d = d[~np.isnan(d)]
    if d.size == 0:
        return PairedTest(a.value, b.value, delta, math.nan, name, 0)
    if abs(delta) <= ROUNDING:
        return PairedTest(a.value, b.value, delta, 1.0, name, int(d.size))
    # a resampled difference within rounding of zero is a tie, which counts against the observed sign
    flipped = np.mean(d <= ROUNDING) if delta > 0 else np.mean(d >= -ROUNDING)
    return PairedTest(a.value, b.value, delta, float(min(1.0, 2.0 * flipped)), name, int(d.size))


def _zscore(v: np.ndarray) -> np.ndarray:
    sd = np.nanstd(v)
    return (v - np.nanmean(v)) / (sd if sd > 0 else 1.0)


def paired_permutation_test(
    statistic: Callable[[np.ndarray], float],
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    rng: np.random.Generator,
    n_samples: int = BOOTSTRAP,
) -> PairedTest:
    """Paired permutation test PERM-BOTH (Deutsch, Dror & Roth 2021; mt-metrics-eval
    ``PermutationSigDiff``), two-sided.

    Both metric arrays (any shape, e.g. ``[n_sys, n_seg]``) are z-scored over their defined
    values; each sample swaps every item between A and B with probability 1/2 and recomputes
    ``statistic(A') - statistic(B')``. ``p = (1 + #{|delta'| >= |delta|}) / (1 + n_samples)``.
    ``statistic`` maps a metric array to a value (the human side is bound in it).
    """
    if n_samples < 1:
        raise UsageError(f"n_samples must be at least 1, got {n_samples}")
    a, b = np.asarray(metric_a, float), np.asarray(metric_b, float)
    if a.shape != b.shape:
        raise UsageError(f"metric arrays differ in shape: {a.shape} vs {b.shape}")
    va, vb = statistic(a), statistic(b)
    name = "paired permutation (PERM-BOTH), two-sided"
    delta = va - vb
    if math.isnan(delta):
        return PairedTest(va, vb, math.nan, math.nan, name, 0)
    za, zb = _zscore(a), _zscore(b)
    hits = 0
    for _ in range(n_samples):
        swap = rng.random(a.shape) < 0.5
        d = statistic(np.where(swap, zb, za)) - statistic(np.where(swap, za, zb))
        hits += bool(abs(d) >= abs(delta) - 1e-12)
    return PairedTest(va, vb, delta, (1 + hits) / (1 + n_samples), name, n_samples)


def significance_clusters(p_values: np.ndarray, alpha: float = ALPHA) -> list[int]:
    """Cluster ranks for configurations sorted by decreasing value (mt-metrics-eval
    ``AssignRanks``).

    ``p_values[i, j]`` (``i < j``) is the p-value that configuration i is better than j.
    Walking down the list, configuration ``j`` opens a new cluster (rank + 1) when some
    member of the current cluster (from its first member up to ``j - 1``) is significantly
    better than it (``p <= alpha``); otherwise it joins the current cluster. So rank ``r``
    holds configurations not significantly worse than any other member of their cluster.
    """
    p = np.asarray(p_values, float)
    if p.ndim != 2 or p.shape[0] != p.shape[1]:
        raise UsageError(f"p-value matrix must be square, got shape {p.shape}")
    ranks: list[int] = []
    current, start = 1, 0
    for j in range(p.shape[0]):
        if j > 0 and np.any(p[start:j, j] <= alpha):
            current += 1
            start = j
        ranks.append(current)
    return ranks



def williams_test(r12: float, r13: float, r23: float, n: int, one_sided: bool = True) -> float:
    """Williams' test p-value that ``r12`` (metric 1 with humans) differs from ``r13``
    (metric 2 with humans), given ``r23`` (metric 1 with metric 2) over ``n`` items:
    ``t = (r12 - r13) sqrt((n-1)(1+r23)) / sqrt(2K (n-1)/(n-3) + rbar^2 (1-r23)^3)``,
    ``K = 1 - r12^2 - r13^2 - r23^2 + 2 r12 r13 r23``, with n - 3 degrees of freedom."""
    if n <= 3 or any(math.isnan(v) for v in (r12, r13, r23)):
        return math.nan
    k = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    rbar = (r12 + r13) / 2
    t_num = (r12 - r13) * math.sqrt((n - 1) * (1 + r23))
    t_den = math.sqrt(max(2 * (n - 1) / (n - 3) * k + rbar**2 * (1 - r23) ** 3, 0.0))
    if t_den == 0:
        return math.nan
    import scipy.stats

    p = float(scipy.stats.t.sf(abs(t_num / t_den), n - 3))
    return p if one_sided else min(1.0, 2 * p)


__all__ = ["COMPARE_METHODS", "ROUNDING", "PairedTest", "paired_bootstrap_test", "paired_permutation_test", "significance_clusters", "williams_test"]
