"""Tie-aware segment-level statistics of the WMT23-24 metrics tasks.

Definitions follow mt-metrics-eval (``stats.KendallVariants``, ``KendallWithTiesOpt``,
``tau_optimization``) and Deutsch, Foster & Freitag 2023, "Ties Matter: Meta-Evaluating
Modern Metrics with Pairwise Accuracy and Tie Calibration". For each pair of items of a
group, with metric difference ``dm`` and human difference ``dh``, the pair is

- *concordant* (C) or *discordant* (D) when neither side ties,
- tied in the metric only (Tm: ``|dm| <= eps``), in the human scores only (Th), or in both (Tb).

With ``N = C + D + Tm + Th + Tb``:

- ``kendall_b = (C - D) / sqrt((N - Tm - Tb) (N - Th - Tb))``
- ``kendall_c = 2 (C - D) / (n^2 (k - 1) / k)``, n items, k = fewer distinct values of the two sides
- ``kendall_23 = (C + Tb - D - Tm - Th) / N`` and ``kendall_acc23 = (C + Tb) / N`` (ties count:
  a pair tied by both is correct), at ``eps = 0``;
- ``acc_eq`` / ``tau_eq``: acc23 / tau23 with tie calibration, ``eps`` chosen to maximise the
  statistic over every candidate threshold (0 and every metric difference of a pair), the
  smallest such ``eps`` on a tie, one ``eps`` for all groups. Since ``tau23 = 2 acc23 - 1``
  for every group, both statistics share their ``eps``.

Groups: ``none`` pools every (system, segment) item; ``item`` takes one group per segment
(across systems); ``sys`` one per system (across segments). A grouped statistic is the mean
over groups with at least one pair (``macro``) or the mean weighted by the number of items of
each group (``micro``, mt-metrics-eval ``macro=False``); groups where the statistic is
undefined are skipped, or count as 0 with ``undefined="zero"``.

The search for ``eps`` never builds an object per pair: one pass over blocks of the pair
matrix collects the differences of the pairs that tie calibration can turn correct (human
tie, metric not tied); their sorted distinct values are the only thresholds where the
statistic can rise. A second pass bins the concordant pairs (which it turns incorrect) into
those thresholds with ``searchsorted``; a cumulative sum gives the statistic at every
threshold at once. Memory: one block of the pair matrix plus the human-tie pairs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

import numpy as np

from metaeval.correlation import Correlation, percentile_ci, undefined
from metaeval.errors import UsageError

if TYPE_CHECKING:
    import scipy.sparse

KENDALL_VARIANTS = ("kendall_b", "kendall_c", "kendall_23", "kendall_acc23")
CALIBRATED = ("acc_eq", "tau_eq")
SEGMENT_STATISTICS = KENDALL_VARIANTS + CALIBRATED
AVERAGES = ("macro", "micro")
UNDEFINED_POLICIES = ("skip", "zero")
#: Upper bound on the elements of one block of the pair matrix.
_BLOCK = 1 << 22
#: Relative tolerance under which two values of the swept statistic count as equal maxima.
_TIE_TOLERANCE = 1e-12
#: Tally columns.
CON, DIS, TM, TH, TB = range(5)


@dataclass(frozen=True)
class Options:
    """How a tie-aware statistic is computed.

    ``grouping``: ``none``, ``item`` or ``sys``; ``average``: ``macro`` or ``micro``;
    ``undefined``: ``skip`` undefined groups or count them as ``zero``; ``refit``: re-fit
    ``eps`` on every bootstrap resample (item grouping; pooled and per-system groupings keep
    the full-sample ``eps``, see :func:`tie_statistic`).
    """

    grouping: str = "none"
    average: str = "macro"
    undefined: str = "skip"
    refit: bool = True

    def __post_init__(self) -> None:
        for label, value, known in (
            ("grouping", self.grouping, ("none", "item", "sys")),
            ("averaging", self.average, AVERAGES),
            ("undefined policy", self.undefined, UNDEFINED_POLICIES),
        ):
            if value not in known:
                raise UsageError(f"unknown {label} {value!r}; known: {', '.join(known)}")


# --------------------------------------------------------------------------- pair blocks


def _groups(metric: np.ndarray, human: np.ndarray, grouping: str) -> tuple[np.ndarray, np.ndarray]:
    """``[n_groups, m]`` views of ``[n_sys, n_seg]`` matrices for a grouping."""
    if grouping == "none":
        return metric.reshape(1, -1), human.reshape(1, -1)
    if grouping == "item":
        return metric.T, human.T
    return metric, human


def _pair_blocks(x: np.ndarray, y: np.ndarray) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
    """Blocks of the upper-triangle pair matrix of each group of ``x``/``y`` ``[G, m]``.

    Yields ``(first group, dx, dy, valid)``, arrays ``[g, i, m]`` with ``dx = x_i - x_j``;
    ``valid`` marks pairs ``j > i`` where neither side is NaN.
    """
    n_groups, m = x.shape
    if m * m <= _BLOCK:
        g_step, i_step = max(1, _BLOCK // max(1, m * m)), m
    else:
        g_step, i_step = 1, max(1, _BLOCK // m)
    columns = np.arange(m)
    for g0 in range(0, n_groups, g_step):
        xs, ys = x[g0 : g0 + g_step], y[g0 : g0 + g_step]
        for i0 in range(0, m, i_step):
            i1 = min(m, i0 + i_step)
            dx = xs[:, i0:i1, None] - xs[:, None, :]
            dy = ys[:, i0:i1, None] - ys[:, None, :]
            with np.errstate(invalid="ignore"):
                valid = (columns[None, :] > np.arange(i0, i1)[:, None])[None] & ~np.isnan(dx) & ~np.isnan(dy)
            yield g0, dx, dy, valid


def _tie_masks(dx: np.ndarray, dy: np.ndarray, valid: np.ndarray, eps: float) -> tuple[np.ndarray, ...]:
    """Masks of a block at metric tie threshold ``eps``: metric tie (``|dx| <= eps``), human tie
    (``dy == 0``), neither side tied, and the two sides' signs agreeing."""
    with np.errstate(invalid="ignore"):
        metric_tie = valid & (np.abs(dx) <= eps)
        human_tie = valid & (dy == 0)
        both_differ = valid & ~metric_tie & ~human_tie
        agree = (dx > 0) == (dy > 0)
    return metric_tie, human_tie, both_differ, agree


def _classify(dx: np.ndarray, dy: np.ndarray, valid: np.ndarray, eps: float) -> tuple[np.ndarray, ...]:
    """Masks (C, D, Tm, Th, Tb) of a block at metric tie threshold ``eps``."""
    metric_tie, human_tie, both_differ, agree = _tie_masks(dx, dy, valid, eps)
    return both_differ & agree, both_differ & ~agree, metric_tie & ~human_tie, human_tie & ~metric_tie, metric_tie & human_tie


def tallies(x: np.ndarray, y: np.ndarray, eps: float = 0.0) -> np.ndarray:
    """Pair counts ``[G, 5]`` (C, D, Tm, Th, Tb) of every group of ``x``/``y`` ``[G, m]``."""
    out = np.zeros((x.shape[0], 5), dtype=np.int64)
    for g0, dx, dy, valid in _pair_blocks(x, y):
        masks = _classify(dx, dy, valid, eps)
        out[g0 : g0 + dx.shape[0]] += np.stack([k.sum(axis=(1, 2)) for k in masks], axis=1)
    return out


def _classes(v: np.ndarray) -> np.ndarray:
    """Distinct non-NaN values per row of ``v`` ``[G, m]``."""
    s = np.sort(v, axis=1)
    finite = ~np.isnan(s)
    new = np.ones_like(finite)
    new[:, 1:] = s[:, 1:] != s[:, :-1]
    return (new & finite).sum(axis=1)


def variant_values(t: np.ndarray, variant: str, n_items: np.ndarray | None = None, classes: np.ndarray | None = None) -> np.ndarray:
    """A Kendall variant from tallies ``[..., 5]`` (NaN where undefined or without pairs).

    ``kendall_c`` also needs ``n_items`` and ``classes`` (the smaller number of distinct
    values of metric and human scores), with the leading shape of ``t``.
    """
    t = np.asarray(t, dtype=float)
    con, dis, tm, th, tb = (t[..., k] for k in range(5))
    total = t.sum(axis=-1)
    x_ties, y_ties = tm + tb, th + tb
    with np.errstate(invalid="ignore", divide="ignore"):
        if variant in ("kendall_b", "kendall_c"):
            degenerate = (x_ties == total) | (y_ties == total)
            if variant == "kendall_b":
                value = (con - dis) / np.sqrt(total - x_ties) / np.sqrt(total - y_ties)
            else:
                k = np.asarray(classes, dtype=float)
                value = 2.0 * (con - dis) / (np.asarray(n_items, dtype=float) ** 2 * (k - 1.0) / k)
            value = np.where(degenerate, np.nan, value)
        elif variant in ("kendall_23", "tau_eq"):
            value = (con + tb - dis - tm - th) / total
        elif variant in ("kendall_acc23", "acc_eq"):
            value = (con + tb) / total
        else:
            raise UsageError(f"unknown Kendall variant {variant!r}; known: {', '.join(SEGMENT_STATISTICS)}")
    return np.where(total > 0, value, np.nan)


def _average(values: np.ndarray, group_weights: np.ndarray, undefined_policy: str) -> tuple[np.ndarray, np.ndarray]:
    """Weighted mean over the last axis; returns (mean, total weight used)."""
    values = np.asarray(values, float)
    defined = ~np.isnan(values)
    w = group_weights if undefined_policy == "zero" else np.where(defined, group_weights, 0.0)
    total = w.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (np.where(defined, values, 0.0) * w).sum(axis=-1) / total
    return np.where(total > 0, mean, np.nan), total


# --------------------------------------------------------------------------- tie calibration


@dataclass(frozen=True)
class Calibration:
    """The tie-calibration curve of acc23 over every candidate threshold.

    ``thresholds[0] = 0``; ``thresholds[1:]`` are the sorted distinct metric differences of
    the human-tied pairs the metric does not tie. ``gain`` (sparse ``[G, K]``) holds, per
    group, the change of ``C + Tb`` at each threshold divided by the group's pairs; the
    acc23 of a group at threshold ``k`` is ``base[g] + cumsum(gain[g])[k]``.
    """

    thresholds: np.ndarray
    base: np.ndarray  # [G] acc23 at eps = 0
    gain: scipy.sparse.csr_matrix  # [G, K]

    def best(self, group_weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Best acc23 and its ``eps`` for each row of ``group_weights`` ``[S, G]``.

        The statistic is the weighted mean of group acc23s; among equal maxima (within a
        relative 1e-12) the smallest threshold wins, as mt-metrics-eval's ``nanargmax``.
        """
        w = np.atleast_2d(np.asarray(group_weights, float))
        total = w.sum(axis=1)
        base = w @ self.base
        curve = np.asarray((self.gain.T @ w.T).T)  # [S, K]
        np.cumsum(curve, axis=1, out=curve)
        curve[:, 0] = 0.0  # threshold 0: no tie added
        best_gain = curve.max(axis=1)
        scale = np.maximum(np.abs(base) + np.abs(best_gain), 1e-300)
        first = np.argmax(curve >= (best_gain - _TIE_TOLERANCE * scale)[:, None], axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = (base + curve[np.arange(len(w)), first]) / total
        return np.where(total > 0, value, np.nan), self.thresholds[first]


def calibrate(x: np.ndarray, y: np.ndarray, counts: np.ndarray | None = None) -> Calibration:
    """The exact tie-calibration sweep for groups ``x`` (metric), ``y`` (human) ``[G, m]``.

    Pass 1 collects the absolute metric differences of pairs tied by the humans but not by
    the metric (each gains one correct pair once ``eps`` reaches it) and the tallies; pass 2
    bins each concordant pair (lost once ``eps`` reaches its difference) at the first
    candidate threshold at or above its difference. ``counts``: :func:`tallies` of ``x``,
    ``y`` when the caller has them.
    """
    counts = tallies(x, y) if counts is None else counts
    pairs = counts.sum(axis=1).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_pair = np.where(pairs > 0, 1.0 / pairs, 0.0)
    gains_d, gains_g = [], []
    for g0, dx, dy, valid in _pair_blocks(x, y):
        sel = valid & (dy == 0) & (dx != 0)
        g, _, _ = np.nonzero(sel)
        gains_d.append(np.abs(dx[sel]))
        gains_g.append(g + g0)
    d_up = np.concatenate(gains_d) if gains_d else np.zeros(0)
    g_up = np.concatenate(gains_g) if gains_g else np.zeros(0, dtype=int)
    thresholds = np.r_[0.0, np.unique(d_up)]
    n_groups, k = x.shape[0], len(thresholds)
    cells = n_groups * k
    # per (group, threshold) cell: + gains of human-tied pairs, - losses of concordant pairs
    dense = np.bincount(g_up * k + np.searchsorted(thresholds, d_up), weights=per_pair[g_up], minlength=cells) if cells <= _BLOCK else None
    parts = [] if dense is not None else [(g_up * k + np.searchsorted(thresholds, d_up), per_pair[g_up])]
    for g0, dx, dy, valid in _pair_blocks(x, y):
        concordant = _classify(dx, dy, valid, 0.0)[CON]
        g, _, _ = np.nonzero(concordant)
        g += g0
        where = np.searchsorted(thresholds, np.abs(dx[concordant]), side="left")
        keep = where < k
        cell = g[keep] * k + where[keep]
        if dense is not None:
            dense -= np.bincount(cell, weights=per_pair[g[keep]], minlength=cells)
        else:
            unique, inverse = np.unique(cell, return_inverse=True)
            parts.append((unique, -np.bincount(inverse, weights=per_pair[g[keep]])))
    import scipy.sparse  # here, not at the top: a run whose correlations are stored never needs it

    if dense is not None:
        gain = scipy.sparse.csr_matrix(dense.reshape(n_groups, k))
    else:
        cell = np.concatenate([c for c, _ in parts])
        gain = scipy.sparse.csr_matrix((np.concatenate([v for _, v in parts]), (cell // k, cell % k)), shape=(n_groups, k))
    base = np.where(pairs > 0, (counts[:, CON] + counts[:, TB]) * per_pair, 0.0)
    return Calibration(thresholds, base, gain)


# --------------------------------------------------------------------------- bootstrap (pooled / per system)


#: Sums of pair kinds that the pooled bootstrap needs, each from one mask.
_CORRECT, _SIGN, _X_TIES, _Y_TIES = "C+Tb", "C-D", "Tm+Tb", "Th+Tb"


def _block_tallies(x: np.ndarray, y: np.ndarray, eps: float, sums: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Ordered pair counts between blocks, ``[n_blocks, n_blocks]`` for each of ``sums``
    (``C+Tb``, ``C-D``, ``Tm+Tb``, ``Th+Tb``) for ``x``, ``y`` of shape ``[n_blocks, m]`` (a
    block = a segment and its items), pairs of an item with itself left out. A resample with
    block weights ``w`` has ``w' K w / 2`` pairs of each kind (copies of one item are not a pair)."""
    n_blocks, m = x.shape
    out = {name: np.zeros((n_blocks, n_blocks)) for name in sums}
    step = max(1, _BLOCK // max(1, m * m * n_blocks))
    for a0 in range(0, n_blocks, step):
        xa, ya = x[a0 : a0 + step], y[a0 : a0 + step]
        rows = slice(a0, a0 + len(xa))
        dx = xa[:, :, None, None] - x[None, None, :, :]
        dy = ya[:, :, None, None] - y[None, None, :, :]
        metric_tie, human_tie, both_differ, agree = _tie_masks(dx, dy, ~np.isnan(dx) & ~np.isnan(dy), eps)
        if _CORRECT in sums:
            out[_CORRECT][rows] = ((both_differ & agree) | (metric_tie & human_tie)).sum(axis=(1, 3))
        if _SIGN in sums:
            out[_SIGN][rows] = (both_differ & agree).sum(axis=(1, 3)) - (both_differ & ~agree).sum(axis=(1, 3)).astype(float)
        if _X_TIES in sums:
            out[_X_TIES][rows] = metric_tie.sum(axis=(1, 3))
        if _Y_TIES in sums:
            out[_Y_TIES][rows] = human_tie.sum(axis=(1, 3))
    items = (~(np.isnan(x) | np.isnan(y))).sum(axis=1)
    idx = np.arange(n_blocks)
    for name in (_CORRECT, _X_TIES, _Y_TIES):
        if name in out:
            out[name][idx, idx] -= items  # an item against itself ties on both sides
    return out


#: Integers up to this magnitude are exact in float32, and so is every sum of them below it.
_FLOAT32_EXACT = 2**24


def _product(weights: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """``weights @ matrix`` in float64. When both hold integers and no partial sum can reach
    2**24 (resampling counts times pair counts: the rows of ``weights`` sum to the number of
    blocks), the product is formed in float32, where it is then exact, as in float64, whatever
    the order of summation: the same numbers, about twice as fast."""
    bound = float(np.abs(weights).sum(axis=1).max(initial=0.0)) * float(np.abs(matrix).max(initial=0.0))
    if bound < _FLOAT32_EXACT and np.array_equal(weights, np.round(weights)) and np.array_equal(matrix, np.round(matrix)):
        return (weights.astype(np.float32) @ matrix.astype(np.float32)).astype(np.float64)
    return weights @ matrix


def _quadratic(weights: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """``w' M w / 2`` for every row ``w`` of ``weights``: unordered pairs of a resample."""
    return np.einsum("sa,sa->s", _product(weights, matrix), weights) / 2.0


def _resampled_classes(v: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Distinct values ``[S]`` among the items ``v`` ``[n_blocks, m]`` of drawn blocks."""
    flat = v.ravel()
    keep = ~np.isnan(flat)
    values, codes = np.unique(flat[keep], return_inverse=True)
    blocks = np.repeat(np.arange(v.shape[0]), v.shape[1])[keep]
    import scipy.sparse

    presence = scipy.sparse.csr_matrix((np.ones(len(codes)), (codes, blocks)), shape=(len(values), v.shape[0]))
    drawn = (weights > 0).astype(float)
    return np.asarray((presence @ drawn.T) > 0).sum(axis=0)


def _pooled_samples(x: np.ndarray, y: np.ndarray, statistic: str, eps: float, weights: np.ndarray) -> np.ndarray:
    """Bootstrap values of one pooled group ``x``, ``y`` ``[n_blocks, m]`` (blocks resampled).

    Exact on each resample, with copies of one item not counted as a pair: the resample has
    ``((w n)^2 - w^2 n) / 2`` pairs (``n`` items per block) and ``w' K w / 2`` pairs of each
    kind (:func:`_block_tallies`).
    """
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = np.where(keep, x, np.nan), np.where(keep, y, np.nan)
    n = keep.sum(axis=1).astype(float)
    n_items = weights @ n
    total = (n_items**2 - (weights**2) @ n) / 2.0
    t = np.zeros((len(weights), 5))
    t[:, TH] = total  # filled below so that the tallies sum to the total
    if statistic in ("kendall_acc23", "kendall_23"):
        t[:, CON] = _quadratic(weights, _block_tallies(x, y, eps, (_CORRECT,))[_CORRECT])
        t[:, TH] = total - t[:, CON]
        t[:, DIS] = 0.0  # only C + Tb and N matter for these variants
        return variant_values(t, statistic)
    k = _block_tallies(x, y, eps, (_SIGN, _X_TIES, _Y_TIES))
    sign = _quadratic(weights, k[_SIGN])
    x_ties = _quadratic(weights, k[_X_TIES])
    y_ties = _quadratic(weights, k[_Y_TIES])
    with np.errstate(invalid="ignore", divide="ignore"):
        degenerate = (x_ties >= total) | (y_ties >= total) | (total <= 0)
        if statistic == "kendall_b":
            value = sign / np.sqrt(total - x_ties) / np.sqrt(total - y_ties)
        else:
            classes = np.minimum(_resampled_classes(x, weights), _resampled_classes(y, weights)).astype(float)
            value = 2.0 * sign / (n_items**2 * (classes - 1.0) / classes)
    return np.where(degenerate, np.nan, value)


# --------------------------------------------------------------------------- the statistic


def tie_statistic(
    metric: np.ndarray,
    human: np.ndarray,
    statistic: str,
    options: Options = Options(),
    *,
    metric_direction: int = 1,
    human_direction: int = 1,
    weights: np.ndarray | None = None,
    ci: float = 0.95,
) -> Correlation:
    """One tie-aware statistic between ``metric`` and ``human`` (``[n_sys, n_seg]``, NaN =
    unjudged, dropped with the matching metric value).

    Returns a :class:`~metaeval.correlation.Correlation` with ``epsilon`` set for
    ``acc_eq``/``tau_eq`` (NaN for the other variants, which use no calibration) and ``n`` the
    groups averaged (grouping ``item``/``sys``) or the pairs (``none``). Undefined (NaN with
    a reason): no group with two judged items, or human or metric scores tied in every pair
    (a constant side; tie calibration would then reach 1 trivially). Single groups where a
    variant is undefined are skipped or count as 0 (``options.undefined``). ``weights``
    (``[n_samples, n_seg]``, segment resampling counts) give bootstrap samples: for
    ``item``, the weighted mean of per-segment values, with ``eps`` re-fitted on every
    resample when ``options.refit``; for ``none`` and ``sys``, exact values on the
    resampled items from block-pair counts, at the full-sample ``eps``.
    """
    if statistic not in SEGMENT_STATISTICS:
        raise UsageError(f"unknown tie-aware statistic {statistic!r}; known: {', '.join(SEGMENT_STATISTICS)}")
    x = np.asarray(metric, float) * metric_direction
    y = np.asarray(human, float) * human_direction
    if x.shape != y.shape or x.ndim != 2:
        raise UsageError(f"metric and human matrices differ in shape: {x.shape} vs {y.shape}")
    x = np.where(np.isnan(y), np.nan, x)
    y = np.where(np.isnan(x), np.nan, y)
    gx, gy = _groups(x, y, options.grouping)
    items = (~np.isnan(gx)).sum(axis=1)
    has_pairs = items >= 2
    unit = {"none": "pool", "item": "segment", "sys": "system"}[options.grouping]
    if not has_pairs.any():
        return undefined(f"{statistic} needs two judged items in a {unit}; none has", 0)
    group_weight = np.where(has_pairs, 1.0 if options.average == "macro" else items.astype(float), 0.0)
    counts = tallies(gx, gy)
    total = int(counts.sum())
    for side, tied in (("human", counts[:, TH] + counts[:, TB]), ("metric", counts[:, TM] + counts[:, TB])):
        if int(tied.sum()) == total:
            return undefined(f"{statistic}: {side} scores tie in all {total} pairs (every {unit})", 0)
    eps = 0.0
    calibration = None
    if statistic in CALIBRATED:
        calibration = calibrate(gx, gy, counts)
        best, eps_arr = calibration.best(group_weight[None, :])
        eps = float(eps_arr[0])
        value_acc = float(best[0])
        value = value_acc if statistic == "acc_eq" else 2.0 * value_acc - 1.0
        per_group = None
        counts = tallies(gx, gy, eps)
    else:
        per_group = variant_values(counts, statistic, items, np.minimum(_classes(gx), _classes(gy)))
        mean, used = _average(per_group[has_pairs], group_weight[has_pairs], options.undefined)
        if not used > 0 or math.isnan(float(mean)):
            reason = _undefined_reason(statistic, counts, unit)
            return undefined(reason, 0, {"skipped": int(has_pairs.sum())})
        value = float(mean)
    skipped = int((has_pairs & np.isnan(per_group)).sum()) if per_group is not None else 0
    n = int(counts.sum()) if options.grouping == "none" else int(has_pairs.sum() - (skipped if options.undefined == "skip" else 0))
    summary = {
        "concordant": float(counts[:, CON].sum()), "discordant": float(counts[:, DIS].sum()),
        "metric_ties": float(counts[:, TM].sum() + counts[:, TB].sum()),
        "human_ties": float(counts[:, TH].sum() + counts[:, TB].sum()), "skipped": skipped,
    }  # fmt: skip
    result = Correlation(value, n=n, counts=summary, epsilon=eps if statistic in CALIBRATED else math.nan)
    if weights is None:
        return result
    samples = _samples(x, y, gx, gy, statistic, options, eps, calibration, per_group, group_weight, has_pairs, weights)
    low, high = percentile_ci(samples, ci)
    return Correlation(value, low, high, n, math.nan, summary, None, samples, result.epsilon)


def _undefined_reason(statistic: str, counts: np.ndarray, unit: str) -> str:
    total = counts.sum(axis=1)
    if statistic in ("kendall_b", "kendall_c"):
        if np.all((counts[:, TM] + counts[:, TB] == total) | (total == 0)):
            return f"{statistic}: metric scores tie in every pair of every {unit}"
        if np.all((counts[:, TH] + counts[:, TB] == total) | (total == 0)):
            return f"{statistic}: human scores tie in every pair of every {unit}"
        return f"{statistic} undefined in every {unit} (all pairs tied on one side)"
    return f"{statistic} undefined in every {unit}"


def _samples(x, y, gx, gy, statistic, options, eps, calibration, per_group, group_weight, has_pairs, weights):  # noqa: ANN001, ANN202, PLR0913
    weights = np.asarray(weights, float)
    if options.grouping == "item":
        w = weights * group_weight[None, :]
        if calibration is not None:
            if options.refit:
                acc, _ = calibration.best(w)
            else:
                acc = _fixed_eps_item(gx, gy, eps, w)
            return acc if statistic == "acc_eq" else 2.0 * acc - 1.0
        values = np.where(has_pairs, per_group, np.nan)
        return _average(np.broadcast_to(values, w.shape), w, options.undefined)[0]
    stat = "kendall_acc23" if statistic == "acc_eq" else "kendall_23" if statistic == "tau_eq" else statistic
    if options.grouping == "none":
        return _pooled_samples(x.T, y.T, stat, eps, weights)
    per_system = np.stack([_pooled_samples(x[s][:, None], y[s][:, None], stat, eps, weights) for s in range(x.shape[0])], axis=1)
    return _average(per_system, np.broadcast_to(group_weight, per_system.shape) * has_pairs, options.undefined)[0]


def _fixed_eps_item(gx: np.ndarray, gy: np.ndarray, eps: float, w: np.ndarray) -> np.ndarray:
    per_group = variant_values(tallies(gx, gy, eps), "kendall_acc23")
    return _average(np.broadcast_to(np.where(np.isnan(per_group), np.nan, per_group), w.shape), w, "skip")[0]


__all__ = [
    "AVERAGES",
    "CALIBRATED",
    "KENDALL_VARIANTS",
    "SEGMENT_STATISTICS",
    "Calibration",
    "Options",
    "calibrate",
    "tallies",
    "tie_statistic",
    "variant_values",
]
