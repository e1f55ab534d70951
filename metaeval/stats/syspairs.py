"""System-level agreement on pairs of systems (WMT21-24).

- :func:`pairwise_accuracy`: the share of system pairs that metric and humans order the same
  way, a pair tied on both sides counting as agreement (Kocmi et al. 2021, "To Ship or Not
  to Ship"; mt-metrics-eval ``Agreement``).
- :func:`system_kendall_c`: Kendall tau-c between system scores (mt-metrics-eval
  ``KendallVariants(variant='c')``).
- :func:`soft_pairwise_accuracy`: ``1 - mean |p_human - p_metric|`` over system pairs, where
  ``p`` is the one-sided paired permutation p-value that system i beats system j, from the
  segment scores (Thompson et al. 2024, WMT24 metrics task; mt-metrics-eval
  ``PairwiseConfidenceError``). One matrix of random segment swaps (seeded) serves every pair.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from metaeval.errors import UsageError
from metaeval.stats.case import HumanSide
from metaeval.stats.defaults import CI, PERMUTATIONS
from metaeval.stats.resampling import percentile_ci
from metaeval.stats.result import Correlation, undefined
from metaeval.stats.tallies import variant_values
from metaeval.stats.weighted import power_of_two_scaled


def _upper(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(n, 1)


def _agreement(metric: np.ndarray, human: np.ndarray) -> np.ndarray:
    """Pairwise accuracy of each row of ``metric``/``human`` ``[S, n_sys]``."""
    i, j = _upper(metric.shape[-1])
    same = np.sign(metric[..., i] - metric[..., j]) == np.sign(human[..., i] - human[..., j])
    return same.mean(axis=-1)


def _system_statistic(
    label: str,
    rows: Callable[[np.ndarray, np.ndarray], np.ndarray],
    metric: np.ndarray,
    human: np.ndarray,
    metric_direction: int,
    human_direction: int,
    metric_samples: np.ndarray | None,
    human_samples: np.ndarray | None,
    ci: float,
    constant_metric: bool = False,
) -> Correlation:
    """``rows`` (a statistic of each row pair ``[S, n_sys]``) on system scores, with the
    checks every system-level pair statistic shares: two systems at least, no constant side
    (every pair a tie; a constant metric is allowed with ``constant_metric``), bootstrap rows
    from the resampled system scores (the human side fixed without ``human_samples``)."""
    x, y = np.asarray(metric, float), np.asarray(human, float)
    if x.shape != y.shape or x.ndim != 1:
        raise UsageError(f"system score vectors differ: {x.shape} vs {y.shape}")
    x, y = x * metric_direction, y * human_direction
    if x.size < 2:
        return undefined(f"{label} needs at least 2 systems, got {x.size}", int(x.size))
    for side, v in (("metric", x), ("human", y)):
        if np.all(v == v[0]) and not (side == "metric" and constant_metric):
            return undefined(f"constant {side} scores over {x.size} systems: every pair is a tie", int(x.size))
    result = Correlation(float(rows(x[None], y[None])[0]), n=int(x.size), counts={"pairs": x.size * (x.size - 1) // 2})
    if metric_samples is None:
        return result
    xs = np.asarray(metric_samples, float) * metric_direction
    ys = np.broadcast_to(y, xs.shape) if human_samples is None else np.asarray(human_samples, float) * human_direction
    # a resample where a system has no score (none of its judged segments drawn) has no value
    samples = np.where(np.isnan(xs).any(axis=1) | np.isnan(ys).any(axis=1), np.nan, rows(xs, ys))
    low, high = percentile_ci(samples, ci)
    return Correlation(result.value, low, high, result.n, result.p_value, result.counts, None, samples)


def pairwise_accuracy(
    metric: np.ndarray,
    human: np.ndarray,
    *,
    metric_direction: int = 1,
    human_direction: int = 1,
    metric_samples: np.ndarray | None = None,
    human_samples: np.ndarray | None = None,
    ci: float = CI,
) -> Correlation:
    """Pairwise accuracy between system scores ``[n_sys]`` (higher-better after directions);
    ``n`` is the number of systems, as for every system-level statistic. A constant metric ties
    every pair and agrees with the humans where they tie (mt-metrics-eval ``Agreement``): it gets
    their share of tied pairs, which is also its chance level.

    ``metric_samples``/``human_samples`` ``[n_samples, n_sys]`` are bootstrap system scores
    (the human side stays fixed without samples).
    """
    return _system_statistic(
        "pairwise accuracy", _agreement, metric, human, metric_direction, human_direction, metric_samples, human_samples, ci,
        constant_metric=True,
    )  # fmt: skip


def _kendall_c_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """tau-c of each row pair of ``x``, ``y`` ``[S, n]``."""
    i, j = _upper(x.shape[-1])
    sx, sy = np.sign(x[:, i] - x[:, j]), np.sign(y[:, i] - y[:, j])
    t = np.stack([(sx * sy > 0).sum(1), (sx * sy < 0).sum(1), ((sx == 0) & (sy != 0)).sum(1),
                  ((sx != 0) & (sy == 0)).sum(1), ((sx == 0) & (sy == 0)).sum(1)], axis=1)  # fmt: skip
    classes = np.minimum(_distinct(x), _distinct(y))
    return variant_values(t, "kendall_c", np.full(len(x), x.shape[1]), classes)


def _distinct(v: np.ndarray) -> np.ndarray:
    s = np.sort(v, axis=1)
    return 1 + (s[:, 1:] != s[:, :-1]).sum(axis=1)


def system_kendall_c(
    metric: np.ndarray,
    human: np.ndarray,
    *,
    metric_direction: int = 1,
    human_direction: int = 1,
    metric_samples: np.ndarray | None = None,
    human_samples: np.ndarray | None = None,
    ci: float = CI,
) -> Correlation:
    """Kendall tau-c between system scores: ``2 (C - D) / (n^2 (k - 1) / k)``, k the fewer
    distinct values of the two sides; undefined when either side ties everywhere."""
    return _system_statistic(
        "system-level kendall_c", _kendall_c_rows, metric, human, metric_direction, human_direction,
        metric_samples, human_samples, ci,
    )  # fmt: skip


def swap_signs(n_segments: int, n_permutations: int, rng: np.random.Generator) -> np.ndarray:
    """``[n_permutations, n_segments]`` of +1/-1: whether each segment's outputs are swapped."""
    if n_permutations < 1:
        raise UsageError(f"soft pairwise accuracy needs at least 1 permutation, got {n_permutations}")
    return np.where(rng.random((n_permutations, n_segments)) < 0.5, -1.0, 1.0)


def permutation_signs(human: HumanSide, permutations: int, seed: int) -> np.ndarray:
    """The segment swaps of soft pairwise accuracy against ``human``: drawn once from ``seed``
    (a seed of its own, so that the value does not move with the bootstrap seed) and shared by
    every configuration, so that their values are comparable."""
    assert human.seg is not None
    n_segments = human.seg.shape[1]
    return human.shared(("swap signs", permutations, seed), lambda: swap_signs(n_segments, permutations, np.random.default_rng(seed)))


def _pair_differences(seg: np.ndarray) -> np.ndarray:
    """Per system pair (i < j), per segment ``s_i - s_j`` ``[n_pairs, n_seg]``, 0 where either is NaN."""
    i, j = _upper(seg.shape[0])
    d = seg[i] - seg[j]
    return np.where(np.isnan(d), 0.0, d)


def permutation_p_values(seg: np.ndarray, signs: np.ndarray, both: bool = False) -> np.ndarray:
    """One-sided p-values ``[n_pairs]`` that system i beats j (i < j): the share of
    permutations whose summed swapped difference is at least the observed sum (segments
    judged for both systems only). ``both``: ``[2, n_pairs]``, also the p-values that j beats
    i, from the same swaps (what the first row would be with the two systems exchanged)."""
    d = _pair_differences(seg)
    observed = d.sum(axis=1)
    null = signs @ d.T  # [n_perm, n_pairs]
    scale = np.abs(d).sum(axis=1)
    beats = (null >= observed - 1e-9 * scale).mean(axis=0)
    return np.stack([beats, (null <= observed + 1e-9 * scale).mean(axis=0)]) if both else beats


def _normal_p_values(d: np.ndarray, weights: np.ndarray, squared: np.ndarray | None = None) -> np.ndarray:
    """Normal approximation of the permutation p-values for resampled segments: the
    swapped sum has mean 0 and variance ``sum w^2 d^2``. ``[n_samples, n_pairs]``.
    ``squared``: ``weights**2``, if the caller has it. The upper tail is ``ndtr(-z)``, which is
    how ``scipy.stats.norm.sf`` computes it (the same bits), without its argument handling. The
    ratio does not depend on the unit of ``d``: each pair's differences are brought near 1 first,
    so that squares of 1e300 do not overflow and those of 1e-300 do not vanish."""
    d = power_of_two_scaled(d, axis=1)
    observed = weights @ d.T
    spread = np.sqrt((weights**2 if squared is None else squared) @ (d**2).T)
    import scipy.special  # here, not at the top

    with np.errstate(invalid="ignore", divide="ignore"):
        p = scipy.special.ndtr(-(observed / spread))
    return np.where(spread > 0, p, 1.0)


def _squared(cache: dict, weights: np.ndarray) -> np.ndarray:
    """``weights**2``, kept in ``cache`` for the next configuration resampled with the same array."""
    found = cache.get("squared weights")
    if found is None or found[0] is not weights:
        found = cache["squared weights"] = (weights, weights**2)
    return found[1]


def soft_pairwise_accuracy(
    metric_seg: np.ndarray,
    human_seg: np.ndarray,
    *,
    metric_direction: int = 1,
    human_direction: int = 1,
    n_permutations: int = PERMUTATIONS,
    rng: np.random.Generator | None = None,
    signs: np.ndarray | None = None,
    weights: np.ndarray | None = None,
    ci: float = CI,
    cache: dict | None = None,
) -> Correlation:
    """Soft pairwise accuracy from segment scores ``[n_sys, n_seg]`` (NaN = unjudged).

    ``signs`` (from :func:`swap_signs`) or ``rng`` draws the permutations; passing the same
    ``signs`` to every configuration makes their values comparable. ``weights``
    (``[n_samples, n_seg]``) give bootstrap samples, whose p-values use the normal
    approximation of the permutation distribution (a fresh Monte Carlo per resample would
    cost a permutation test per sample).
    """
    x = np.asarray(metric_seg, float) * metric_direction
    y = np.asarray(human_seg, float) * human_direction
    if x.shape != y.shape or x.ndim != 2:
        raise UsageError(f"metric and human matrices differ in shape: {x.shape} vs {y.shape}")
    if x.shape[0] < 2:
        return undefined(f"soft pairwise accuracy needs at least 2 systems, got {x.shape[0]}", int(x.shape[0]))
    x = np.where(np.isnan(y), np.nan, x)
    for side, v in (("metric", x), ("human", y)):
        if not np.any(_pair_differences(v)):
            return undefined(f"constant {side} scores: every system has the same segment scores", int(x.shape[0]))
    if signs is None:
        signs = swap_signs(x.shape[1], n_permutations, rng if rng is not None else np.random.default_rng(0))
    cache = {} if cache is None else cache  # human-side p-values, shared by every configuration
    if "p" not in cache:
        cache["p"] = permutation_p_values(y, signs)
    p_human, p_metric = cache["p"], permutation_p_values(x, signs)
    value = 1.0 - float(np.mean(np.abs(p_human - p_metric)))
    result = Correlation(value, n=int(x.shape[0]), counts={"pairs": len(p_human), "permutations": len(signs)})
    samples = None
    if weights is not None:
        dy, dx = _pair_differences(y), _pair_differences(x)
        w = np.asarray(weights, float)
        ones = np.ones((1, x.shape[1]))
        squared = _squared(cache, w)
        if "normal" not in cache:
            cache["normal"] = _normal_p_values(dy, w, squared), _normal_p_values(dy, ones)
        human_w, human_1 = cache["normal"]
        resampled = 1.0 - np.abs(human_w - _normal_p_values(dx, w, squared)).mean(axis=1)
        full = 1.0 - float(np.abs(human_1 - _normal_p_values(dx, ones)).mean())
        # re-centred on the Monte Carlo value: the resamples carry the sampling spread of
        # the normal approximation, not its offset from the permutation estimate
        samples = np.clip(resampled + (value - full), 0.0, 1.0)  # re-centring keeps them accuracies
        low, high = percentile_ci(samples, ci)
        result = Correlation(value, low, high, result.n, math.nan, result.counts, None, samples)
    return result


__all__ = ["pairwise_accuracy", "permutation_p_values", "permutation_signs", "soft_pairwise_accuracy", "swap_signs", "system_kendall_c"]
