"""Correlations of resampled data in closed form: Pearson, Spearman and Kendall tau-b of every
bootstrap resample at once.

``x``, ``y`` are ``[n_blocks, m]`` (a block is a segment and its items; NaN = missing item,
dropped with its pair) and ``weights`` ``[n_samples, n_blocks]`` the number of times each block
is drawn in each sample. Sample ``b`` is the correlation of the data with block ``k`` repeated
``weights[b, k]`` times, computed from per-block sums (Pearson), mid-ranks in the resampled
multiset (Spearman) or block-pair sign sums (Kendall), never by rebuilding the resample.
"""

from __future__ import annotations

from typing import Callable, TypeVar

import numpy as np

_T = TypeVar("_T")
#: Relative variance below which a vector counts as constant.
CONSTANT_TOL = 1e-12
#: Upper bound on the elements of one broadcast block in the Kendall pair matrices.
CHUNK_ELEMENTS = 1 << 22


def power_of_two_scaled(v: np.ndarray, axis: int | None = None) -> np.ndarray:
    """``v`` times the power of two that brings its largest magnitude (NaN left out; per slice
    along ``axis`` when given) into [0.5, 1). Statistics that do not depend on the unit of the
    scores compute on these values, so that products of scores of 1e300 do not overflow and
    those of 1e-300 do not vanish; a power of two changes no digit of a result, so scores
    already near 1 give the same bits as unscaled."""
    v = np.asarray(v, float)
    with np.errstate(invalid="ignore"):
        top = np.nanmax(np.abs(v), axis=axis, keepdims=True, initial=0.0, where=~np.isnan(v))
    exponent = np.frexp(np.where(np.isfinite(top) & (top > 0), top, 1.0))[1]
    return np.ldexp(v, -exponent)


def _center(v: np.ndarray) -> np.ndarray:
    return v - np.nanmean(v) if np.any(~np.isnan(v)) else v


def pearson_from_sums(n, sx, sy, sxx, syy, sxy) -> np.ndarray:  # noqa: ANN001
    """Pearson r from the item count and the sums of x, y, x^2, y^2 and xy (arrays of any shape);
    NaN where fewer than two items or a side is constant."""
    vx = n * sxx - sx * sx
    vy = n * syy - sy * sy
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (n * sxy - sx * sy) / np.sqrt(vx * vy)
        ok = (n >= 2) & (vx > CONSTANT_TOL * n * sxx) & (vy > CONSTANT_TOL * n * syy)
    return np.where(ok, np.clip(r, -1.0, 1.0), np.nan)


def weighted_pearson(x: np.ndarray, y: np.ndarray, weights: np.ndarray, *, cache: dict | None = None) -> np.ndarray:
    """Pearson r for each weighting of blocks (segments).

    ``x``, ``y``: shape ``(n_blocks, m)`` (NaN = missing item, dropped with its pair);
    ``weights``: ``(n_samples, n_blocks)``. Sample ``b`` is the Pearson r of the data with
    block ``k`` repeated ``weights[b, k]`` times, from per-block sums. ``cache`` is
    accepted for symmetry with the rank correlations and not needed.
    """
    x, y = _center(power_of_two_scaled(x)), _center(power_of_two_scaled(y))
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = np.where(keep, x, 0.0), np.where(keep, y, 0.0)
    sums = np.stack([keep.sum(1), x.sum(1), y.sum(1), (x * x).sum(1), (y * y).sum(1), (x * y).sum(1)], axis=1)
    return pearson_from_sums(*(weights @ sums).T)


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
    step = max(1, CHUNK_ELEMENTS // 8 // max(1, weights_t.shape[0]))
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
        out[lo : lo + step] = pearson_from_sums(*sums)
    return out


def _sign_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``sgn(a - b)`` broadcast, as int8, 0 where either side is NaN."""
    return (a > b).view(np.int8) - (a < b).view(np.int8)


def _block_signs(v: np.ndarray) -> list[np.ndarray]:
    """``sgn(v[a, i] - v[b, j])`` as int8 ``[a, i, b, j]``, in chunks of blocks ``a``."""
    n_blocks, m = v.shape
    step = max(1, CHUNK_ELEMENTS // max(1, m * m * n_blocks))
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


__all__ = ["CONSTANT_TOL", "WEIGHTED", "pearson_from_sums", "power_of_two_scaled", "weighted_kendall", "weighted_pearson", "weighted_spearman"]
