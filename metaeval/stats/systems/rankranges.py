"""Rank ranges and significance clusters of systems, by the procedure of the WMT24 findings.

WMT24's ``humeval`` code (wmt-conference/wmt24-news-systems, commit 71cc027:
``tools.get_ranks`` and the loop in ``calculate_clusters.py``), given which systems beat which
significantly (``beats[i, j]``: system i is significantly better than system j at level alpha):

- the **rank range** of a system is ``[1 + losses, n - wins]``: the best place no system above it
  significantly disputes, and the worst place no system below it does (``losses``: systems
  significantly better than it; ``wins``: systems significantly worse);
- **clusters**: walking down the systems sorted by score, a system starts a new cluster when
  its place is beyond the worst rank of every system above it; so a cluster ends where no system
  above the line can still be ranked below it.

WMT sorts by score with pandas' average ranks; here ties in score keep the order given (the
callers give a stable order), so places are 1..n.

Many comparisons (docs/design.md, "Many comparisons"): a ranking's pairs of systems are one
family, and their p-values are adjusted together (:func:`adjusted_pairs`; Holm by default)
before ``beats`` is formed. A two-sided test gives one p-value per pair, ``n (n - 1) / 2`` in
the family; a one-sided test (WMT24's Wilcoxon) tests each pair in both directions, so its
family holds the ``n (n - 1)`` ordered tests. WMT24 compared the raw p-values with alpha
(``adjust="none"``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metaeval.errors import UsageError
from metaeval.stats.adjust import adjust_p_values, adjust_pair_matrix


@dataclass(frozen=True)
class RankRanges:
    """Per system (in input order): best and worst rank, and cluster (1 = top)."""

    low: np.ndarray
    high: np.ndarray
    cluster: np.ndarray


def adjusted_pairs(p: np.ndarray, method: str, two_sided: bool) -> np.ndarray:
    """The p-value matrix ``p`` (``p[i, j]``: i better than j) adjusted by ``method`` over the
    ranking's pairs (module docstring): a symmetric, two-sided matrix over its ``n (n - 1) / 2``
    pairs, a one-sided one over its ``n (n - 1)`` ordered entries; ones on the diagonal."""
    p = np.asarray(p, dtype=float)
    if p.ndim != 2 or p.shape[0] != p.shape[1]:
        raise UsageError(f"p-value matrix must be square, got shape {p.shape}")
    if two_sided:
        return adjust_pair_matrix(p, method)
    off = ~np.eye(p.shape[0], dtype=bool)
    out = np.ones_like(p)
    out[off] = adjust_p_values(p[off], method)
    return out


def resamples_needed(n_systems: int, alpha: float) -> int:
    """The fewest resamples B with which Holm's adjustment over the ``n (n - 1) / 2`` pairs of a
    two-sided bootstrap test can call a pair significant: the smallest bootstrap p-value is
    ``1 / (B + 1)`` (sacrebleu's), and Holm multiplies the smallest of the family by its size,
    so B must satisfy ``n (n - 1) / 2 / (B + 1) < alpha``."""
    pairs = n_systems * (n_systems - 1) // 2
    b = max(int(pairs / alpha) - 2, 1)
    while pairs / (b + 1) >= alpha:
        b += 1
    return b


def beats_one_sided(p: np.ndarray, alpha: float) -> np.ndarray:
    """``beats[i, j]`` from one-sided p-values ``p[i, j]`` (i better than j): ``p < alpha``."""
    p = np.asarray(p, dtype=float)
    with np.errstate(invalid="ignore"):
        beats = p < alpha
    np.fill_diagonal(beats, False)
    return beats


def beats_two_sided(p: np.ndarray, scores: np.ndarray, alpha: float) -> np.ndarray:
    """``beats[i, j]`` from a symmetric p-value matrix: i scores higher than j and ``p < alpha``."""
    scores = np.asarray(scores, dtype=float)
    with np.errstate(invalid="ignore"):
        return (scores[:, None] > scores[None, :]) & beats_one_sided(p, alpha)


def order_by_score(scores: np.ndarray) -> np.ndarray:
    """Indices from the highest score to the lowest (NaN last), ties in input order."""
    scores = np.asarray(scores, dtype=float)
    return np.argsort(np.where(np.isnan(scores), np.inf, -scores), kind="stable")


def rank_ranges(scores: np.ndarray, beats: np.ndarray) -> RankRanges:
    """WMT24's rank ranges and clusters (module docstring); ``scores``: higher is better."""
    beats = np.asarray(beats, dtype=bool)
    scores = np.asarray(scores, dtype=float)
    n = scores.size
    if beats.shape != (n, n):
        raise UsageError(f"beats must be a square matrix over the {n} systems, got shape {beats.shape}")
    wins, losses = beats.sum(axis=1), beats.sum(axis=0)
    low, high = losses + 1, n - wins
    return RankRanges(low=low.astype(int), high=high.astype(int), cluster=walk_clusters(scores, high))


def walk_clusters(scores: np.ndarray, worst: np.ndarray) -> np.ndarray:
    """Cluster of each system (input order) from its worst rank: walking down by score, a
    new cluster starts at a place beyond the worst rank of every system above it."""
    worst = np.asarray(worst)
    cluster = np.zeros(worst.size, dtype=int)
    current, cutoff = 1, 1
    for place, system in enumerate(order_by_score(scores), start=1):
        if place > cutoff:
            current += 1
        cluster[system] = current
        cutoff = max(cutoff, int(worst[system]))
    return cluster


__all__ = ["RankRanges", "adjusted_pairs", "resamples_needed", "beats_one_sided", "beats_two_sided", "order_by_score", "rank_ranges", "walk_clusters"]
