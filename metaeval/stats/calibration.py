"""Tie calibration (Deutsch, Foster & Freitag 2023; mt-metrics-eval ``tau_optimization``): the
metric difference ``eps`` below which a pair counts as a metric tie, chosen to maximise acc23.

The search is exact and never builds an object per pair: one pass over blocks of the pair matrix
collects the differences of the pairs that calibration can turn correct (human tie, metric not
tied); their sorted distinct values are the only thresholds where the statistic can rise. A
second pass bins the concordant pairs (which it turns incorrect) into those thresholds with
``searchsorted``; a cumulative sum gives the statistic at every threshold at once. Memory: one
block of the pair matrix plus the human-tie pairs. Since ``tau23 = 2 acc23 - 1`` for every
group, ``acc_eq`` and ``tau_eq`` share their ``eps``; the smallest ``eps`` wins among equal
maxima, one ``eps`` for all groups.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from metaeval.stats.tallies import BLOCK, CON, TB, classify, pair_blocks, tallies

if TYPE_CHECKING:
    import scipy.sparse

#: Relative tolerance under which two values of the swept statistic count as equal maxima.
TIE_TOLERANCE = 1e-12


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
        first = np.argmax(curve >= (best_gain - TIE_TOLERANCE * scale)[:, None], axis=1)
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
    for g0, dx, dy, valid in pair_blocks(x, y):
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
    dense = np.bincount(g_up * k + np.searchsorted(thresholds, d_up), weights=per_pair[g_up], minlength=cells) if cells <= BLOCK else None
    parts = [] if dense is not None else [(g_up * k + np.searchsorted(thresholds, d_up), per_pair[g_up])]
    for g0, dx, dy, valid in pair_blocks(x, y):
        concordant = classify(dx, dy, valid, 0.0)[CON]
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



__all__ = ["Calibration", "calibrate"]
