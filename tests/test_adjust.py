"""Adjusted p-values: Holm and Benjamini-Hochberg against statsmodels' multipletests and against a
table worked out by hand, with ties, p = 1, p = 0 and undefined p-values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from metaeval.errors import UsageError
from metaeval.stats.adjust import ADJUSTMENTS, adjust_p_values, adjust_pair_matrix

multitest = pytest.importorskip("statsmodels.stats.multitest")

#: Families of p-values: ties (among the smallest, in the middle, at the largest), p = 1, p = 0,
#: one test alone, values that would exceed 1 unclipped, and the bootstrap's grid of k/1000.
VECTORS = [
    [0.01, 0.04, 0.03, 0.005],
    [0.02, 0.02, 0.02, 0.5, 1.0],
    [0.0, 0.0, 0.002, 0.094, 0.2, 0.188],
    [1.0, 1.0, 1.0],
    [0.3],
    [0.049, 0.051, 0.049, 0.051, 0.6, 0.6, 0.01],
    [0.9, 0.8, 0.95, 0.7],
    [0.002, 0.004, 0.002, 0.36, 1.0, 0.634, 0.468, 1.0, 0.916, 0.106],
]
STATSMODELS = {"holm": "holm", "bh": "fdr_bh"}


@pytest.mark.parametrize("vector", VECTORS, ids=range(len(VECTORS)))
@pytest.mark.parametrize("method", ["holm", "bh"])
def test_equal_to_statsmodels_multipletests(vector, method):
    expected = multitest.multipletests(np.array(vector), alpha=0.05, method=STATSMODELS[method])[1]
    np.testing.assert_allclose(adjust_p_values(vector, method), expected, rtol=0, atol=1e-15)


def test_random_families_equal_statsmodels():
    rng = np.random.default_rng(7)
    for m in (2, 5, 13, 60):
        for _ in range(20):
            p = np.round(rng.beta(0.5, 2.0, size=m), 3)  # rounded: many ties
            p[rng.random(m) < 0.1] = 1.0
            for method, name in STATSMODELS.items():
                np.testing.assert_allclose(adjust_p_values(p, method), multitest.multipletests(p, method=name)[1], atol=1e-15)


def test_a_table_worked_out_by_hand():
    # p = 0.01, 0.04, 0.03, 0.005 (m = 4), sorted 0.005, 0.01, 0.03, 0.04:
    # Holm: 4*0.005 = 0.02; max(0.02, 3*0.01 = 0.03); max(0.03, 2*0.03 = 0.06); max(0.06, 1*0.04) = 0.06
    # BH: 0.04*4/4 = 0.04; min(0.04, 0.03*4/3 = 0.04); min(0.04, 0.01*4/2 = 0.02); min(0.02, 0.005*4/1 = 0.02)
    p = [0.01, 0.04, 0.03, 0.005]
    np.testing.assert_allclose(adjust_p_values(p, "holm"), [0.03, 0.06, 0.06, 0.02], atol=1e-15)
    np.testing.assert_allclose(adjust_p_values(p, "bh"), [0.02, 0.04, 0.04, 0.02], atol=1e-15)
    # ties: 0.02 three times and 1.0 (m = 4): Holm 4*0.02 = 0.08 for all three, 1 stays 1;
    # BH: the largest tie 0.02*4/3 = 0.0267 for all three
    np.testing.assert_allclose(adjust_p_values([0.02, 1.0, 0.02, 0.02], "holm"), [0.08, 1.0, 0.08, 0.08], atol=1e-15)
    np.testing.assert_allclose(adjust_p_values([0.02, 1.0, 0.02, 0.02], "bh"), [0.08 / 3, 1.0, 0.08 / 3, 0.08 / 3], atol=1e-15)


def test_none_returns_the_p_values_and_nan_is_no_member_of_the_family():
    p = [0.01, math.nan, 0.04, 0.03]
    assert np.array_equal(adjust_p_values(p, "none"), np.array(p), equal_nan=True)
    holm = adjust_p_values(p, "holm")
    assert math.isnan(holm[1])
    # m = 3: 3*0.01 = 0.03, then max(0.03, 2*0.03) = 0.06, max(0.06, 0.04) = 0.06
    np.testing.assert_allclose(holm[[0, 2, 3]], [0.03, 0.06, 0.06], atol=1e-15)
    assert np.isnan(adjust_p_values([math.nan, math.nan], "bh")).all()
    assert adjust_p_values([], "holm").size == 0


def test_adjusted_values_are_never_below_the_raw_ones_and_holm_is_at_least_bh():
    rng = np.random.default_rng(3)
    p = rng.random(40)
    holm, bh = adjust_p_values(p, "holm"), adjust_p_values(p, "bh")
    assert (holm >= p).all() and (bh >= p).all() and (holm >= bh - 1e-15).all() and (holm <= 1).all()


def test_a_pair_matrix_is_adjusted_over_its_upper_triangle():
    p = np.array([[1, 0.01, 0.04], [0.01, 1, 0.03], [0.04, 0.03, 1]], float)
    out = adjust_pair_matrix(p, "holm")
    assert np.array_equal(out, out.T)
    # pairs (0,1), (0,2), (1,2) = 0.01, 0.04, 0.03: Holm 0.03, 0.06, 0.06
    np.testing.assert_allclose([out[0, 1], out[0, 2], out[1, 2]], [0.03, 0.06, 0.06], atol=1e-15)
    assert np.array_equal(adjust_pair_matrix(p, "none"), p)


@pytest.mark.parametrize("bad", [[0.5, 1.2], [-0.1]])
def test_values_outside_zero_one_are_refused(bad):
    with pytest.raises(UsageError, match=r"\[0, 1\]"):
        adjust_p_values(bad, "holm")


def test_an_unknown_method_names_the_known_ones():
    with pytest.raises(UsageError, match="holm, bh, none"):
        adjust_p_values([0.1], "bonferroni")
    assert ADJUSTMENTS[0] == "holm"
