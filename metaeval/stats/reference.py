"""Tie-free references: what a metric with no ties and no information would get, from the human
side alone. Each statistic of the registry names its reference function, which takes the
:class:`~metaeval.stats.case.Case` the statistic is computed from (the human side, the grouping
and the settings). Reports give it once per statistic and human score, beside the chance levels
of :mod:`metaeval.stats.chance`, which keep each configuration's own ties (docs/design.md,
"Chance levels"):

- correlations, Kendall tau-b and tau-c, the Kendall-like tau, pairwise-difference Pearson: 0;
- pairwise consistency (human and metric ties left out): 1/2;
- ``kendall_acc23``, ``acc_eq``: a pair the humans order is correct half of the time, a pair they
  tie never: ``(1 - t) / 2``, ``t`` the share of human-tied pairs of each group, averaged over
  the groups as the statistic averages them; ``kendall_23``, ``tau_eq``: ``-t``. A metric that
  ties pairs of its own gets ``t_m t + (1 - t_m)(1 - t) / 2`` instead (``t_m`` its share of
  tied pairs), and tie calibration lets a random metric turn its smallest differences into ties,
  so its ``acc_eq`` lies a little above this reference;
- pairwise accuracy: ``(1 - t) / 2`` over system pairs;
- soft pairwise accuracy: a random metric's one-sided permutation p-value is uniform, so a pair
  with human p-value ``p`` contributes ``1 - (p^2 + (1 - p)^2) / 2``, averaged over the pairs.
"""

from __future__ import annotations

import math

import numpy as np

from metaeval.stats.case import Case
from metaeval.stats.grouping import average_groups, group_weights, grouped
from metaeval.stats.syspairs import permutation_p_values, permutation_signs


def zero(case: Case | None = None) -> float:
    """The tie-free reference of a correlation: 0."""
    return 0.0


def half(case: Case | None = None) -> float:
    """The tie-free reference of an accuracy over pairs without ties: 1/2."""
    return 0.5


def tied_share(values: np.ndarray) -> tuple[float, int]:
    """The share of the pairs of ``values`` (NaN left out) that are ties, and the number of
    values (NaN share without a pair)."""
    values = np.asarray(values, float)
    values = values[~np.isnan(values)]
    n = values.size
    if n < 2:
        return math.nan, n
    _, counts = np.unique(values, return_counts=True)
    return float((counts * (counts - 1)).sum() / (n * (n - 1))), n


def _human_tie_share(case: Case) -> float:
    """The share of human-tied pairs per group of ``case``'s grouping, averaged as grouped statistics are."""
    assert case.human.seg is not None
    groups = grouped(case.human.seg, case.human.seg, case.grouping)[1]
    shares, items = zip(*(tied_share(g) for g in groups))
    weights = group_weights(np.array(items), case.settings.average)
    return float(average_groups(np.array(shares, dtype=float), weights, "skip")[0])


def accuracy_with_ties(case: Case | None) -> float:
    """``(1 - t) / 2`` for acc23 and ``acc_eq`` (NaN without a human side)."""
    return math.nan if case is None else (1.0 - _human_tie_share(case)) / 2.0


def tau_with_ties(case: Case | None) -> float:
    """``-t`` for tau23 and ``tau_eq`` (NaN without a human side)."""
    return math.nan if case is None else -_human_tie_share(case)


def system_pairwise_accuracy(case: Case | None) -> float:
    """``(1 - t) / 2`` over the system pairs (NaN without system-level human scores)."""
    if case is None or case.human.sys is None:
        return math.nan
    return (1.0 - tied_share(case.human.sys)[0]) / 2.0


def soft_pairwise_accuracy(case: Case | None, signs: np.ndarray | None = None) -> float:
    """``1 - mean (p^2 + (1 - p)^2) / 2`` over the human p-values ``p`` of the system pairs
    (``signs``: the permutations, default those the statistic uses)."""
    if case is None or case.human.seg is None:
        return math.nan
    if signs is None:
        signs = permutation_signs(case.human, case.settings.permutations, case.settings.permutation_seed)
    p = permutation_p_values(case.human.seg * case.human.direction, signs)
    return 1.0 - float(np.mean((p**2 + (1.0 - p) ** 2) / 2.0)) if p.size else math.nan


__all__ = ["accuracy_with_ties", "half", "soft_pairwise_accuracy", "system_pairwise_accuracy", "tau_with_ties", "tied_share", "zero"]
