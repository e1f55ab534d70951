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
from metaeval.stats.resampling import drawn, pair_weights, percentile_ci
from metaeval.stats.result import Correlation, undefined
from metaeval.stats.tallies import variant_values
from metaeval.stats.weighted import power_of_two_scaled


def _upper(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(n, 1)


def _agreement(metric: np.ndarray, human: np.ndarray, draws: np.ndarray | None = None) -> np.ndarray:
    """Pairwise accuracy of each row of ``metric``/``human`` ``[S, n_sys]``; with ``draws``
    (systems resampled), over the pairs of drawn systems, two copies of one system not a pair."""
    i, j = _upper(metric.shape[-1])
    same = np.sign(metric[..., i] - metric[..., j]) == np.sign(human[..., i] - human[..., j])
    if draws is None:
        return same.mean(axis=-1)
    return _pair_mean(same.astype(float), draws)


def _pair_mean(values: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """Mean of per-pair ``values`` ``[S, n_pairs]`` over the pairs of systems drawn in each
    resample (NaN where every draw is one system)."""
    weights = pair_weights(draws, draws.shape[1])
    total = weights.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, (weights * values).sum(axis=1) / total, np.nan)


def _system_statistic(
    label: str,
    rows: Callable[[np.ndarray, np.ndarray, np.ndarray | None], np.ndarray],
    metric: np.ndarray,
    human: np.ndarray,
    metric_direction: int,
    human_direction: int,
    metric_samples: np.ndarray | None,
    human_samples: np.ndarray | None,
    ci: float,
    draws: np.ndarray | None = None,
    constant_metric: bool = False,
) -> Correlation:
    """``rows`` (a statistic of each row pair ``[S, n_sys]``, given the systems each row
    draws or None) on system scores, with the checks every system-level pair statistic shares:
    two systems at least, no constant side (every pair a tie; a constant metric is allowed with
    ``constant_metric``), bootstrap rows from the resampled system scores (the human side fixed
    without ``human_samples``) and ``draws``."""
    x, y = np.asarray(metric, float), np.asarray(human, float)
    if x.shape != y.shape or x.ndim != 1:
        raise UsageError(f"system score vectors differ: {x.shape} vs {y.shape}")
    x, y = x * metric_direction, y * human_direction
    if x.size < 2:
        return undefined(f"{label} needs at least 2 systems, got {x.size}", int(x.size))
    for side, v in (("metric", x), ("human", y)):
        if np.all(v == v[0]) and not (side == "metric" and constant_metric):
            return undefined(f"constant {side} scores over {x.size} systems: every pair is a tie", int(x.size))
    result = Correlation(float(rows(x[None], y[None], None)[0]), n=int(x.size), counts={"pairs": x.size * (x.size - 1) // 2})
    if metric_samples is None:
        return result
    xs = np.asarray(metric_samples, float) * metric_direction
    ys = np.broadcast_to(y, xs.shape) if human_samples is None else np.asarray(human_samples, float) * human_direction
    # a resample where a (drawn) system has no score (none of its judged segments drawn) has no value
    missing = np.isnan(xs) | np.isnan(ys)
    if draws is not None:
        missing = np.take_along_axis(missing, draws, axis=1)
    samples = np.where(missing.any(axis=1), np.nan, rows(xs, ys, draws))
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
    draws: np.ndarray | None = None,
) -> Correlation:
    """Pairwise accuracy between system scores ``[n_sys]`` (higher-better after directions);
    ``n`` is the number of systems, as for every system-level statistic. A constant metric ties
    every pair and agrees with the humans where they tie (mt-metrics-eval ``Agreement``): it gets
    their share of tied pairs, which is also its chance level.

    ``metric_samples``/``human_samples`` ``[n_samples, n_sys]`` are bootstrap system scores
    (the human side stays fixed without samples); with ``draws`` (systems resampled) a sample
    is the accuracy over the pairs of drawn systems, each pair of two systems counting as
    often as its two systems were drawn together (``c_i c_j`` times) and two copies of one
    system never forming a pair.
    """
    return _system_statistic(
        "pairwise accuracy", _agreement, metric, human, metric_direction, human_direction, metric_samples, human_samples, ci,
        draws, constant_metric=True,
    )  # fmt: skip


def _kendall_c_rows(x: np.ndarray, y: np.ndarray, draws: np.ndarray | None = None) -> np.ndarray:
    """tau-c of each row pair of ``x``, ``y`` ``[S, n]`` (over the drawn systems with ``draws``)."""
    if draws is not None:
        x, y = drawn(x, draws), drawn(y, draws)
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
    draws: np.ndarray | None = None,
) -> Correlation:
    """Kendall tau-c between system scores: ``2 (C - D) / (n^2 (k - 1) / k)``, k the fewer
    distinct values of the two sides; undefined when either side ties everywhere. With
    ``draws`` a sample is tau-c over the drawn systems, copies included."""
    return _system_statistic(
        "system-level kendall_c", _kendall_c_rows, metric, human, metric_direction, human_direction,
        metric_samples, human_samples, ci, draws,
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
    draws: np.ndarray | None = None,
) -> Correlation:
    """Soft pairwise accuracy from segment scores ``[n_sys, n_seg]`` (NaN = unjudged).

    ``signs`` (from :func:`swap_signs`) or ``rng`` draws the permutations; passing the same
    ``signs`` to every configuration makes their values comparable. ``weights``
    (``[n_samples, n_seg]``) give bootstrap samples, whose p-values use the normal
    approximation of the permutation distribution (a fresh Monte Carlo per resample would
    cost a permutation test per sample). ``draws`` (``[n_samples, n_sys]``, systems resampled)
    give samples averaged over the pairs of drawn systems (as :func:`pairwise_accuracy`):
    each pair's full-sample value without ``weights``, its resampled one with them (segments
    and systems resampled), re-centred pair by pair.
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
    if draws is not None:
        samples = _pair_mean(_resampled_pair_values(x, y, p_human, p_metric, weights, cache, len(draws)), draws)
        low, high = percentile_ci(samples, ci)
        return Correlation(value, low, high, result.n, math.nan, result.counts, None, samples)
    if weights is not None:
        gaps, full_gaps = _normal_gaps(x, y, weights, cache)
        resampled = 1.0 - gaps.mean(axis=1)
        full = 1.0 - float(full_gaps.mean())
        # re-centred on the Monte Carlo value: the resamples carry the sampling spread of
        # the normal approximation, not its offset from the permutation estimate
        samples = np.clip(resampled + (value - full), 0.0, 1.0)  # re-centring keeps them accuracies
        low, high = percentile_ci(samples, ci)
        result = Correlation(value, low, high, result.n, math.nan, result.counts, None, samples)
    return result


def _resampled_pair_values(
    x: np.ndarray, y: np.ndarray, p_human: np.ndarray, p_metric: np.ndarray, weights: np.ndarray | None, cache: dict,
    n_samples: int,
) -> np.ndarray:
    """``1 - |p_human - p_metric|`` of each system pair in each resample ``[S, n_pairs]``: the
    permutation value without ``weights``; with them, the normal approximation on the resampled
    segments re-centred on each pair's permutation value."""
    values = 1.0 - np.abs(p_human - p_metric)
    if weights is None:
        return np.broadcast_to(values, (n_samples, len(values)))
    gaps, full_gaps = _normal_gaps(x, y, weights, cache)
    return (1.0 - gaps) + (values - (1.0 - full_gaps[0]))


def _normal_gaps(x: np.ndarray, y: np.ndarray, weights: np.ndarray, cache: dict) -> tuple[np.ndarray, np.ndarray]:
    """``|p_human - p_metric|`` of each system pair by the normal approximation, on each segment
    resample ``[S, n_pairs]`` and on the full sample ``[1, n_pairs]`` (the human side kept in
    ``cache`` for every configuration)."""
    dy, dx = _pair_differences(y), _pair_differences(x)
    w = np.asarray(weights, float)
    ones = np.ones((1, x.shape[1]))
    squared = _squared(cache, w)
    if "normal" not in cache:
        cache["normal"] = _normal_p_values(dy, w, squared), _normal_p_values(dy, ones)
    human_w, human_1 = cache["normal"]
    return np.abs(human_w - _normal_p_values(dx, w, squared)), np.abs(human_1 - _normal_p_values(dx, ones))


__all__ = ["pairwise_accuracy", "permutation_p_values", "permutation_signs", "soft_pairwise_accuracy", "swap_signs", "system_kendall_c"]
