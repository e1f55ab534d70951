"""The slope of a granularity curve: least squares by hand, the interval and p from the shared
resamples, and the quadratic's maximum, on synthetic sweeps whose slope and peak are known."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from metaeval.slope import argmax_on_range, curve_slopes, slope_sentence

#: Bytes, characters, two subword sizes, words (mean characters per token).
POINTS = (0.36, 1.0, 1.2, 1.5, 1.8)


def synthetic(values_of_x, n_samples: int = 400, noise: float = 0.004, seed: int = 7) -> tuple[pd.DataFrame, np.ndarray]:
    """A one-metric sweep: value = f(log2 chars per token); each resample shifts every point by a
    shared draw (what the paired resamples share) plus a small draw of its own."""
    rng = np.random.default_rng(seed)
    x = np.log2(POINTS)
    values = np.array([values_of_x(v) for v in x])
    shared = rng.normal(0, 0.02, n_samples)
    samples = values[:, None] + shared[None, :] + rng.normal(0, noise, (len(x), n_samples))
    table = pd.DataFrame({
        "dataset": "synthetic", "judgment_kind": "z", "level": "seg", "statistic": "consistency", "grouping": "none",
        "tie_policy": "", "metric": "bleu", "segmenter": [f"g{i}" for i in range(len(x))], "chars_per_token": POINTS,
        "value": values,
    })  # fmt: skip
    return table, samples


def test_a_linear_curve_has_its_slope_and_an_interval_around_it() -> None:
    table, samples = synthetic(lambda x: 0.55 - 0.02 * x)
    row = curve_slopes(table, samples).iloc[0]
    assert row["points"] == 5 and row["slope"] == pytest.approx(-0.02, abs=1e-12)
    # least squares by hand on each resample: cov(x, y) / var(x)
    x = np.log2(POINTS)
    by_hand = ((x - x.mean())[:, None] * (samples - samples.mean(0))).sum(0) / ((x - x.mean()) ** 2).sum()
    low, high = np.quantile(by_hand, [0.025, 0.975])
    assert (row["slope_ci_low"], row["slope_ci_high"]) == pytest.approx((low, high), abs=1e-12)
    assert row["slope_ci_low"] < -0.02 < row["slope_ci_high"] < 0
    # two-sided sign-flip fraction: twice the share of resampled slopes at or above zero
    assert row["p_value"] == pytest.approx(min(1.0, 2 * np.mean(by_hand >= -1e-12)))
    assert row["p_value"] < 0.01 and row["n_samples"] == 400
    # a straight line has no curvature worth the name and its maximum at the byte end
    assert row["curvature"] == pytest.approx(0.0, abs=1e-12) and not row["interior_maximum"]
    assert row["peak_chars_per_token"] == pytest.approx(0.36)
    assert slope_sentence(row).startswith("falls by 0.020 per doubling of the unit [")


def test_a_flat_noisy_curve_has_no_significant_slope() -> None:
    table, samples = synthetic(lambda x: 0.5, noise=0.01)
    row = curve_slopes(table, samples).iloc[0]
    assert row["slope"] == pytest.approx(0.0, abs=1e-12)
    assert row["slope_ci_low"] < 0 < row["slope_ci_high"] and row["p_value"] == 1.0


def test_a_curve_with_a_peak_inside_the_range() -> None:
    peak = 0.3  # log2 of 1.23 characters per token
    table, samples = synthetic(lambda x: 0.55 - 0.05 * (x - peak) ** 2, noise=0.002)
    row = curve_slopes(table, samples).iloc[0]
    assert row["curvature"] == pytest.approx(-0.05, abs=1e-12)
    assert row["peak_chars_per_token"] == pytest.approx(2**peak, abs=1e-9)
    assert row["interior_maximum"] and row["curvature_ci_high"] < 0
    assert row["peak_ci_low"] < 2**peak < row["peak_ci_high"] and 0.36 < row["peak_ci_low"] and row["peak_ci_high"] < 1.8
    assert row["interior_share"] > 0.9


def test_the_maximum_of_a_quadratic_on_a_range_by_hand() -> None:
    # -(x-1)^2 peaks at 1 inside [0, 3]; x^2 is highest at 3; -(x-5)^2 at 3; x^2 - 4x on [0, 3] at 0
    coefficients = np.array([[-1.0, 1.0, -1.0, 1.0], [2.0, 0.0, 10.0, -4.0], [-1.0, 0.0, -25.0, 0.0]])
    where, inside = argmax_on_range(coefficients, 0.0, 3.0)
    assert where.tolist() == [1.0, 3.0, 3.0, 0.0] and inside.tolist() == [True, False, False, False]


def test_undefined_points_resamples_and_single_points() -> None:
    table, samples = synthetic(lambda x: 0.55 - 0.02 * x, n_samples=50)
    samples[2, :10] = np.nan  # ten resamples where one point is undefined are left out
    alone = table.iloc[:1].assign(metric="gtm")
    rows = curve_slopes(pd.concat([table, alone], ignore_index=True), np.vstack([samples, samples[:1]]))
    assert rows["metric"].tolist() == ["bleu"] and rows["n_samples"].iloc[0] == 40
    without = curve_slopes(table, None).iloc[0]
    assert without["slope"] == pytest.approx(-0.02) and math.isnan(without["slope_ci_low"]) and without["n_samples"] == 0


def test_the_higher_end_of_a_range_away_from_0_and_1_is_found_by_the_values_there():
    # x^2 on [2, 2.5]: convex, so the highest value is at an end, 6.25 at 2.5 against 4 at 2
    peak, inside = argmax_on_range(np.array([[1.0], [0.0], [0.0]]), 2.0, 2.5)
    assert peak.tolist() == [2.5] and inside.tolist() == [False]
    # -(x - 2.1)^2 on [2, 2.5]: the vertex is inside
    peak, inside = argmax_on_range(np.array([[-1.0], [4.2], [-4.41]]), 2.0, 2.5)
    assert peak.tolist() == [pytest.approx(2.1)] and inside.tolist() == [True]


def test_two_granularities_give_a_slope_and_no_curvature():
    key = {"dataset": "d", "judgment_kind": "esa", "level": "seg", "statistic": "pearson", "grouping": "none", "tie_policy": "",
           "metric": "bleu"}  # fmt: skip
    table = pd.DataFrame([{**key, "segmenter": s, "chars_per_token": c, "value": v} for s, c, v in (("char", 1.0, 0.5), ("jieba", 2.0, 0.4))])
    [row] = curve_slopes(table, None).to_dict("records")
    assert row["points"] == 2 and row["slope"] == pytest.approx(-0.1) and math.isnan(row["curvature"])
