"""Meta-evaluation statistics: agreement between metric scores and human judgments.

Pure statistics over numpy arrays (DESIGN.md, "Meta-evaluation: exact definitions"):

- :func:`pair_counts` / :func:`consistency`: segment-level pairwise consistency with human
  ties excluded (Li, Zong & Ng 2011), with a named metric-tie policy, and the Kendall-like
  ``(C - D) / (C + D)`` of WMT'10-'20 / mt-metrics-eval ``KendallLike``.
- :func:`segment_correlation`: Pearson, Spearman or Kendall tau-b against a human matrix
  ``[n_sys, n_seg]`` (NaN = unjudged, dropped with the matching metric values), grouped
  ``none`` / ``item`` / ``sys`` as in mt-metrics-eval.
- :func:`system_correlation`: the same statistics between system-level scores.
- Bootstrap over segments: every statistic takes ``weights`` ``[n_samples, n_seg]``, the
  number of times each segment is drawn in each sample (:func:`resample_weights` of a shared
  :func:`bootstrap_indices` matrix), and computes every sample in closed form from
  per-segment sums, so a resample costs a weighted sum rather than a recomputation.
- :func:`paired_bootstrap_test`, :func:`paired_permutation_test`,
  :func:`significance_clusters`: comparing configurations measured on the same data.

An undefined statistic (constant vector, too few items, one system, no comparable pair) is
NaN with a reason, never 0 and never an exception.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass, field
from typing import Callable, Mapping, TypeVar

import numpy as np

from metaeval.errors import UsageError

TIE_POLICIES = ("exclude", "discordant", "half")
GROUPINGS = ("none", "item", "sys")
CORRELATIONS = ("pearson", "spearman", "kendall")
_T = TypeVar("_T")
#: differences of statistics (all within [-1, 1]) at most this far from 0 are rounding, not evidence
ROUNDING = 1e-12
PAIRWISE = ("consistency", "kendall_like")
#: Fewest items for which each correlation is defined.
MIN_ITEMS = {"pearson": 2, "spearman": 2, "kendall": 2}
DEFAULT_CI = 0.95
#: Relative variance below which a vector counts as constant.
_CONSTANT_TOL = 1e-12
#: Upper bound on the elements of one broadcast block in the Kendall pair matrices.
_CHUNK_ELEMENTS = 1 << 22


@dataclass(frozen=True, eq=False)
class Correlation:
    """One meta-evaluation statistic with its uncertainty.

    Attributes:
        value: the point estimate; NaN when undefined.
        ci_low, ci_high: percentile bootstrap interval (NaN without bootstrap).
        n: items used: pairs ``C + D`` (pairwise), (system, segment) cells (``none``),
            segments or systems averaged over (``item``/``sys``), systems (system level).
        p_value: scipy's p-value of the point estimate (NaN where it has none).
        counts: pair counts for pairwise statistics, or ``{"skipped": k}`` for groupings
            that skip undefined groups.
        undefined_reason: why ``value`` is NaN (None when defined).
        samples: the bootstrap values ``[n_samples]`` (NaN for undefined samples).
        epsilon: the metric tie threshold of tie-calibrated statistics (NaN elsewhere).
    """

    value: float
    ci_low: float = math.nan
    ci_high: float = math.nan
    n: int = 0
    p_value: float = math.nan
    counts: Mapping[str, float] | None = None
    undefined_reason: str | None = None
    samples: np.ndarray | None = field(default=None, repr=False)
    epsilon: float = math.nan

    @property
    def defined(self) -> bool:
        return not math.isnan(self.value)


def undefined(reason: str, n: int = 0, counts: Mapping[str, float] | None = None) -> Correlation:
    """An undefined statistic: NaN value with ``reason``."""
    return Correlation(math.nan, n=n, counts=counts, undefined_reason=reason)


# --------------------------------------------------------------------------- resampling


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


def percentile_ci(samples: np.ndarray, level: float = DEFAULT_CI) -> tuple[float, float]:
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


def _with_samples(result: Correlation, samples: np.ndarray | None, level: float) -> Correlation:
    if samples is None:
        return result
    low, high = percentile_ci(samples, level) if result.defined else (math.nan, math.nan)
    return dataclasses.replace(result, ci_low=low, ci_high=high, samples=samples)


# --------------------------------------------------------------------------- pairwise consistency


@dataclass(frozen=True, eq=False)
class PairCounts:
    """Pair counts per segment (arrays ``[n_seg]``), before any metric-tie policy.

    ``concordant``/``discordant`` exclude metric ties; ``metric_ties`` are compared pairs the
    metric scores equal; ``human_ties`` are pairs skipped because the human judgments tie
    (or differ by at most the threshold).
    """

    concordant: np.ndarray
    discordant: np.ndarray
    metric_ties: np.ndarray
    human_ties: np.ndarray
    #: Human differences at most this count as ties (0: only equal judgments).
    threshold: float = 0.0

    def totals(self, weights: np.ndarray | None = None) -> dict[str, np.ndarray | float]:
        """Summed counts; with ``weights [n_samples, n_seg]`` one total per sample."""
        names = ("concordant", "discordant", "metric_ties", "human_ties")
        if weights is None:
            return {k: float(getattr(self, k).sum()) for k in names}
        sums = weights @ np.stack([getattr(self, k) for k in names], axis=1)
        return {k: sums[:, i] for i, k in enumerate(names)}


def _check_policy(tie_policy: str) -> None:
    if tie_policy not in TIE_POLICIES:
        raise UsageError(f"unknown tie policy {tie_policy!r}; known: {', '.join(TIE_POLICIES)}")


def _check_direction(name: str, direction: int) -> None:
    if direction not in (1, -1):
        raise UsageError(f"{name} must be +1 or -1, got {direction!r}")


def pair_counts(
    metric: np.ndarray,
    human: np.ndarray,
    *,
    metric_direction: int = 1,
    human_direction: int = 1,
    threshold: float | None = None,
    group_segments: np.ndarray | None = None,
) -> PairCounts:
    """Concordant/discordant/tied system pairs per segment (Li et al. 2011).

    Args:
        metric: array of shape ``(n_sys, n_seg)``; NaN marks a missing score.
        human: array of shape ``(n_sys, n_groups)``, one column per comparison group (a
            segment, or a (segment, judge) pair); NaN = system not judged in that group.
        metric_direction, human_direction: +1 when higher is better, -1 when lower is
            better (ranks); scores are multiplied by their direction before comparing.
        threshold: pairs with ``|human difference| <= threshold`` count as human ties
            (WMT daRR: 25 raw DA points). None: only exact ties.
        group_segments: segment column of each group, shape ``(n_groups,)``; None means
            groups are the segments themselves.

    Every pair of systems judged in a group counts once; counts are summed per segment.
    """
    _check_direction("metric_direction", metric_direction)
    _check_direction("human_direction", human_direction)
    if threshold is not None and not (threshold >= 0):
        raise UsageError(f"threshold must be a non-negative number, got {threshold!r}")
    metric = np.asarray(metric, dtype=float) * metric_direction
    human = np.asarray(human, dtype=float) * human_direction
    n_sys, n_seg = metric.shape
    if group_segments is None:
        group_segments = np.arange(human.shape[1])
    group_segments = np.asarray(group_segments, dtype=int)
    if human.shape[0] != n_sys or group_segments.shape != (human.shape[1],):
        raise UsageError(
            f"shape mismatch: metric {metric.shape}, human {human.shape}, group_segments {group_segments.shape}"
        )
    h = human.T  # [groups, sys]
    m = metric[:, group_segments].T
    upper = np.triu(np.ones((n_sys, n_sys), dtype=bool), k=1)
    dh = h[:, :, None] - h[:, None, :]
    dm = m[:, :, None] - m[:, None, :]
    valid = upper & ~np.isnan(dh) & ~np.isnan(dm)
    with np.errstate(invalid="ignore"):
        tied_h = valid & (np.abs(dh) <= (threshold or 0.0))
        compared = valid & ~tied_h
        agree = np.sign(dh) * np.sign(dm)
    per_group = {
        "concordant": (compared & (agree > 0)).sum(axis=(1, 2)),
        "discordant": (compared & (agree < 0)).sum(axis=(1, 2)),
        "metric_ties": (compared & (dm == 0)).sum(axis=(1, 2)),
        "human_ties": tied_h.sum(axis=(1, 2)),
    }
    per_seg = {k: np.bincount(group_segments, weights=v, minlength=n_seg) for k, v in per_group.items()}
    return PairCounts(**per_seg, threshold=float(threshold or 0.0))


def apply_tie_policy(
    concordant: np.ndarray | float, discordant: np.ndarray | float, metric_ties: np.ndarray | float, tie_policy: str
) -> tuple[np.ndarray | float, np.ndarray | float]:
    """``(C, D)`` after the metric-tie policy: ``exclude`` drops ties, ``discordant`` adds
    them to D (WMT'10-'20, mt-metrics-eval ``KendallLike``), ``half`` adds half to each."""
    _check_policy(tie_policy)
    if tie_policy == "discordant":
        return concordant, discordant + metric_ties
    if tie_policy == "half":
        return concordant + 0.5 * metric_ties, discordant + 0.5 * metric_ties
    return concordant, discordant


def _pairwise_value(c: np.ndarray | float, d: np.ndarray | float, statistic: str) -> np.ndarray:
    c, d = np.asarray(c, dtype=float), np.asarray(d, dtype=float)
    total = c + d
    with np.errstate(invalid="ignore", divide="ignore"):
        value = c / total if statistic == "consistency" else (c - d) / total
    return np.where(total > 0, value, np.nan)


def consistency(
    counts: PairCounts,
    *,
    statistic: str = "consistency",
    tie_policy: str = "exclude",
    weights: np.ndarray | None = None,
    ci: float = DEFAULT_CI,
) -> Correlation:
    """Pairwise consistency ``C / (C + D)`` or Kendall-like ``(C - D) / (C + D)``.

    ``C`` and ``D`` are taken after ``tie_policy`` (:func:`apply_tie_policy`); ``n = C + D``.
    With ``weights`` (``[n_samples, n_seg]``), bootstrap samples are the weighted sums of the
    per-segment counts.
    """
    if statistic not in PAIRWISE:
        raise UsageError(f"unknown pairwise statistic {statistic!r}; known: {', '.join(PAIRWISE)}")
    totals = {k: float(v) for k, v in counts.totals().items()}
    c, d = apply_tie_policy(totals["concordant"], totals["discordant"], totals["metric_ties"], tie_policy)
    summary = dict(totals)
    n = c + d
    if n <= 0:
        if totals["human_ties"] == 0 and totals["metric_ties"] == 0:
            reason = "no pair of systems judged on a common segment"
        elif totals["metric_ties"] == 0 and counts.threshold > 0:
            reason = (
                f"the threshold {counts.threshold:g} skipped all {int(totals['human_ties'])} judged pairs "
                "(their human scores differ by at most that)"
            )
        elif totals["metric_ties"] == 0:
            reason = f"all {int(totals['human_ties'])} judged pairs are tied by the human judgments"
        else:
            reason = "every pair is tied by the human judgments or by the metric (tie policy exclude)"
        return _with_samples(undefined(reason, 0, summary), None, ci)
    result = Correlation(float(_pairwise_value(c, d, statistic)), n=int(round(float(n))), counts=summary)
    samples = None
    if weights is not None:
        t = counts.totals(weights)
        cs, ds = apply_tie_policy(t["concordant"], t["discordant"], t["metric_ties"], tie_policy)
        samples = _pairwise_value(cs, ds, statistic)
    return _with_samples(result, samples, ci)


# --------------------------------------------------------------------------- correlations


def _check_method(method: str) -> None:
    if method not in CORRELATIONS:
        raise UsageError(f"unknown correlation {method!r}; known: {', '.join(CORRELATIONS)}")


def _constant(v: np.ndarray) -> bool:
    scale = max(float(np.max(np.abs(v))), 1.0)
    return float(np.var(v)) <= _CONSTANT_TOL * scale * scale


def _unit_scaled(v: np.ndarray) -> np.ndarray:
    """``v`` divided by its largest magnitude (unchanged if all zero)."""
    top = float(np.max(np.abs(v))) if v.size else 0.0
    return v / top if top > 0 else v


def correlate_vectors(x: np.ndarray, y: np.ndarray, method: str) -> Correlation:
    """Correlation of two vectors through scipy.stats (``pearsonr``, ``spearmanr``,
    ``kendalltau(variant='b')``); pairs with a NaN on either side are dropped first."""
    _check_method(method)
    x, y = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    if x.shape != y.shape:
        raise UsageError(f"vectors differ in length: [{x.size}, {y.size}]")
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    n = int(x.size)
    if n < MIN_ITEMS[method]:
        return undefined(f"{method} needs at least {MIN_ITEMS[method]} items, got {n}", n)
    for name, v in (("metric", x), ("human", y)):
        if not np.isfinite(v).all():
            return undefined(f"non-finite {name} scores (infinite values) among {n} items", n)
    # Rank statistics see ranks only, so they cannot depend on the magnitude of the scores;
    # Pearson is scale-free, so dividing by the largest magnitude avoids overflow (1e308).
    import scipy.stats  # here, not at the top: 0.8 s to import, unused by a run whose correlations are stored

    if method == "pearson":
        x, y = _unit_scaled(x), _unit_scaled(y)
    else:
        x, y = scipy.stats.rankdata(x), scipy.stats.rankdata(y)
    for name, v in (("metric", x), ("human", y)):
        if _constant(v):
            return undefined(f"constant {name} scores over {n} items", n)
    if method == "pearson":
        res = scipy.stats.pearsonr(x, y)
        value, p = float(res.statistic), float(res.pvalue)
    elif method == "spearman":
        res = scipy.stats.spearmanr(x, y)
        value, p = float(res.statistic), float(res.pvalue)
    else:
        res = scipy.stats.kendalltau(x, y, variant="b")
        value, p = float(res.statistic), float(res.pvalue)
    if math.isnan(value):
        return undefined(f"{method} undefined on these {n} items", n)
    return Correlation(value, n=n, p_value=p)


def _center(v: np.ndarray) -> np.ndarray:
    return v - np.nanmean(v) if np.any(~np.isnan(v)) else v


def _pearson_from_sums(n, sx, sy, sxx, syy, sxy) -> np.ndarray:  # noqa: ANN001
    vx = n * sxx - sx * sx
    vy = n * syy - sy * sy
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (n * sxy - sx * sy) / np.sqrt(vx * vy)
        ok = (n >= 2) & (vx > _CONSTANT_TOL * n * sxx) & (vy > _CONSTANT_TOL * n * syy)
    return np.where(ok, np.clip(r, -1.0, 1.0), np.nan)


def weighted_pearson(x: np.ndarray, y: np.ndarray, weights: np.ndarray, *, cache: dict | None = None) -> np.ndarray:
    """Pearson r for each weighting of blocks (segments).

    ``x``, ``y``: shape ``(n_blocks, m)`` (NaN = missing item, dropped with its pair);
    ``weights``: ``(n_samples, n_blocks)``. Sample ``b`` is the Pearson r of the data with
    block ``k`` repeated ``weights[b, k]`` times, from per-block sums. ``cache`` is
    accepted for symmetry with the rank correlations and not needed.
    """
    x, y = _center(np.asarray(x, float)), _center(np.asarray(y, float))
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = np.where(keep, x, 0.0), np.where(keep, y, 0.0)
    sums = np.stack([keep.sum(1), x.sum(1), y.sum(1), (x * x).sum(1), (y * y).sum(1), (x * y).sum(1)], axis=1)
    return _pearson_from_sums(*(weights @ sums).T)


def _tie_groups(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorting order of ``v`` and the end (exclusive, in that order) of each run of equal values."""
    order = np.argsort(v, kind="stable")
    sv = v[order]
    return order, np.r_[np.flatnonzero(sv[1:] != sv[:-1]) + 1, len(v)]


def _group_sums(values: np.ndarray, order: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative and plain sums of ``values`` (``[n_items, n_samples]``) over each tie group,
    taken in ``order`` (one cumulative sum; cheaper than a reduction per group)."""
    cumulative = np.cumsum(values[order], axis=0)[ends - 1]
    return cumulative, np.diff(cumulative, axis=0, prepend=0.0)


def _midrank_groups(w: np.ndarray, order: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per tie group: its total weight and its mid-rank in the multiset where item ``i``
    occurs ``w[i, b]`` times (``w``: ``[n_items, n_samples]``), for every sample ``b``."""
    cumulative, group_weight = _group_sums(w, order, ends)
    return group_weight, cumulative - (group_weight - 1.0) / 2.0


#: Largest human-side intermediate (bytes) kept in a cache between configurations.
_CACHE_BYTES = 1 << 28


def _cached(cache: dict | None, key: tuple, nbytes: int, build: Callable[[], _T]) -> _T:
    """``build()``, kept in ``cache[key]`` when a cache is given and the value is small enough."""
    if cache is None or nbytes > _CACHE_BYTES:
        return build()
    if key not in cache:
        cache[key] = build()
    return cache[key]


def _usable(cache: dict | None, x: np.ndarray, y: np.ndarray) -> dict | None:
    """The cache, if the items kept depend on ``y`` alone (metric NaN only where human NaN)."""
    if cache is None or np.any(np.isnan(x) & ~np.isnan(y)):
        return None
    return cache


def weighted_spearman(
    x: np.ndarray, y: np.ndarray, weights: np.ndarray, *, cache: dict | None = None
) -> np.ndarray:
    """Spearman rho for each weighting of blocks: the Pearson r of the mid-ranks the items
    take in the resampled multiset (ties share their average rank, as scipy's ``spearmanr``).

    ``cache``: a dict owned by the caller for one ``(y, weights)`` pair; the human-side
    ranks are kept there and reused for the next ``x``.
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    cache = _usable(cache, x, y)
    keep = ~(np.isnan(x) | np.isnan(y))
    x_order, x_ends = _tie_groups(x[keep])
    weights_t = np.ascontiguousarray(np.asarray(weights, float).T)[np.nonzero(keep)[0]]  # [items, samples]
    out = np.empty(weights_t.shape[1])
    # Blocks of samples keep the temporaries small enough to be reused, not re-mapped.
    step = max(1, _CHUNK_ELEMENTS // 8 // max(1, weights_t.shape[0]))
    for lo in range(0, weights_t.shape[1], step):
        w = np.ascontiguousarray(weights_t[:, lo : lo + step])
        n = w.sum(0)
        center = (n + 1.0) / 2.0

        def human_side() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            y_order, y_ends = _tie_groups(y[keep])
            group_weight, mid = _midrank_groups(w, y_order, y_ends)
            mid -= center
            ranks = np.empty_like(w)
            ranks[y_order] = np.repeat(mid, np.diff(y_ends, prepend=0), axis=0)
            return w * ranks, (group_weight * mid).sum(0), (group_weight * mid * mid).sum(0)

        wy, sy, syy = _cached(cache, ("spearman", y.shape, lo), w.nbytes, human_side)
        # x ranks are constant within a tie group: sums over items become sums over groups.
        group_weight, mid = _midrank_groups(w, x_order, x_ends)
        mid -= center
        group_wy = _group_sums(wy, x_order, x_ends)[1]
        sums = (n, (group_weight * mid).sum(0), sy, (group_weight * mid * mid).sum(0), syy, (mid * group_wy).sum(0))
        out[lo : lo + step] = _pearson_from_sums(*sums)
    return out


def _sign_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``sgn(a - b)`` broadcast, as int8, 0 where either side is NaN."""
    return (a > b).view(np.int8) - (a < b).view(np.int8)


def _block_signs(v: np.ndarray) -> list[np.ndarray]:
    """``sgn(v[a, i] - v[b, j])`` as int8 ``[a, i, b, j]``, in chunks of blocks ``a``."""
    n_blocks, m = v.shape
    step = max(1, _CHUNK_ELEMENTS // max(1, m * m * n_blocks))
    return [_sign_matrix(v[lo : lo + step, :, None, None], v[None, None, :, :]) for lo in range(0, n_blocks, step)]


def _block_pair_sums(x: np.ndarray, y_signs: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """For blocks ``a, b``: ``P[a, b] = sum sgn(xi - xj) sgn(yi - yj)`` and the number of
    ordered pairs not tied in x (``Ax``), over items i in a, j in b."""
    n_blocks = x.shape[0]
    p = np.empty((n_blocks, n_blocks))
    ax = np.empty_like(p)
    lo = 0
    for x_signs, sy in zip(_block_signs(x), y_signs):
        hi = lo + sy.shape[0]
        p[lo:hi] = (x_signs * sy).sum(axis=(1, 3), dtype=np.int64)
        ax[lo:hi] = (x_signs != 0).sum(axis=(1, 3))
        lo = hi
    return p, ax


def _quad(weights: np.ndarray, mat: np.ndarray) -> np.ndarray:
    """``w' M w`` for every row ``w`` of ``weights``."""
    return np.einsum("bi,bi->b", weights @ mat, weights)


def weighted_kendall(
    x: np.ndarray, y: np.ndarray, weights: np.ndarray, *, cache: dict | None = None
) -> np.ndarray:
    """Kendall tau-b for each weighting of blocks, from block-pair matrices:
    ``tau_b = w'Pw / sqrt(w'Ax w * w'Ay w)`` (:func:`_block_pair_sums`); copies of one
    item tie in both x and y, so they add to neither numerator nor denominator.

    ``cache``: as in :func:`weighted_spearman` (keeps the human-side signs and ``w'Ay w``).
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    cache = _usable(cache, x, y)
    missing = np.isnan(x) | np.isnan(y)
    x, y = np.where(missing, np.nan, x), np.where(missing, np.nan, y)

    def human_side() -> tuple[list[np.ndarray], np.ndarray]:
        signs = _block_signs(y)
        ay = np.concatenate([(sy != 0).sum(axis=(1, 3)) for sy in signs]).astype(float)
        return signs, _quad(weights, ay)

    y_signs, dy = _cached(cache, ("kendall", y.shape), y.size * y.size, human_side)
    p, ax = _block_pair_sums(x, y_signs)
    num, dx = _quad(weights, p), _quad(weights, ax)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = num / np.sqrt(dx * dy)
    return np.where((dx > 0) & (dy > 0), np.clip(tau, -1.0, 1.0), np.nan)


WEIGHTED = {"pearson": weighted_pearson, "spearman": weighted_spearman, "kendall": weighted_kendall}


def segment_correlation(
    metric: np.ndarray,
    human: np.ndarray,
    method: str = "pearson",
    grouping: str = "none",
    *,
    metric_direction: int = 1,
    human_direction: int = 1,
    weights: np.ndarray | None = None,
    ci: float = DEFAULT_CI,
    cache: dict | None = None,
) -> Correlation:
    """Segment-level correlation between ``metric`` and ``human``, both ``(n_sys, n_seg)``.

    NaN in ``human`` marks an unjudged cell; it is dropped with the matching metric value
    (mt-metrics-eval). ``grouping``:

    - ``none``: one correlation over all (system, segment) cells;
    - ``item``: a correlation per segment across systems, averaged over the segments where
      it is defined (the others are skipped and counted in ``counts["skipped"]``);
    - ``sys``: a correlation per system across segments, averaged likewise.

    ``weights`` (``[n_samples, n_seg]``) gives the bootstrap samples of segments.
    ``cache``: a dict the caller keeps for one ``(human, weights)`` pair, so that the
    human-side work of rank correlations is done once for many metrics.
    """
    _check_method(method)
    if grouping not in GROUPINGS:
        raise UsageError(f"unknown grouping {grouping!r}; known: {', '.join(GROUPINGS)}")
    _check_direction("metric_direction", metric_direction)
    _check_direction("human_direction", human_direction)
    x = np.asarray(metric, float) * metric_direction
    y = np.asarray(human, float) * human_direction
    if x.shape != y.shape:
        raise UsageError(f"metric and human matrices differ in shape: {x.shape} vs {y.shape}")
    if grouping == "none":
        result = correlate_vectors(x, y, method)
        samples = None
        if weights is not None and result.defined:
            part = None if cache is None else cache.setdefault(("none", human_direction), {})
            samples = WEIGHTED[method](x.T, y.T, weights, cache=part)
        return _with_samples(result, samples, ci)
    groups_x = x.T if grouping == "item" else x
    groups_y = y.T if grouping == "item" else y
    parts = [correlate_vectors(gx, gy, method) for gx, gy in zip(groups_x, groups_y)]
    values = np.array([p.value for p in parts])
    defined = ~np.isnan(values)
    skipped = int((~defined).sum())
    unit = "segment" if grouping == "item" else "system"
    if not defined.any():
        return undefined(f"{method} undefined for every {unit} ({len(parts)} {unit}s)", 0, {"skipped": skipped})
    result = Correlation(float(values[defined].mean()), n=int(defined.sum()), counts={"skipped": skipped})
    samples = None
    if weights is not None:
        if grouping == "item":
            w = weights[:, defined]
            with np.errstate(invalid="ignore", divide="ignore"):
                samples = (w @ values[defined]) / w.sum(1)
        else:
            per_sys = np.stack([
                WEIGHTED[method](
                    groups_x[i][:, None], groups_y[i][:, None], weights,
                    cache=None if cache is None else cache.setdefault(("sys", human_direction, int(i)), {}),
                )
                for i in np.flatnonzero(defined)
            ])  # fmt: skip
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN sample is NaN on purpose
                samples = np.nanmean(per_sys, axis=0)
    return _with_samples(result, samples, ci)


def _rowwise(method: str, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """The correlation of each row pair of ``xs``, ``ys`` (``[n_samples, n_sys]``)."""
    if method == "spearman":
        import scipy.stats

        xs, ys = scipy.stats.rankdata(xs, axis=1), scipy.stats.rankdata(ys, axis=1)
    if method in ("pearson", "spearman"):
        xc = xs - xs.mean(1, keepdims=True)
        yc = ys - ys.mean(1, keepdims=True)
        vx, vy = (xc * xc).sum(1), (yc * yc).sum(1)
        with np.errstate(invalid="ignore", divide="ignore"):
            r = (xc * yc).sum(1) / np.sqrt(vx * vy)
        scale_x = np.maximum(np.abs(xs).max(1), 1.0) ** 2 * xs.shape[1]
        scale_y = np.maximum(np.abs(ys).max(1), 1.0) ** 2 * ys.shape[1]
        ok = (vx > _CONSTANT_TOL * scale_x) & (vy > _CONSTANT_TOL * scale_y)
        return np.where(ok, np.clip(r, -1.0, 1.0), np.nan)
    sx = np.sign(xs[:, :, None] - xs[:, None, :])
    sy = np.sign(ys[:, :, None] - ys[:, None, :])
    num = (sx * sy).sum(axis=(1, 2))
    dx, dy = np.abs(sx).sum(axis=(1, 2)), np.abs(sy).sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = num / np.sqrt(dx * dy)
    return np.where((dx > 0) & (dy > 0), np.clip(tau, -1.0, 1.0), np.nan)


def system_correlation(
    metric: np.ndarray,
    human: np.ndarray,
    method: str = "spearman",
    *,
    metric_direction: int = 1,
    human_direction: int = 1,
    metric_samples: np.ndarray | None = None,
    human_samples: np.ndarray | None = None,
    ci: float = DEFAULT_CI,
) -> Correlation:
    """System-level correlation between metric and human system scores (``[n_sys]`` each).

    ``metric_samples`` (``[n_samples, n_sys]``) are bootstrap system scores; the human side
    uses ``human_samples`` when given (derived from resampled segment judgments), else stays
    fixed (given system scores).
    """
    _check_method(method)
    _check_direction("metric_direction", metric_direction)
    _check_direction("human_direction", human_direction)
    x = np.asarray(metric, float) * metric_direction
    y = np.asarray(human, float) * human_direction
    if x.shape != y.shape or x.ndim != 1:
        raise UsageError(f"system score vectors differ: {x.shape} vs {y.shape}")
    if x.size < 2:
        return undefined(f"system-level {method} needs at least 2 systems, got {x.size}", int(x.size))
    result = correlate_vectors(x, y, method)
    samples = None
    if metric_samples is not None and result.defined:
        xs = np.asarray(metric_samples, float) * metric_direction
        ys = np.broadcast_to(y, xs.shape) if human_samples is None else np.asarray(human_samples, float) * human_direction
        samples = _rowwise(method, xs, ys)
    return _with_samples(result, samples, ci)


def average(results: list[Correlation], ci: float = DEFAULT_CI) -> Correlation:
    """The mean of several correlations measured on the same data, e.g. Li et al.'s NIST'08
    table: the average of the fluency and the adequacy correlation. Bootstrap samples, when
    all are present, are averaged sample by sample (they must share the resamples)."""
    if not results:
        raise UsageError("average needs at least one correlation")
    bad = [r.undefined_reason for r in results if not r.defined]
    if bad:
        return undefined(f"an averaged statistic is undefined: {bad[0]}", min(r.n for r in results))
    value = float(np.mean([r.value for r in results]))
    samples = None
    if all(r.samples is not None for r in results):
        samples = np.mean(np.stack([r.samples for r in results]), axis=0)  # type: ignore[misc]
    return _with_samples(Correlation(value, n=min(r.n for r in results)), samples, ci)


# --------------------------------------------------------------------------- comparisons


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
    n_samples: int = 1000,
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


def significance_clusters(p_values: np.ndarray, alpha: float = 0.05) -> list[int]:
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


__all__ = [
    "CORRELATIONS",
    "GROUPINGS",
    "PAIRWISE",
    "TIE_POLICIES",
    "Correlation",
    "PairCounts",
    "PairedTest",
    "apply_tie_policy",
    "average",
    "bootstrap_indices",
    "consistency",
    "correlate_vectors",
    "pair_counts",
    "paired_bootstrap_test",
    "paired_permutation_test",
    "percentile_ci",
    "resample_weights",
    "segment_correlation",
    "significance_clusters",
    "system_correlation",
    "undefined",
    "weighted_kendall",
    "weighted_pearson",
    "weighted_spearman",
]
