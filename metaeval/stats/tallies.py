"""Pair tallies of the tie-aware Kendall variants (Deutsch, Foster & Freitag 2023, "Ties Matter";
mt-metrics-eval ``KendallVariants``).

For each pair of items of a group, with metric difference ``dm`` and human difference ``dh``,
the pair is concordant (C) or discordant (D) when neither side ties, tied in the metric only
(Tm: ``|dm| <= eps``), in the human scores only (Th), or in both (Tb). With
``N = C + D + Tm + Th + Tb``:

- ``kendall_b = (C - D) / sqrt((N - Tm - Tb) (N - Th - Tb))``
- ``kendall_c = 2 (C - D) / (n^2 (k - 1) / k)``, n items, k = fewer distinct values of the two sides
- ``kendall_23 = (C + Tb - D - Tm - Th) / N`` and ``kendall_acc23 = (C + Tb) / N`` (ties count:
  a pair tied by both is correct); ``tau_eq`` and ``acc_eq`` are the same at a calibrated ``eps``
  (:mod:`metaeval.stats.calibration`).

The pair matrix of a group is walked in blocks of at most :data:`BLOCK` elements, never held whole.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from metaeval.errors import UsageError

KENDALL_VARIANTS = ("kendall_b", "kendall_c", "kendall_23", "kendall_acc23")
CALIBRATED = ("acc_eq", "tau_eq")
SEGMENT_STATISTICS = KENDALL_VARIANTS + CALIBRATED
#: Upper bound on the elements of one block of the pair matrix.
BLOCK = 1 << 22
#: Tally columns.
CON, DIS, TM, TH, TB = range(5)


def pair_blocks(x: np.ndarray, y: np.ndarray) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
    """Blocks of the upper-triangle pair matrix of each group of ``x``/``y`` ``[G, m]``.

    Yields ``(first group, dx, dy, valid)``, arrays ``[g, i, m]`` with ``dx = x_i - x_j``;
    ``valid`` marks pairs ``j > i`` where neither side is NaN.
    """
    n_groups, m = x.shape
    if m * m <= BLOCK:
        g_step, i_step = max(1, BLOCK // max(1, m * m)), m
    else:
        g_step, i_step = 1, max(1, BLOCK // m)
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


def tie_masks(dx: np.ndarray, dy: np.ndarray, valid: np.ndarray, eps: float) -> tuple[np.ndarray, ...]:
    """Masks of a block at metric tie threshold ``eps``: metric tie (``|dx| <= eps``), human tie
    (``dy == 0``), neither side tied, and the two sides' signs agreeing."""
    with np.errstate(invalid="ignore"):
        metric_tie = valid & (np.abs(dx) <= eps)
        human_tie = valid & (dy == 0)
        both_differ = valid & ~metric_tie & ~human_tie
        agree = (dx > 0) == (dy > 0)
    return metric_tie, human_tie, both_differ, agree


def classify(dx: np.ndarray, dy: np.ndarray, valid: np.ndarray, eps: float) -> tuple[np.ndarray, ...]:
    """Masks (C, D, Tm, Th, Tb) of a block at metric tie threshold ``eps``."""
    metric_tie, human_tie, both_differ, agree = tie_masks(dx, dy, valid, eps)
    return both_differ & agree, both_differ & ~agree, metric_tie & ~human_tie, human_tie & ~metric_tie, metric_tie & human_tie


def tallies(x: np.ndarray, y: np.ndarray, eps: float = 0.0) -> np.ndarray:
    """Pair counts ``[G, 5]`` (C, D, Tm, Th, Tb) of every group of ``x``/``y`` ``[G, m]``."""
    out = np.zeros((x.shape[0], 5), dtype=np.int64)
    for g0, dx, dy, valid in pair_blocks(x, y):
        masks = classify(dx, dy, valid, eps)
        out[g0 : g0 + dx.shape[0]] += np.stack([k.sum(axis=(1, 2)) for k in masks], axis=1)
    return out


def classes(v: np.ndarray) -> np.ndarray:
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
            value = np.where(degenerate, np.nan, np.clip(value, -1.0, 1.0))  # |C - D| <= both roots: 1 + 1 ulp is rounding
        elif variant in ("kendall_23", "tau_eq"):
            value = (con + tb - dis - tm - th) / total
        elif variant in ("kendall_acc23", "acc_eq"):
            value = (con + tb) / total
        else:
            raise UsageError(f"unknown Kendall variant {variant!r}; known: {', '.join(SEGMENT_STATISTICS)}")
    return np.where(total > 0, value, np.nan)



__all__ = [
    "CALIBRATED", "CON", "DIS", "KENDALL_VARIANTS", "SEGMENT_STATISTICS", "TB", "TH", "TM", "classes", "classify",
    "pair_blocks", "tallies", "tie_masks", "variant_values",
]  # fmt: skip
