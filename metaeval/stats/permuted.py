"""Statistics of many permutations of the metric's scores at once: the faster functions that
registry entries name for their chance levels (:mod:`metaeval.stats.chance`). Each takes the
case, its :class:`~metaeval.stats.chance.Layout` and a block of permutations ``orders``
``[P, G, m]`` and gives the statistic of each permutation: the values that
:func:`metaeval.stats.chance.generic` computes one permutation at a time (tests check that both
agree), or None where it does not apply.

A permutation moves metric scores within a group, so whatever depends on a group's multiset of
metric scores is computed once: the sign and the size of the difference between every two of
its cells (a permuted pair of cells is a pair of the original cells), the ranks, means and sums
of squares of each group. Per permutation only what pairs a metric difference with a human
difference is counted, by gathering those precomputed differences.

- pairwise consistency and the Kendall-like tau: the pair counts (C, D, metric ties) of every
  permutation from the signs of the metric differences;
- Pearson and Spearman by segment, system or over all cells: only the cross products change;
  Kendall's tau-b by segment from the pair tallies;
- the tie-aware variants by segment (``kendall_b``, ``kendall_c``, ``kendall_23``,
  ``kendall_acc23``) from the tallies of every permutation, and ``acc_eq``/``tau_eq`` with tie
  calibration re-fitted on each permutation: the candidate thresholds of any permutation are
  sizes of differences within a segment, which the permutations share, so one grid of thresholds
  serves them all, and the calibration curve of each permutation is one weighted count over it
  (Deutsch, Foster & Freitag 2023; :mod:`metaeval.stats.calibration`, of which this is the
  same search);
- soft pairwise accuracy: the metric's p-values of every ordered pair of systems once, then
  each permutation of the systems reads them (human scores without gaps only).
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Callable

import numpy as np

from metaeval.stats.calibration import TIE_TOLERANCE
from metaeval.stats.correlations import correlate_vectors
from metaeval.stats.discordant import discordant_pairs
from metaeval.stats.grouping import average_groups, group_weights
from metaeval.stats.pairwise import apply_tie_policy, pairwise_value
from metaeval.stats.syspairs import permutation_p_values, permutation_signs
from metaeval.stats.weighted import power_of_two_scaled
from metaeval.stats.tallies import CALIBRATED, CON, DIS, TB, TH, TM, classes, variant_values

if TYPE_CHECKING:
    from metaeval.stats.case import Case
    from metaeval.stats.chance import Layout

#: Largest number of gathered pair cells (permutations x pairs) held at once.
PAIRS_BLOCK = 1 << 21
Values = Callable[["Case", "Layout", np.ndarray], "np.ndarray | None"]


def _key(orders: np.ndarray) -> tuple:
    """Identifies a block of the permutations a human side keeps (:func:`metaeval.stats.chance.orders_for`)."""
    return (orders.__array_interface__["data"][0], orders.shape)


def _pairs(valid: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(group, i, j)`` of every pair of valid cells ``i < j`` of a group, ordered by group."""
    i, j = np.triu_indices(valid.shape[1], 1)
    g, p = np.nonzero(valid[:, i] & valid[:, j])
    return g, i[p], j[p]


def _pair_index(case: Case, layout: Layout, orders: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The valid pairs ``(group, i, j)`` of ``layout`` and, ``[P, N]``, the flat index into a
    ``[G, m, m]`` table of the two original cells each permutation puts at each pair: the same
    for every configuration with these permutations, so kept with the human side."""

    def build() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        g, i, j = _pairs(layout.valid)
        m = orders.shape[2]
        flat = orders.reshape(len(orders), -1)
        dtype = np.int32 if layout.valid.size * m < 2**31 else np.int64
        index = np.empty((len(orders), len(g)), dtype=dtype)
        for rows in _sub_blocks(len(orders), len(g)):
            index[rows] = g * (m * m) + flat[rows][:, g * m + i].astype(dtype) * m + flat[rows][:, g * m + j]
        return g, i, j, index

    return case.human.shared(("chance pair index", _key(orders)), build)


def _signs(x: np.ndarray) -> np.ndarray:
    """``[G * m * m]``: the sign of ``x[g, a] - x[g, b]`` (0 where either is NaN), flat."""
    d = x[:, :, None] - x[:, None, :]
    return np.where(np.isnan(d), 0, np.sign(d)).astype(np.int8).ravel()


def _sub_blocks(n: int, width: int) -> list[slice]:
    step = max(1, PAIRS_BLOCK // max(1, width))
    return [slice(start, min(n, start + step)) for start in range(0, n, step)]


#: Pair kinds by ``3 (metric sign + 1) + human sign + 1`` (metric sign, human sign in -1, 0, 1;
#: tally classes of :mod:`metaeval.stats.tallies`).
_KIND = np.array([CON, TH, DIS, TM, TB, TM, DIS, TH, CON], dtype=np.int8)


def _codes(metric_signs: np.ndarray, index: np.ndarray, human_signs: np.ndarray) -> np.ndarray:
    """``[P, N]``: ``3 (metric sign + 1) + human sign + 1`` of each permuted pair (``metric_signs``
    from :func:`_signs`, ``human_signs`` per pair), which :data:`_KIND` turns into its tally class."""
    return (metric_signs + np.int8(1))[index] * np.int8(3) + (human_signs + np.int8(1))


def _kinds(metric_signs: np.ndarray, index: np.ndarray, human_signs: np.ndarray) -> np.ndarray:
    """``[P, N]``: the tally class of each permuted pair."""
    return _KIND[_codes(metric_signs, index, human_signs)]


# --------------------------------------------------------------------------- pairwise consistency


def _pair_counts(case: Case, layout: Layout, orders: np.ndarray) -> np.ndarray:
    """``[3, P]``: concordant, discordant and metric-tied pairs of each permutation (human ties
    and pairs within the threshold left out, as :func:`metaeval.stats.pairwise.pair_counts`)."""
    human = case.human
    assert human.groups is not None
    g, i, j, index = _pair_index(case, layout, orders)
    h = human.groups.T * human.direction
    dh = h[g, i] - h[g, j]
    compared = ~(np.abs(dh) <= (case.settings.threshold or 0.0))
    hs = np.where(compared, np.sign(dh), 0).astype(np.int8)
    signs = _signs(layout.rows * case.metric_direction)
    out = np.zeros((3, len(orders)))
    for rows in _sub_blocks(len(orders), len(g)):
        kind = _kinds(signs, index[rows], hs)
        out[0, rows] = (kind == CON).sum(axis=1)
        out[1, rows] = (kind == DIS).sum(axis=1)
        out[2, rows] = (kind == TM).sum(axis=1)  # a pair left out has human sign 0: never TM
    return out


def pairwise(statistic: str) -> Values:
    """Consistency or the Kendall-like tau of each permutation within the pair groups."""

    def values(case: Case, layout: Layout, orders: np.ndarray) -> np.ndarray | None:
        if layout.kind != "pairs":
            return None
        con, dis, ties = case.remembered(("chance pair counts", _key(orders)), lambda: _pair_counts(case, layout, orders))
        c, d = apply_tie_policy(con, dis, ties, case.settings.tie_policy)
        return pairwise_value(c, d, statistic)

    return values


# --------------------------------------------------------------------------- correlations


def _human_rows(case: Case, kind: str) -> np.ndarray:
    """The human scores in the layout of the metric's (segment-level groupings)."""
    y = case.human.seg
    assert y is not None
    return y.reshape(1, -1) if kind == "none" else y.T if kind == "item" else y


def _averaged(case: Case, per_group: np.ndarray, items: np.ndarray) -> np.ndarray:
    """``[P]``: the groups' values ``[P, G]`` averaged as every grouped statistic is."""
    weights = np.broadcast_to(group_weights(items, case.settings.average), per_group.shape)
    return average_groups(per_group, weights, case.settings.undefined)[0]


def correlation(method: str) -> Values:
    """Pearson or Spearman of each permutation within the groups of a segment-level grouping
    (Spearman: Pearson of the mid-ranks, which move with the scores); Kendall's tau-b by segment."""

    def values(case: Case, layout: Layout, orders: np.ndarray) -> np.ndarray | None:
        if case.level != "seg" or layout.kind not in ("none", "item", "sys"):
            return None
        if method == "kendall":  # scipy's tau-b is the tie-aware kendall_b
            return tie_aware("kendall_b")(case, layout, orders)
        x = np.where(layout.valid, layout.rows * case.metric_direction, np.nan)
        y = np.where(layout.valid, _human_rows(case, layout.kind) * case.human.direction, np.nan)
        defined = case.remembered(("chance defined", method, layout.kind), lambda: np.array(
            [correlate_vectors(a, b, method).defined for a, b in zip(x, y)]))  # fmt: skip
        if method == "spearman":
            import scipy.stats

            x = scipy.stats.rankdata(x, axis=1, nan_policy="omit")
            y = scipy.stats.rankdata(y, axis=1, nan_policy="omit")
        x, y = power_of_two_scaled(x, axis=1), power_of_two_scaled(y, axis=1)  # scale-free, as the value
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a group without a valid cell: its mean is NaN, its r undefined
            xc = np.where(layout.valid, x - np.nanmean(np.where(layout.valid, x, np.nan), axis=1, keepdims=True), 0.0)
            yc = np.where(layout.valid, y - np.nanmean(np.where(layout.valid, y, np.nan), axis=1, keepdims=True), 0.0)
        spread = np.sqrt((xc * xc).sum(axis=1) * (yc * yc).sum(axis=1))
        cross = np.einsum("pgm,gm->pg", np.take_along_axis(np.broadcast_to(xc, orders.shape), orders, axis=2), yc)
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.where(defined, np.clip(cross / spread, -1.0, 1.0), np.nan)
        return _averaged(case, r, layout.valid.sum(axis=1))

    return values


# --------------------------------------------------------------------------- tie-aware variants by segment


def tie_aware(statistic: str) -> Values:
    """A tie-aware variant by segment for each permutation; ``acc_eq``/``tau_eq`` calibrated on
    each permutation over the thresholds its segments' metric differences can take."""

    def values(case: Case, layout: Layout, orders: np.ndarray) -> np.ndarray | None:
        if layout.kind in ("none", "sys"):
            return pooled(statistic)(case, layout, orders)
        if case.level != "seg" or layout.kind != "item" or case.options.get("epsilon") is not None:
            return None
        x = layout.rows * case.metric_direction
        y = _human_rows(case, "item") * case.human.direction
        g, i, j, index = _pair_index(case, layout, orders)
        human_signs = np.sign(y[g, i] - y[g, j]).astype(np.int8)
        items = layout.valid.sum(axis=1)
        if statistic in CALIBRATED:
            acc = _calibrated(case, x, items, g, i, j, index, human_signs)
            return acc if statistic == "acc_eq" else 2.0 * acc - 1.0
        signs = _signs(x)
        distinct = np.minimum(classes(np.where(layout.valid, x, np.nan)), classes(np.where(layout.valid, y, np.nan)))
        n_groups = x.shape[0]
        out = np.empty(len(orders))
        for rows in _sub_blocks(len(orders), len(g)):
            kind = _kinds(signs, index[rows], human_signs)
            n = len(kind)
            cell = (np.arange(n)[:, None] * n_groups + g) * 5 + kind
            t = np.bincount(cell.ravel(), minlength=n * n_groups * 5).reshape(n, n_groups, 5)
            out[rows] = _averaged(case, variant_values(t, statistic, items, distinct), items)
        return out

    return values


#: Most pairs of cells within epsilon (but not equal) enumerated for the pooled variants, per
#: permutation block; beyond it the generic estimate is used.
CLOSE_PAIRS = 1 << 22


def _tied_pairs(codes: np.ndarray) -> np.ndarray:
    """Pairs of equal codes in each row of ``codes`` ``[P, n]`` (integers): with each row sorted,
    every code is tied with the equal codes before it, ``sum c (c - 1) / 2`` over the runs.

    Sorting costs ``O(P n log n)`` whatever the codes' range; counting with a table of every
    possible code (``bincount``) would cost ``P`` times that range, which for cells tied as
    (metric class, human class) is up to ``n^2`` (1.6 GB of int64 for 200 permutations of 1000 cells)."""
    n_rows, width = codes.shape
    if width == 0:
        return np.zeros(n_rows, dtype=np.int64)
    ordered = np.sort(codes, axis=1)
    position = np.arange(width, dtype=np.int64)
    starts = np.empty(ordered.shape, dtype=bool)
    starts[:, 0] = True
    np.not_equal(ordered[:, 1:], ordered[:, :-1], out=starts[:, 1:])
    run_start = np.maximum.accumulate(np.where(starts, position, 0), axis=1)
    return (position - run_start).sum(axis=1)


def _close_pairs(x: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The pairs ``(a, b)`` of cells with ``0 < |x_a - x_b| <= eps`` (None when there are more
    than :data:`CLOSE_PAIRS`)."""
    if eps <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    order = np.argsort(x, kind="stable")
    xs = x[order]
    first = np.searchsorted(xs, xs, side="right")  # after the cells equal to each
    # a window a little wider than eps, then the test the tallies make, |x_a - x_b| <= eps: the
    # calibrated eps is itself a difference of two scores, which x_a + eps need not reach exactly
    last = np.searchsorted(xs, xs + eps * (1 + 1e-9) + 1e-300, side="right")
    counts = last - first
    if counts.sum() > CLOSE_PAIRS:
        return None
    a = np.repeat(np.arange(len(xs)), counts)
    b = first[a] + (np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts))
    keep = np.abs(xs[a] - xs[b]) <= eps
    return order[a[keep]], order[b[keep]]


def _pooled_tallies(x: np.ndarray, y: np.ndarray, landing: np.ndarray, eps: float) -> np.ndarray | None:
    """``[P, 5]``: the pair tallies (C, D, Tm, Th, Tb at ``eps``) of one group of cells with
    metric ``x`` and human ``y`` ``[n]``, in each permutation that puts the score of cell ``a``
    at cell ``landing[p, a]`` ``[P, n]``; None when too many pairs lie within ``eps``.

    Only what pairs a metric difference with a human difference changes: Kendall's ``C - D`` over
    every pair (``N - T_x - T_y + T_xy - 2D``, :func:`~metaeval.stats.discordant.discordant_pairs`,
    O(n log n)), the pairs tied on both sides (equal metric scores landing on equal human scores),
    and the pairs within ``eps`` but not equal, enumerated once. The pairs tied by either side
    alone follow from the multisets of scores."""
    close = _close_pairs(x, eps)
    if close is None:
        return None
    n = len(x)
    total = n * (n - 1) // 2
    _, x_code, x_counts = np.unique(x, return_inverse=True, return_counts=True)
    y_values, y_code, y_counts = np.unique(y, return_inverse=True, return_counts=True)
    x_equal = int((x_counts * (x_counts - 1) // 2).sum())
    x_ties = x_equal + len(close[0])
    y_ties = int((y_counts * (y_counts - 1) // 2).sum())
    landed = y_code[landing]  # [P, n]: the human class of the cell each metric score lands on
    exactly_both = _tied_pairs(x_code[None, :] * len(y_values) + landed)
    # Kendall's C - D over every pair, y moved instead of x (the same pairs)
    signed = (total - x_equal - y_ties + exactly_both - 2 * discordant_pairs(x_code, landed)).astype(float)
    sign_x = np.sign(x[close[0]] - x[close[1]])
    near = np.sign(y[landing[:, close[0]]] - y[landing[:, close[1]]])
    both = exactly_both + (near == 0).sum(axis=1)
    signed -= (near * sign_x).sum(axis=1)  # C - D leaves out the pairs within eps
    untied = total - x_ties - y_ties + both
    out = np.empty((len(landing), 5))
    out[:, CON], out[:, DIS] = (untied + signed) / 2, (untied - signed) / 2
    out[:, TM], out[:, TH], out[:, TB] = x_ties - both, y_ties - both, both
    return out


def pooled(statistic: str) -> Values:
    """A tie-aware variant grouped over all cells (``none``) or by system (``sys``) for each
    permutation, from :func:`_pooled_tallies` (``acc_eq``/``tau_eq`` at the configuration's epsilon)."""

    def values(case: Case, layout: Layout, orders: np.ndarray) -> np.ndarray | None:
        eps = float(case.options.get("epsilon", 0.0) or 0.0) if statistic in CALIBRATED else 0.0
        if case.level != "seg" or layout.kind not in ("none", "sys") or (statistic in CALIBRATED and "epsilon" not in case.options):
            return None
        x = layout.rows * case.metric_direction
        y = _human_rows(case, layout.kind) * case.human.direction
        landing = np.argsort(orders, axis=2, kind="stable")  # where the score of each cell lands
        items = layout.valid.sum(axis=1)
        per_group = np.full((len(orders), x.shape[0]), math.nan)
        for g in np.flatnonzero(items >= 2):
            cells = np.flatnonzero(layout.valid[g])
            local = np.full(x.shape[1], -1)
            local[cells] = np.arange(len(cells))
            t = _pooled_tallies(x[g, cells], y[g, cells], local[landing[:, g, cells]], eps)
            if t is None:
                return None
            distinct = min(len(np.unique(x[g, cells])), len(np.unique(y[g, cells])))
            per_group[:, g] = variant_values(t, statistic, np.full(len(t), len(cells)), np.full(len(t), distinct))
        return per_group[:, 0] if layout.kind == "none" else _averaged(case, per_group, items)

    return values


#: Per code of :func:`_codes`: counted correct by acc23 (C, Tb), and the change once tie
#: calibration ties the pair (a human tie gained, a concordant pair lost).
_CORRECT = np.isin(_KIND, [CON, TB]).astype(np.float64)
_CHANGE = np.where(_KIND == TH, 1.0, np.where(_KIND == CON, -1.0, 0.0))


def _calibrated(case: Case, x: np.ndarray, items: np.ndarray, g: np.ndarray, i: np.ndarray, j: np.ndarray,
                index: np.ndarray, human_signs: np.ndarray) -> np.ndarray:  # fmt: skip
    """acc23 at the calibrated epsilon of each permutation (:class:`~metaeval.stats.calibration.Calibration`'s
    search): the curve of a permutation over every threshold a segment's metric difference can
    take, its maximum, the smallest threshold within :data:`TIE_TOLERANCE` of it."""
    weight = group_weights(items, case.settings.average)
    pairs = np.bincount(g, minlength=x.shape[0]).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_pair = (weight / pairs)[g]
    size = np.abs(x[:, :, None] - x[:, None, :])
    grid = np.unique(np.r_[0.0, size[g, i, j]])
    codes = np.searchsorted(grid, np.where(np.isnan(size), 0.0, size)).astype(np.int32).ravel()
    signs = _signs(x)
    k = len(grid)
    out = np.empty(len(index))
    for rows in _sub_blocks(len(index), max(len(g), k)):
        code = _codes(signs, index[rows], human_signs)
        n = len(code)
        base = _CORRECT[code] @ per_pair
        cell = np.arange(n, dtype=np.int64)[:, None] * k + codes[index[rows]]
        curve = np.bincount(cell.ravel(), weights=(_CHANGE[code] * per_pair).ravel(), minlength=n * k)
        curve = np.cumsum(curve.reshape(n, k), axis=1)
        curve[:, 0] = 0.0
        best = curve.max(axis=1)
        scale = np.maximum(np.abs(base) + np.abs(best), 1e-300)
        first = np.argmax(curve >= (best - TIE_TOLERANCE * scale)[:, None], axis=1)
        out[rows] = (base + curve[np.arange(n), first]) / weight.sum()
    return out


# --------------------------------------------------------------------------- soft pairwise accuracy


def soft_pairwise(case: Case, layout: Layout, orders: np.ndarray) -> np.ndarray | None:
    """Soft pairwise accuracy of each permutation of the systems: the metric's one-sided p-value of
    every ordered pair of systems once (:func:`~metaeval.stats.syspairs.permutation_p_values`),
    read at the permuted pairs. Human scores with gaps change which segments a pair compares
    when the systems move: None then."""
    human, settings = case.human, case.settings
    if layout.kind != "rows" or human.seg is None or np.isnan(human.seg).any():
        return None
    assert case.seg_scores is not None
    signs = permutation_signs(human, settings.permutations, settings.permutation_seed)
    y = human.seg * human.direction
    p_human = human.shared(("chance spa p", settings.permutations, settings.permutation_seed),
                           lambda: permutation_p_values(y, signs))  # fmt: skip
    n = y.shape[0]
    i, j = np.triu_indices(n, 1)
    beats, beaten = permutation_p_values(case.seg_scores * case.metric_direction, signs, both=True)
    p = np.full((n, n), math.nan)
    p[i, j], p[j, i] = beats, beaten
    moved = orders[:, 0, :]
    return 1.0 - np.abs(p_human - p[moved[:, i], moved[:, j]]).mean(axis=1)


__all__ = ["CLOSE_PAIRS", "PAIRS_BLOCK", "correlation", "pairwise", "pooled", "soft_pairwise", "tie_aware"]
