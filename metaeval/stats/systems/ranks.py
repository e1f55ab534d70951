"""Ranks of systems, how far a metric moves each from its human rank, and which pairs it
orders against the humans.

All scores here are oriented so that higher is better (negate TER or ranks first).

- **rank**: standard competition rank, ``1 + the number of systems with a strictly higher
  score`` (1, 2, 2, 4); an undefined score has no rank;
- **displacement**: metric rank minus human rank; positive when the metric places the system
  lower than the humans do;
- **inverted pair**: two systems the humans order strictly (different human scores) and the
  metric orders strictly the other way. A pair the metric ties is not inverted but counted
  apart (``metric_ties``), and a pair the humans tie is not counted at all, as in Kendall's tau.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def competition_ranks(scores: np.ndarray) -> np.ndarray:
    """Standard competition ranks (1 = best) of higher-is-better ``scores``; NaN stays NaN."""
    scores = np.asarray(scores, dtype=float)
    defined = ~np.isnan(scores)
    ranks = np.full(scores.shape, np.nan)
    ranks[defined] = 1 + (scores[defined][None, :] > scores[defined][:, None]).sum(axis=1)
    return ranks


def displacement(metric_ranks: np.ndarray, human_ranks: np.ndarray) -> np.ndarray:
    """Metric rank minus human rank, per system."""
    return np.asarray(metric_ranks, dtype=float) - np.asarray(human_ranks, dtype=float)


@dataclass(frozen=True)
class PairOrder:
    """How a metric orders the pairs of systems the humans order.

    Attributes:
        ordered: pairs with different human scores.
        inverted: ``(better by the humans, better by the metric)`` index pairs, humans' order.
        metric_ties: human-ordered pairs the metric scores equal.
    """

    ordered: int
    inverted: tuple[tuple[int, int], ...]
    metric_ties: int


def pair_order(human: np.ndarray, metric: np.ndarray) -> PairOrder:
    """The pairs ``metric`` orders against ``human`` (both higher is better); pairs with an
    undefined score on either side are left out. Inverted pairs are listed by the humans'
    order of the better system, then of the worse one."""
    human = np.asarray(human, dtype=float)
    metric = np.asarray(metric, dtype=float)
    order = np.argsort(-np.where(np.isnan(human), -np.inf, human), kind="stable")
    ordered, ties, inverted = 0, 0, []
    for a, i in enumerate(order):
        for j in order[a + 1 :]:
            if np.isnan(human[i]) or np.isnan(human[j]) or np.isnan(metric[i]) or np.isnan(metric[j]):
                continue
            if human[i] == human[j]:
                continue
            ordered += 1
            if metric[i] == metric[j]:
                ties += 1
            elif metric[j] > metric[i]:
                inverted.append((int(i), int(j)))
    return PairOrder(ordered=ordered, inverted=tuple(inverted), metric_ties=ties)


__all__ = ["PairOrder", "competition_ranks", "displacement", "pair_order"]
