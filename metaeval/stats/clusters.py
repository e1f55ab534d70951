"""Ranks and significance clusters of the configurations of each ranking of a ResultTable
(mt-metrics-eval ``AssignRanks``): configurations in one cluster do not differ significantly
(two-sided paired bootstrap on the run's shared resamples).

The pairs of configurations of one ranking are one family: their p-values are adjusted together
(:mod:`metaeval.stats.adjust`, Holm by default) before the clusters are formed. The walk down the
ranking consults the pairs the observed order picks; an adjustment over every pair covers
whichever it picks, so the clusters need no further correction for the order being chosen on
the same data."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from metaeval.errors import UsageError
from metaeval.stats.adjust import adjust_pair_matrix
from metaeval.stats.defaults import ADJUST
from metaeval.stats.result import Correlation
from metaeval.stats.significance import paired_bootstrap_test, significance_clusters


def ranking_keys(table: pd.DataFrame) -> pd.Series:
    """One text key per row naming its ranking (dataset, kind, level, statistic, grouping, tie policy)."""
    keys = ["dataset", "judgment_kind", "level", "statistic", "grouping", "tie_policy"]
    return table[keys].astype(str).agg("\x1f".join, axis=1)


def cluster_order(
    results: list[Correlation], alpha: float, bootstrap: bool = True, adjust: str = ADJUST
) -> tuple[list[int], np.ndarray, np.ndarray]:
    """Order (by value, best first; undefined left out), raw p-value matrix (paired bootstrap,
    or ones when ``bootstrap`` is False and the caller fills it and calls :func:`ranks_of`) and
    cluster ranks from the p-values adjusted over every pair (``adjust``)."""
    order = sorted((i for i, r in enumerate(results) if r.defined), key=lambda i: -results[i].value)
    p = np.ones((len(order), len(order)))
    for a in range(len(order) if bootstrap else 0):
        for b in range(a + 1, len(order)):
            test = paired_bootstrap_test(results[order[a]], results[order[b]])
            p[a, b] = p[b, a] = test.p_value
    return order, p, ranks_of(p, alpha, adjust)


def ranks_of(p_values: np.ndarray, alpha: float, adjust: str = ADJUST) -> np.ndarray:
    """Cluster ranks of configurations sorted best first, from their raw pairwise p-values
    adjusted over the family of every pair (:func:`~metaeval.stats.adjust.adjust_pair_matrix`)."""
    return np.array(significance_clusters(adjust_pair_matrix(p_values, adjust), alpha), dtype=int)


def add_clusters(table: pd.DataFrame, results: list[Correlation], alpha: float, adjust: str = ADJUST) -> None:
    """Add the columns ``rank`` (competition rank by value) and ``cluster`` to ``table``, whose row
    ``i`` is ``results[i]``, per ranking (each ranking's pairs one family, ``adjust``)."""
    table["rank"] = math.nan
    table["cluster"] = ""
    if not results:
        return
    if any(r.defined and r.samples is None for r in results):
        raise UsageError("significance clusters need bootstrap samples (n_bootstrap > 0)")
    for _, rows in table.groupby(ranking_keys(table), sort=False):
        index = list(rows.index)
        order, _, ranks = cluster_order([results[i] for i in index], alpha, adjust=adjust)
        values = np.array([results[index[i]].value for i in order])
        for position, local in enumerate(order):
            row = index[local]
            table.at[row, "rank"] = 1 + int(np.sum(values > values[position]))
            table.at[row, "cluster"] = str(ranks[position])


__all__ = ["add_clusters", "cluster_order", "ranking_keys", "ranks_of"]
