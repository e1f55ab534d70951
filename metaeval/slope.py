"""The granularity curve in one number: how a statistic changes per doubling of the unit.

For every ranking of a sweep (dataset, judgment kind, level, statistic, grouping, tie policy)
and metric, over the granularities it was computed at (``x = log2`` of mean characters per
token, ``y`` the statistic):

- **slope**: the least-squares slope of ``y`` on ``x``, the change of the statistic per doubling
  of the unit (negative: agreement falls as units grow). Its 95% percentile interval and
  two-sided p-value come from the same least-squares fit in every bootstrap resample, which
  all points share (one set of segment resamples per run), so the interval carries the
  pairing of the points; the p-value is the paired bootstrap sign-flip fraction against a flat
  curve (:func:`metaeval.stats.significance.paired_bootstrap_test`, Koehn 2004);
- **quadratic**: ``y = a + b x + c x^2``; the curve's maximum over ``[min x, max x]`` is inside
  the range when ``c < 0`` and the vertex ``-b / 2c`` lies strictly between the ends.
  ``peak_chars_per_token`` is where the fitted maximum is (an end when it is not inside), its
  interval the percentiles of that place over the resamples, ``interior_share`` the fraction of
  resamples whose maximum is inside, and ``interior_maximum`` whether the full-sample maximum is
  inside and the curvature's interval lies below zero.

Resamples where a point's statistic is undefined are left out of the intervals.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from metaeval.stats.resampling import percentile_ci
from metaeval.stats.result import Correlation
from metaeval.stats.significance import paired_bootstrap_test

SLOPE_KEYS = ("dataset", "judgment_kind", "level", "statistic", "grouping", "tie_policy", "metric")
SLOPE_COLUMNS = SLOPE_KEYS + (
    "points", "slope", "slope_ci_low", "slope_ci_high", "p_value", "n_samples", "curvature", "curvature_ci_low",
    "curvature_ci_high", "peak_chars_per_token", "peak_ci_low", "peak_ci_high", "interior_share", "interior_maximum",
)  # fmt: skip


def argmax_on_range(coefficients: np.ndarray, low: float, high: float) -> tuple[np.ndarray, np.ndarray]:
    """Where each quadratic ``c x^2 + b x + a`` (columns of ``coefficients``, as ``np.polyfit``
    gives them: rows c, b, a) is highest on ``[low, high]``, and whether that place is inside."""
    c, b, a = np.atleast_2d(coefficients)
    with np.errstate(divide="ignore", invalid="ignore"):
        vertex = -b / (2.0 * c)
    inside = (c < 0) & (vertex > low) & (vertex < high)
    at_high = c * high**2 + b * high + a >= c * low**2 + b * low + a
    return np.where(inside, vertex, np.where(at_high, high, low)), inside


def curve_slopes(results: pd.DataFrame, samples: "np.ndarray | None", level: float = 0.95) -> pd.DataFrame:
    """One row per (ranking, metric) of ``results`` (a sweep's ResultTable with
    ``chars_per_token``) with at least two granularities; ``samples`` are the bootstrap samples of
    its rows (``evaluate(..., return_samples=True)``), or None for no intervals."""
    table = results.reset_index(drop=True)
    table = table[table["value"].notna() & (table["chars_per_token"] > 0)]
    rows = []
    for key, group in table.groupby(list(SLOPE_KEYS), sort=True, dropna=False):
        if group["chars_per_token"].nunique() < 2:
            continue
        rows.append(_slope_row(dict(zip(SLOPE_KEYS, key)), group, samples, level))
    return pd.DataFrame(rows, columns=list(SLOPE_COLUMNS))


def _slope_row(key: dict[str, Any], group: pd.DataFrame, samples: "np.ndarray | None", level: float) -> dict[str, Any]:
    x = np.log2(group["chars_per_token"].to_numpy(float))
    y = group["value"].to_numpy(float)
    row: dict[str, Any] = {c: math.nan for c in SLOPE_COLUMNS}
    row.update(key, points=len(x), n_samples=0, interior_maximum=False)
    row["slope"] = float(np.polyfit(x, y, 1)[0])
    quadratic = len(np.unique(x)) >= 3
    low, high = float(x.min()), float(x.max())
    if quadratic:
        coefficients = np.polyfit(x, y, 2)
        peak, inside = argmax_on_range(coefficients[:, None], low, high)
        row.update(curvature=float(coefficients[0]), peak_chars_per_token=float(2.0 ** peak[0]), interior_maximum=bool(inside[0]))
    if samples is None or samples.shape[1] == 0:
        return row
    drawn = np.asarray(samples[group.index.to_numpy()], float)  # [points, resamples]
    drawn = drawn[:, ~np.isnan(drawn).any(axis=0)]
    if drawn.shape[1] == 0:
        return row
    slopes = np.polyfit(x, drawn, 1)[0]
    test = paired_bootstrap_test(Correlation(row["slope"], samples=slopes), Correlation(0.0, samples=np.zeros_like(slopes)))
    row["slope_ci_low"], row["slope_ci_high"] = percentile_ci(slopes, level)
    row.update(p_value=test.p_value, n_samples=int(drawn.shape[1]))
    if quadratic:
        fits = np.polyfit(x, drawn, 2)
        peaks, inside_b = argmax_on_range(fits, low, high)
        row["curvature_ci_low"], row["curvature_ci_high"] = percentile_ci(fits[0], level)
        peak_low, peak_high = percentile_ci(peaks, level)
        row.update(peak_ci_low=float(2.0**peak_low), peak_ci_high=float(2.0**peak_high), interior_share=float(inside_b.mean()))
        row["interior_maximum"] = row["interior_maximum"] and row["curvature_ci_high"] < 0
    return row


def slope_sentence(row: "pd.Series | dict[str, Any]") -> str:
    """``falls by 0.012 per doubling of the unit [0.008, 0.016], p = 0.001`` (or ``rises``)."""
    slope, low, high = row["slope"], row["slope_ci_low"], row["slope_ci_high"]
    way = "falls" if slope < 0 else "rises"
    sign = -1.0 if slope < 0 else 1.0
    interval = "" if math.isnan(low) else f" [{min(sign * low, sign * high):.3f}, {max(sign * low, sign * high):.3f}]"
    p = "" if math.isnan(row["p_value"]) else f", p = {row['p_value']:.3g}"
    return f"{way} by {abs(slope):.3f} per doubling of the unit{interval}{p}"


__all__ = ["SLOPE_COLUMNS", "SLOPE_KEYS", "argmax_on_range", "curve_slopes", "slope_sentence"]
