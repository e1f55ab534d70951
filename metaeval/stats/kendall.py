"""Tie-aware segment-level statistics of the WMT23-24 metrics tasks: the Kendall variants
``kendall_b``, ``kendall_c``, ``kendall_23``, ``kendall_acc23`` and the tie-calibrated ``acc_eq``
and ``tau_eq`` (definitions: :mod:`metaeval.stats.tallies`; mt-metrics-eval ``KendallVariants``,
``KendallWithTiesOpt``; Deutsch, Foster & Freitag 2023).

Grouped ``none``, ``item`` or ``sys`` and averaged as every grouped statistic
(:mod:`metaeval.stats.grouping`). Bootstrap samples: for ``item``, the weighted mean of
per-segment values (``eps`` re-fitted on every resample unless ``refit_epsilon`` is off); for
``none`` and ``sys``, exact values on the resampled items from block-pair counts, at the
full-sample ``eps``.
"""

from __future__ import annotations

import math

import numpy as np

from metaeval.errors import UsageError
from metaeval.stats.calibration import Calibration, calibrate
from metaeval.stats.checks import check_choice
from metaeval.stats.defaults import AVERAGE, CI, REFIT_EPSILON, UNDEFINED
from metaeval.stats.grouping import AVERAGES, GROUPINGS, UNDEFINED_POLICIES, UNITS, average_groups, group_weights, grouped
from metaeval.stats.resampling import percentile_ci
from metaeval.stats.result import Correlation, undefined as undefined_result
from metaeval.stats.tallies import (
    BLOCK, CALIBRATED, CON, DIS, SEGMENT_STATISTICS, TB, TH, TM, classes, tallies, tie_masks, variant_values,
)  # fmt: skip


#: Sums of pair kinds that the pooled bootstrap needs, each from one mask.
_CORRECT, _SIGN, _X_TIES, _Y_TIES = "C+Tb", "C-D", "Tm+Tb", "Th+Tb"


def _block_tallies(x: np.ndarray, y: np.ndarray, eps: float, sums: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Ordered pair counts between blocks, ``[n_blocks, n_blocks]`` for each of ``sums``
    (``C+Tb``, ``C-D``, ``Tm+Tb``, ``Th+Tb``) for ``x``, ``y`` of shape ``[n_blocks, m]`` (a
    block = a segment and its items), pairs of an item with itself left out. A resample with
    block weights ``w`` has ``w' K w / 2`` pairs of each kind (copies of one item are not a pair)."""
    n_blocks, m = x.shape
    out = {name: np.zeros((n_blocks, n_blocks)) for name in sums}
    step = max(1, BLOCK // max(1, m * m * n_blocks))
    for a0 in range(0, n_blocks, step):
        xa, ya = x[a0 : a0 + step], y[a0 : a0 + step]
        rows = slice(a0, a0 + len(xa))
        dx = xa[:, :, None, None] - x[None, None, :, :]
        dy = ya[:, :, None, None] - y[None, None, :, :]
        metric_tie, human_tie, both_differ, agree = tie_masks(dx, dy, ~np.isnan(dx) & ~np.isnan(dy), eps)
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
    return np.where(degenerate, np.nan, np.clip(value, -1.0, 1.0))


def tie_statistic(
    metric: np.ndarray,
    human: np.ndarray,
    statistic: str,
    grouping: str = "none",
    *,
    average: str = AVERAGE,
    undefined: str = UNDEFINED,
    refit_epsilon: bool = REFIT_EPSILON,
    metric_direction: int = 1,
    human_direction: int = 1,
    weights: np.ndarray | None = None,
    ci: float = CI,
    cache: dict | None = None,
    epsilon: float | None = None,
) -> Correlation:
    """One tie-aware statistic between ``metric`` and ``human`` (``[n_sys, n_seg]``, NaN =
    unjudged, dropped with the matching metric value).

    Returns a :class:`~metaeval.stats.result.Correlation` with ``epsilon`` set for
    ``acc_eq``/``tau_eq`` (NaN for the other variants, which use no calibration) and ``n`` the
    groups averaged (grouping ``item``/``sys``) or the pairs (``none``). Undefined (NaN with
    a reason): no group with two judged items, or human scores tied in every pair (tie
    calibration would then reach 1 trivially), or, for ``kendall_b`` and ``kendall_c``, metric
    scores tied in every pair. A constant metric gets what its definition gives, as in
    mt-metrics-eval: every pair is a metric tie, correct where the humans tie it, so ``acc23``
    and ``acc_eq`` are the share ``t`` of human-tied pairs and the taus ``2 t - 1``, which is
    also its chance level. Groups are averaged
    ``macro`` or ``micro`` (``average``); single groups where a variant is undefined are skipped
    or count as 0 (``undefined``). ``weights`` (``[n_samples, n_seg]``, segment resampling
    counts) give bootstrap samples (module docstring); ``refit_epsilon`` re-fits ``eps`` on
    every resample of grouping ``item``. ``cache`` is accepted as every segment-level statistic
    of the registry takes it, and not needed. ``epsilon``: ``acc_eq`` and ``tau_eq`` at this
    threshold instead of the calibrated one (the chance levels of groupings ``none`` and ``sys``).
    """
    if statistic not in SEGMENT_STATISTICS:
        raise UsageError(f"unknown tie-aware statistic {statistic!r}; known: {', '.join(SEGMENT_STATISTICS)}")
    check_choice("grouping", grouping, GROUPINGS)
    check_choice("averaging", average, AVERAGES)
    check_choice("undefined policy", undefined, UNDEFINED_POLICIES)
    x = np.asarray(metric, float) * metric_direction
    y = np.asarray(human, float) * human_direction
    if x.shape != y.shape or x.ndim != 2:
        raise UsageError(f"metric and human matrices differ in shape: {x.shape} vs {y.shape}")
    x = np.where(np.isnan(y), np.nan, x)
    y = np.where(np.isnan(x), np.nan, y)
    gx, gy = grouped(x, y, grouping)
    items = (~np.isnan(gx)).sum(axis=1)
    has_pairs = items >= 2
    unit = UNITS[grouping]
    if not has_pairs.any():
        return undefined_result(f"{statistic} needs two judged items in a {unit}; none has", 0)
    group_weight = group_weights(items, average)
    counts = tallies(gx, gy)
    total = int(counts.sum())
    sides = [("human", counts[:, TH] + counts[:, TB])]
    if statistic in ("kendall_b", "kendall_c"):
        sides.append(("metric", counts[:, TM] + counts[:, TB]))
    for side, tied in sides:
        if int(tied.sum()) == total:
            return undefined_result(f"{statistic}: {side} scores tie in all {total} pairs (every {unit})", 0)
    eps = 0.0
    calibration = None
    if statistic in CALIBRATED and epsilon is not None:
        eps = float(epsilon)
        counts = tallies(gx, gy, eps)
        per_group = variant_values(counts, statistic, items)
        mean, _ = average_groups(per_group[has_pairs], group_weight[has_pairs], undefined)
        value = float(mean)
    elif statistic in CALIBRATED:
        calibration = calibrate(gx, gy, counts)
        best, eps_arr = calibration.best(group_weight[None, :])
        eps = float(eps_arr[0])
        value_acc = float(best[0])
        value = value_acc if statistic == "acc_eq" else 2.0 * value_acc - 1.0
        per_group = None
        counts = tallies(gx, gy, eps)
    else:
        per_group = variant_values(counts, statistic, items, np.minimum(classes(gx), classes(gy)))
        mean, used = average_groups(per_group[has_pairs], group_weight[has_pairs], undefined)
        if not used > 0 or math.isnan(float(mean)):
            reason = _undefined_reason(statistic, counts, unit)
            return undefined_result(reason, 0, {"skipped": int(has_pairs.sum())})
        value = float(mean)
    skipped = int((has_pairs & np.isnan(per_group)).sum()) if per_group is not None else 0
    n = int(counts.sum()) if grouping == "none" else int(has_pairs.sum() - (skipped if undefined == "skip" else 0))
    summary = {
        "concordant": float(counts[:, CON].sum()), "discordant": float(counts[:, DIS].sum()),
        "metric_ties": float(counts[:, TM].sum() + counts[:, TB].sum()),
        "human_ties": float(counts[:, TH].sum() + counts[:, TB].sum()), "skipped": skipped,
    }  # fmt: skip
    result = Correlation(value, n=n, counts=summary, epsilon=eps if statistic in CALIBRATED else math.nan)
    if weights is None:
        return result
    samples = _samples(x, y, gx, gy, statistic, grouping, undefined, refit_epsilon, eps, calibration, per_group, group_weight, has_pairs, weights, average)
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


def _samples(x, y, gx, gy, statistic, grouping, undefined, refit_epsilon, eps, calibration: Calibration | None, per_group, group_weight, has_pairs,  # noqa: ANN001, PLR0913
             weights, average: str = AVERAGE) -> np.ndarray:  # noqa: ANN001
    weights = np.asarray(weights, float)
    if grouping == "item":
        w = weights * group_weight[None, :]
        if calibration is not None:
            if refit_epsilon:
                acc, _ = calibration.best(w)
            else:
                acc = _fixed_eps_item(gx, gy, eps, w)
            return acc if statistic == "acc_eq" else 2.0 * acc - 1.0
        values = np.where(has_pairs, per_group, np.nan)
        return average_groups(np.broadcast_to(values, w.shape), w, undefined)[0]
    stat = "kendall_acc23" if statistic == "acc_eq" else "kendall_23" if statistic == "tau_eq" else statistic
    if grouping == "none":
        return _pooled_samples(x.T, y.T, stat, eps, weights)
    per_system = np.stack([_pooled_samples(x[s][:, None], y[s][:, None], stat, eps, weights) for s in range(x.shape[0])], axis=1)
    # each system weighted by its items in the resample (copies of a segment included)
    resampled_items = weights @ (~np.isnan(x)).T.astype(float)
    return average_groups(per_system, group_weights(resampled_items, average), undefined)[0]


def _fixed_eps_item(gx: np.ndarray, gy: np.ndarray, eps: float, w: np.ndarray) -> np.ndarray:
    per_group = variant_values(tallies(gx, gy, eps), "kendall_acc23")
    return average_groups(np.broadcast_to(np.where(np.isnan(per_group), np.nan, per_group), w.shape), w, "skip")[0]


__all__ = ["tie_statistic"]
