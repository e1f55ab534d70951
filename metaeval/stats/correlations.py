"""Pearson, Spearman and Kendall tau-b between metric and human scores, at segment level (grouped
``none``, ``item`` or ``sys``) and at system level, through scipy.stats, with bootstrap samples
from :mod:`metaeval.stats.weighted` (docs/design.md, "Exact definitions").
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from metaeval.errors import UsageError
from metaeval.stats.checks import check_choice, check_direction
from metaeval.stats.defaults import AVERAGE, CI, UNDEFINED
from metaeval.stats.grouping import AVERAGES, GROUPINGS, UNDEFINED_POLICIES, average_groups, group_weights, grouped
from metaeval.stats.resampling import drawn, with_samples
from metaeval.stats.result import Correlation
from metaeval.stats.result import undefined as undefined_result
from metaeval.stats.weighted import CONSTANT_TOL, WEIGHTED, power_of_two_scaled

CORRELATIONS = ("pearson", "spearman", "kendall")
#: Fewest items for which each correlation is defined.
MIN_ITEMS = {"pearson": 2, "spearman": 2, "kendall": 2}


def check_method(method: str) -> None:
    """``method`` is one of :data:`CORRELATIONS`."""
    if method not in CORRELATIONS:
        raise UsageError(f"unknown correlation {method!r}; known: {', '.join(CORRELATIONS)}")


def _constant(v: np.ndarray) -> bool:
    scale = max(float(np.max(np.abs(v))), 1.0)
    return float(np.var(v)) <= CONSTANT_TOL * scale * scale


def _unit_scaled(v: np.ndarray) -> np.ndarray:
    """``v`` divided by its largest magnitude (unchanged if all zero)."""
    top = float(np.max(np.abs(v))) if v.size else 0.0
    return v / top if top > 0 else v


def correlate_vectors(x: np.ndarray, y: np.ndarray, method: str) -> Correlation:
    """Correlation of two vectors through scipy.stats (``pearsonr``, ``spearmanr``,
    ``kendalltau(variant='b')``); pairs with a NaN on either side are dropped first."""
    check_method(method)
    x, y = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    if x.shape != y.shape:
        raise UsageError(f"vectors differ in length: [{x.size}, {y.size}]")
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    n = int(x.size)
    if n < MIN_ITEMS[method]:
        return undefined_result(f"{method} needs at least {MIN_ITEMS[method]} items, got {n}", n)
    for name, v in (("metric", x), ("human", y)):
        if not np.isfinite(v).all():
            return undefined_result(f"non-finite {name} scores (infinite values) among {n} items", n)
    # Rank statistics see ranks only, so they cannot depend on the magnitude of the scores;
    # Pearson is scale-free, so dividing by the largest magnitude avoids overflow (1e308).
    import scipy.stats  # here, not at the top: 0.8 s to import, unused by a run whose correlations are stored

    if method == "pearson":
        x, y = _unit_scaled(x), _unit_scaled(y)
    else:
        x, y = scipy.stats.rankdata(x), scipy.stats.rankdata(y)
    for name, v in (("metric", x), ("human", y)):
        if _constant(v):
            return undefined_result(f"constant {name} scores over {n} items", n)
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
        return undefined_result(f"{method} undefined on these {n} items", n)
    return Correlation(value, n=n, p_value=p)


def segment_correlation(
    metric: np.ndarray,
    human: np.ndarray,
    method: str = "pearson",
    grouping: str = "none",
    *,
    metric_direction: int = 1,
    human_direction: int = 1,
    weights: np.ndarray | None = None,
    ci: float = CI,
    cache: dict | None = None,
    average: str = AVERAGE,
    undefined: str = UNDEFINED,
) -> Correlation:
    """Segment-level correlation between ``metric`` and ``human``, both ``(n_sys, n_seg)``.

    NaN in ``human`` marks an unjudged cell; it is dropped with the matching metric value
    (mt-metrics-eval). ``grouping``:

    - ``none``: one correlation over all (system, segment) cells;
    - ``item``: a correlation per segment across systems, averaged over the segments;
    - ``sys``: a correlation per system across segments, averaged likewise.

    Grouped values are averaged as mt-metrics-eval's ``AverageCorrelation``
    (:mod:`metaeval.stats.grouping`): ``average`` ``macro`` or ``micro``, groups where the
    correlation is undefined skipped or counted as 0 (``undefined``; their number is in
    ``counts["skipped"]``). The grouped ``p_value`` is the groups' scipy p-values averaged the
    same way (:func:`averaged_p_value`). ``weights`` (``[n_samples, n_seg]``) gives the bootstrap samples of
    segments. ``cache``: a dict the caller keeps for one ``(human, weights)`` pair, so that the
    human-side work of rank correlations is done once for many metrics.
    """
    check_method(method)
    check_choice("grouping", grouping, GROUPINGS)
    check_choice("averaging", average, AVERAGES)
    check_choice("undefined policy", undefined, UNDEFINED_POLICIES)
    check_direction("metric_direction", metric_direction)
    check_direction("human_direction", human_direction)
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
        return with_samples(result, samples, ci)
    groups_x, groups_y = grouped(x, y, grouping)
    parts = [correlate_vectors(gx, gy, method) for gx, gy in zip(groups_x, groups_y)]
    values = np.array([p.value for p in parts])
    items = (~(np.isnan(groups_x) | np.isnan(groups_y))).sum(axis=1)
    weight = group_weights(items, average)
    defined = ~np.isnan(values)
    skipped = int((~defined & (weight > 0)).sum())  # groups of two items or more: those the policy acts on
    unit = "segment" if grouping == "item" else "system"
    mean, used = average_groups(values, weight, undefined)
    if not used > 0 or math.isnan(float(mean)):
        return undefined_result(f"{method} undefined for every {unit} ({len(parts)} {unit}s)", 0, {"skipped": skipped})
    counted = int(((weight > 0) & (defined | (undefined == "zero"))).sum())
    p_value = averaged_p_value(values, np.array([p.p_value for p in parts]), weight, undefined)
    result = Correlation(float(mean), n=counted, p_value=p_value, counts={"skipped": skipped})
    samples = None
    if weights is not None:
        if grouping == "item":
            w = np.asarray(weights, float) * weight[None, :]
            samples = average_groups(np.broadcast_to(values, w.shape), w, undefined)[0]
        else:
            per_sys = np.full((len(values), len(weights)), np.nan)
            for i in np.flatnonzero(defined):
                per_sys[i] = WEIGHTED[method](
                    groups_x[i][:, None], groups_y[i][:, None], weights,
                    cache=None if cache is None else cache.setdefault(("sys", human_direction, int(i)), {}),
                )  # fmt: skip
            # each system weighted by its items in the resample (copies of a segment included)
            judged = (~(np.isnan(groups_x) | np.isnan(groups_y))).astype(float)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN sample is NaN on purpose
                samples = average_groups(per_sys.T, group_weights(np.asarray(weights, float) @ judged.T, average), undefined)[0]
    return with_samples(result, samples, ci)


def averaged_p_value(values: np.ndarray, p_values: np.ndarray, weights: np.ndarray, undefined: str) -> float:
    """The p-value mt-metrics-eval's ``AverageCorrelation`` reports for a grouped correlation: the
    groups' p-values averaged with the weights of their values (:func:`~metaeval.stats.grouping.average_groups`).

    A group whose correlation is undefined is left out (``skip``) or, with ``zero``, counts with
    its weight and a p-value of 0, as mt-metrics-eval adds a NaN group's weight and nothing to
    the sum; a defined group without a p-value makes the average undefined (NaN). The groups are
    not independent samples (the same systems, or the same segments, recur in every group), so
    this average is no p-value of a test of the grouped statistic; it is reported for parity with
    mt-metrics-eval (docs/reference.md, "Grouped statistics and their p-values").
    """
    defined = ~np.isnan(np.asarray(values, float))
    p = np.asarray(p_values, float)
    if np.any(defined & (weights > 0) & np.isnan(p)):
        return math.nan
    return float(average_groups(np.where(defined, p, np.nan), weights, undefined)[0])


def _difference_sums(moments: np.ndarray) -> np.ndarray:
    """``[..., 3]``: the sums over a group's pairs of ``dm dh``, ``dm^2`` and ``dh^2``, from its
    moments ``[..., 6]`` (items, sum of x, of y, of x^2, of y^2, of xy): for n items,
    ``sum_{i<j} (x_i - x_j)(y_i - y_j) = n sum xy - sum x sum y``."""
    n, sx, sy, sxx, syy, sxy = np.moveaxis(moments, -1, 0)
    # a side constant in the group up to rounding (copies of one item in a resample) adds nothing
    dx = np.where(n * sxx - sx * sx > CONSTANT_TOL * n * sxx, n * sxx - sx * sx, 0.0)
    dy = np.where(n * syy - sy * sy > CONSTANT_TOL * n * syy, n * syy - sy * sy, 0.0)
    return np.stack([np.where((dx > 0) & (dy > 0), n * sxy - sx * sy, 0.0), dx, dy], axis=-1)


def _pooled_pearson(sums: np.ndarray) -> np.ndarray:
    """Pearson of pooled differences from their summed products ``[..., 3]`` (NaN where a side is constant)."""
    num, dx, dy = np.moveaxis(sums, -1, 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = num / np.sqrt(dx * dy)
    return np.where((dx > 0) & (dy > 0), np.clip(r, -1.0, 1.0), np.nan)


def pairwise_difference_pearson(
    metric: np.ndarray,
    human: np.ndarray,
    grouping: str = "none",
    *,
    metric_direction: int = 1,
    human_direction: int = 1,
    weights: np.ndarray | None = None,
    ci: float = CI,
    cache: dict | None = None,
) -> Correlation:
    """Pairwise-difference Pearson (DiIanni & Deutsch 2025; mt-metrics-eval ``Pearson(pdp=True)``)
    between ``metric`` and ``human`` ``[n_sys, n_seg]`` (NaN = unjudged, dropped with its pair).

    Within each group of ``grouping`` (``none``: every item; ``item``: the systems of a segment;
    ``sys``: the segments of a system) every pair of items gives a human difference ``dh`` and a
    metric difference ``dm``; the differences of all groups are pooled and correlated by one
    Pearson, not averaged over groups. Each pair comes with its opposite, so the differences have
    mean 0 and the value is ``sum dh dm / sqrt(sum dh^2 sum dm^2)``, from each group's moments
    (items centred on their group's mean; a group constant on one side adds nothing to that side).
    Grouping ``none`` is Pearson's r. ``n`` counts the pairs. ``weights`` (``[n_samples, n_seg]``)
    give exact bootstrap samples: a drawn segment is a group of its own (``item``), or adds its
    items to its system's group or the pool (copies of an item differ by 0). ``cache`` is accepted
    as every segment-level statistic takes it.
    """
    check_choice("grouping", grouping, GROUPINGS)
    check_direction("metric_direction", metric_direction)
    check_direction("human_direction", human_direction)
    x = np.asarray(metric, float) * metric_direction
    y = np.asarray(human, float) * human_direction
    if x.shape != y.shape or x.ndim != 2:
        raise UsageError(f"metric and human matrices differ in shape: {x.shape} vs {y.shape}")
    x, y = power_of_two_scaled(x), power_of_two_scaled(y)  # products of 1e300 or 1e-300 scores neither overflow nor vanish
    unit = {"none": "pool", "item": "segment", "sys": "system"}[grouping]
    # [group, segment, item]: the pool or each system holds its items of every segment; a segment holds its own
    layout = {"none": lambda v: v.T[None], "sys": lambda v: v[:, :, None], "item": lambda v: v.T[:, None, :]}[grouping]
    keep = layout(~(np.isnan(x) | np.isnan(y)))
    items = keep.sum(axis=(1, 2))
    pairs = int((items * (items - 1) // 2).sum())
    if pairs == 0:
        return undefined_result(f"pdp needs two judged items in a {unit}; none has", 0)
    centred = []
    for v in (layout(x), layout(y)):
        v = np.where(keep, v, np.nan)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a group without items has no mean
            low, high = np.nanmin(v, axis=(1, 2), keepdims=True), np.nanmax(v, axis=(1, 2), keepdims=True)
            c = v - np.nanmean(v, axis=(1, 2), keepdims=True)
        centred.append(np.where(keep & (high > low), c, 0.0))  # a constant group: exactly 0
    cx, cy = centred
    moments = np.stack([keep.astype(float), cx, cy, cx * cx, cy * cy, cx * cy], axis=-1).sum(axis=2)  # [G, S, 6]
    if grouping == "item":
        per_segment = _difference_sums(moments[:, 0])  # [S, 3]: a segment's pairs
        value = float(_pooled_pearson(per_segment.sum(axis=0)))
    else:
        value = float(_pooled_pearson(_difference_sums(moments.sum(axis=1)).sum(axis=0)))
    if math.isnan(value):
        side = "metric" if not _difference_sums(moments.sum(axis=1))[..., 1].any() else "human"
        return undefined_result(f"pdp: constant {side} scores within every {unit}", pairs)
    result = Correlation(value, n=pairs)
    samples = None
    if weights is not None:
        w = np.asarray(weights, float)
        if grouping == "item":
            samples = _pooled_pearson(w @ per_segment)
        else:
            samples = _pooled_pearson(_difference_sums(np.einsum("bs,gsk->bgk", w, moments)).sum(axis=1))
    return with_samples(result, samples, ci)


def _rowwise(method: str, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """The correlation of each row pair of ``xs``, ``ys`` (``[n_samples, n_sys]``)."""
    if method == "spearman":
        import scipy.stats

        xs, ys = scipy.stats.rankdata(xs, axis=1), scipy.stats.rankdata(ys, axis=1)
    if method in ("pearson", "spearman"):
        xs, ys = power_of_two_scaled(xs, axis=1), power_of_two_scaled(ys, axis=1)  # scale-free, as the value
        xc = xs - xs.mean(1, keepdims=True)
        yc = ys - ys.mean(1, keepdims=True)
        vx, vy = (xc * xc).sum(1), (yc * yc).sum(1)
        with np.errstate(invalid="ignore", divide="ignore"):
            r = (xc * yc).sum(1) / np.sqrt(vx * vy)
        scale_x = np.maximum(np.abs(xs).max(1), 1.0) ** 2 * xs.shape[1]
        scale_y = np.maximum(np.abs(ys).max(1), 1.0) ** 2 * ys.shape[1]
        ok = (vx > CONSTANT_TOL * scale_x) & (vy > CONSTANT_TOL * scale_y)
        return np.where(ok, np.clip(r, -1.0, 1.0), np.nan)
    sx = np.sign(xs[:, :, None] - xs[:, None, :])
    sy = np.sign(ys[:, :, None] - ys[:, None, :])
    # tau-b is the Pearson of the pair signs: the pooled form of their summed products
    return _pooled_pearson(np.stack([(sx * sy).sum(axis=(1, 2)), np.abs(sx).sum(axis=(1, 2)), np.abs(sy).sum(axis=(1, 2))], axis=-1))


def system_correlation(
    metric: np.ndarray,
    human: np.ndarray,
    method: str = "spearman",
    *,
    metric_direction: int = 1,
    human_direction: int = 1,
    metric_samples: np.ndarray | None = None,
    human_samples: np.ndarray | None = None,
    ci: float = CI,
    draws: np.ndarray | None = None,
) -> Correlation:
    """System-level correlation between metric and human system scores (``[n_sys]`` each).

    ``metric_samples`` (``[n_samples, n_sys]``) are bootstrap system scores; the human side
    uses ``human_samples`` when given (derived from resampled segment judgments), else stays
    fixed (given system scores). ``draws`` (``[n_samples, n_sys]``, when systems are resampled):
    each sample is the correlation over the drawn systems, a system drawn twice counting twice
    (:mod:`metaeval.stats.resampling`).
    """
    check_method(method)
    check_direction("metric_direction", metric_direction)
    check_direction("human_direction", human_direction)
    x = np.asarray(metric, float) * metric_direction
    y = np.asarray(human, float) * human_direction
    if x.shape != y.shape or x.ndim != 1:
        raise UsageError(f"system score vectors differ: {x.shape} vs {y.shape}")
    if x.size < 2:
        return undefined_result(f"system-level {method} needs at least 2 systems, got {x.size}", int(x.size))
    result = correlate_vectors(x, y, method)
    samples = None
    if metric_samples is not None and result.defined:
        xs = np.asarray(metric_samples, float) * metric_direction
        ys = np.broadcast_to(y, xs.shape) if human_samples is None else np.asarray(human_samples, float) * human_direction
        if draws is not None:
            xs, ys = drawn(xs, draws), drawn(ys, draws)
        samples = _rowwise(method, xs, ys)
    return with_samples(result, samples, ci)


def average(results: list[Correlation], ci: float = CI) -> Correlation:
    """The mean of several correlations measured on the same data, e.g. Li et al.'s NIST'08
    table: the average of the fluency and the adequacy correlation. Bootstrap samples, when
    all are present, are averaged sample by sample (they must share the resamples)."""
    if not results:
        raise UsageError("average needs at least one correlation")
    bad = [r.undefined_reason for r in results if not r.defined]
    if bad:
        return undefined_result(f"an averaged statistic is undefined: {bad[0]}", min(r.n for r in results))
    value = float(np.mean([r.value for r in results]))
    samples = None
    if all(r.samples is not None for r in results):
        samples = np.mean(np.stack([r.samples for r in results]), axis=0)  # type: ignore[misc]
    return with_samples(Correlation(value, n=min(r.n for r in results)), samples, ci)


__all__ = ["CORRELATIONS", "MIN_ITEMS", "average", "averaged_p_value", "correlate_vectors", "pairwise_difference_pearson", "segment_correlation", "system_correlation"]
