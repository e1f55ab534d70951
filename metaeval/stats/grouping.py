"""Groupings of segment-level statistics and how grouped values are averaged.

A segment-level statistic sees a metric and a human matrix ``[n_sys, n_seg]`` (NaN = unjudged).
Grouping ``none`` pools every (system, segment) item into one group; ``item`` takes one group per
segment (its systems); ``sys`` one per system (its segments), as mt-metrics-eval's
``average_by``. A grouped statistic is the mean over groups of its value in each group
(``AverageCorrelation``): every group with at least two items counts once (``macro``) or by its
number of items (``micro``, mt-metrics-eval ``macro=False``); a group where the statistic is
undefined is left out (``undefined="skip"``) or counts as 0 (``"zero"``,
``replace_nans_with_zeros``). Statistics that pool their groups (pairwise-difference Pearson)
take no averaging.
"""

from __future__ import annotations

import numpy as np

GROUPINGS = ("none", "item", "sys")
AVERAGES = ("macro", "micro")
UNDEFINED_POLICIES = ("skip", "zero")
#: The unit of a group, for messages and notes.
UNITS = {"none": "pool", "item": "segment", "sys": "system"}


def grouped(metric: np.ndarray, human: np.ndarray, grouping: str) -> tuple[np.ndarray, np.ndarray]:
    """``[n_groups, m]`` views of two ``[n_sys, n_seg]`` matrices for ``grouping``."""
    if grouping == "none":
        return metric.reshape(1, -1), human.reshape(1, -1)
    if grouping == "item":
        return metric.T, human.T
    return metric, human


def group_weights(items: np.ndarray, average: str) -> np.ndarray:
    """Weight of each group in the mean: 1 (``macro``) or its number of items (``micro``), and 0
    for a group with fewer than two items, which has no pair and no value."""
    items = np.asarray(items)
    return np.where(items >= 2, 1.0 if average == "macro" else items.astype(float), 0.0)


def average_groups(values: np.ndarray, weights: np.ndarray, undefined: str) -> tuple[np.ndarray, np.ndarray]:
    """Weighted mean of ``values`` over the last axis, NaN values left out (``skip``) or counted
    as 0 (``zero``); returns the mean (NaN where no weight is left) and the total weight used."""
    values = np.asarray(values, float)
    defined = ~np.isnan(values)
    w = weights if undefined == "zero" else np.where(defined, weights, 0.0)
    total = w.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (np.where(defined, values, 0.0) * w).sum(axis=-1) / total
    return np.where(total > 0, mean, np.nan), total


def undefined_note(count: int, grouping: str, undefined: str) -> str:
    """The note of a grouped value some of whose groups are undefined."""
    unit = "segments" if grouping == "item" else "systems"
    return f"{count} {unit} skipped (undefined)" if undefined == "skip" else f"{count} {unit} undefined, counted as 0"


__all__ = ["AVERAGES", "GROUPINGS", "UNDEFINED_POLICIES", "UNITS", "average_groups", "group_weights", "grouped", "undefined_note"]
