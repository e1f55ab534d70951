"""Ranks and significance clusters of the configurations of each ranking of a ResultTable
(mt-metrics-eval ``AssignRanks``): configurations in one cluster do not differ significantly
(two-sided paired bootstrap on the run's shared resamples)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from metaeval.errors import UsageError
from metaeval.stats.result import Correlation
from metaeval.stats.significance import paired_bootstrap_test, significance_clusters


def ranking_keys(table: pd.DataFrame) -> pd.Series:
    """One text key per row naming its ranking (dataset, kind, level, statistic, grouping, tie policy)."""
    keys = ["dataset", "judgment_kind", "level", "statistic", "grouping", "tie_policy"]
    return table[keys].astype(str).agg("\x1f".join, axis=1)


def cluster_order(
    results: list[Correlation], alpha: float, bootstrap: bool = True
) -> tuple[list[int], np.ndarray, np.ndarray]:
    """Order (by value, best first; undefined left out), p-value matrix (paired bootstrap,
    or ones when ``bootstrap`` is False and the caller fills it) and cluster ranks."""
    order = sorted((i for i, r in enumerate(results) if r.defined), key=lambda i: -results[i].value)
    p = np.ones((len(order), len(order)))
    for a in range(len(order) if bootstrap else 0):
        for b in range(a + 1, len(order)):
            test = paired_bootstrap_test(results[order[a]], results[order[b]])
            p[a, b] = p[b, a] = test.p_value
    return order, p, np.array(significance_clusters(p, alpha), dtype=int)


def add_clusters(table: pd.DataFrame, results: list[Correlation], alpha: float) -> None:
    """Add the columns ``rank`` (competition rank by value) and ``cluster`` to ``table``, whose row
    ``i`` is ``results[i]``, per ranking."""
    table["rank"] = math.nan
    table["cluster"] = ""
    if not results:
        return
    if any(r.defined and r.samples is None for r in results):
        raise UsageError("significance clusters need bootstrap samples (n_bootstrap > 0)")
    for _, rows in table.groupby(ranking_keys(table), sort=False):
        index = list(rows.index)
        order, _, ranks = cluster_order([results[i] for i in index], alpha)
        values = np.array([results[index[i]].value for i in order])
        for position, local in enumerate(order):
            row = index[local]
            table.at[row, "rank"] = 1 + int(np.sum(values > values[position]))
            table.at[row, "cluster"] = str(ranks[position])


__all__ = ["add_clusters", "cluster_order", "ranking_keys"]
