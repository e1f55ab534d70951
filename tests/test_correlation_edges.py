"""Edges of the statistics of metaeval.stats a golden value does not reach: what an undefined statistic
reports, the constant-vector tolerance of the bootstrap samples at large and tiny scales,
Kendall over few segments with many systems, and inputs that arrive as floats."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.stats

from metaeval.stats.correlations import average, correlate_vectors, segment_correlation, system_correlation

from metaeval.stats.pairwise import pair_counts

from metaeval.stats.result import Correlation, undefined

from metaeval.stats.significance import paired_bootstrap_test

from metaeval.stats.weighted import weighted_kendall
from metaeval.errors import UsageError


@pytest.mark.parametrize("call", [
    lambda: segment_correlation(np.ones((2, 3)), np.ones((2, 3)), human_direction=0),
    lambda: system_correlation(np.arange(3.0), np.arange(3.0), human_direction=2),
])  # fmt: skip
def test_a_bad_human_direction_is_named(call):
    with pytest.raises(UsageError, match=r"^human_direction must be \+1 or -1"):
        call()


def test_every_system_undefined_says_system_and_uses_nothing():
    # each system's scores are constant across segments: Pearson per system is undefined
    metric = np.array([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]])
    human = np.array([[1.0, 2.0, 3.0], [3.0, 1.0, 2.0]])
    result = segment_correlation(metric, human, "pearson", "sys")
    assert math.isnan(result.value)
    assert result.undefined_reason == "pearson undefined for every system (2 systems)"
    assert result.n == 0 and result.counts == {"skipped": 2}
    item = segment_correlation(metric.T.copy(), human.T.copy(), "pearson", "item")  # 3 systems x 2 segments
    assert item.undefined_reason == "pearson undefined for every segment (2 segments)" and item.n == 0


def test_an_undefined_average_keeps_the_smallest_n():
    result = average([Correlation(0.5, n=7), undefined("no pairs", n=3), Correlation(0.1, n=5)])
    assert math.isnan(result.value) and result.n == 3
    assert result.undefined_reason == "an averaged statistic is undefined: no pairs"


def test_zero_delta_keeps_the_test_name():
    a = Correlation(0.5, samples=np.array([0.4, 0.6]))
    b = Correlation(0.5, samples=np.array([0.5, 0.5]))
    test = paired_bootstrap_test(a, b)
    assert test.p_value == 1.0 and test.method == "paired bootstrap, two-sided sign-flip fraction"


def test_bootstrap_samples_of_large_scores_with_a_small_spread_are_defined():
    # var of the metric row: 2e-4 against the tolerance 1e-12 * 1000^2 * 3 = 3e-6: not constant
    metric = np.array([1000.0, 1000.01, 1000.02])
    human = np.array([1.0, 2.0, 3.0])
    samples = np.array([metric, metric[::-1]])
    result = system_correlation(metric, human, "pearson", metric_samples=samples)
    assert result.value == pytest.approx(1.0, abs=1e-9)
    assert result.samples == pytest.approx([1.0, -1.0], abs=1e-9)


def test_bootstrap_samples_of_tiny_human_scores_are_defined():
    # human sum of squares 4.5e-12 against the tolerance 1e-12 * max(|y|, 1)^2 * 3 = 3e-12
    metric = np.array([1.0, 2.0, 3.0])
    human = np.array([0.0, 1.5e-6, 3e-6])
    result = system_correlation(metric, human, "pearson", metric_samples=np.array([metric, metric[::-1]]))
    assert result.samples == pytest.approx([1.0, -1.0], abs=1e-9)


def expanded_kendall(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """scipy's tau-b on the blocks repeated as often as the weights say."""
    rows = np.repeat(np.arange(len(w)), w)
    return scipy.stats.kendalltau(x[rows].ravel(), y[rows].ravel(), variant="b").statistic


def test_weighted_kendall_with_more_items_per_block_than_blocks():
    # 3 blocks (segments) of 4 items (systems): m * m = 16 >= n_blocks
    rng = np.random.default_rng(5)
    x = rng.integers(0, 4, size=(3, 4)).astype(float)
    y = rng.integers(0, 4, size=(3, 4)).astype(float)
    weights = np.array([[1, 1, 1], [2, 0, 1], [0, 3, 1]])
    got = weighted_kendall(x, y, weights.astype(float))
    assert got == pytest.approx([expanded_kendall(x, y, w) for w in weights], abs=1e-12)


def test_pair_counts_accepts_integer_valued_float_groups():
    metric = np.array([[1.0, 3.0], [2.0, 1.0]])  # 2 systems x 2 segments
    human = np.array([[1.0, 2.0, 5.0], [2.0, 1.0, 4.0]])  # 2 systems x 3 groups
    # groups 0, 1 judge segment 0 (concordant, discordant), group 2 segment 1 (concordant)
    for groups in (np.array([0, 0, 1]), np.array([0.0, 0.0, 1.0])):
        counts = pair_counts(metric, human, group_segments=groups)
        assert list(counts.concordant) == [1.0, 1.0] and list(counts.discordant) == [1.0, 0.0]


def test_unknown_correlation_lists_the_known_ones():
    with pytest.raises(UsageError, match=r"^unknown correlation 'tau'; known: pearson, spearman, kendall$"):
        segment_correlation(np.ones((2, 2)), np.ones((2, 2)), "tau")


def test_an_all_undefined_sample_per_system_is_nan_without_a_warning():
    metric = np.array([[1.0, 2.0, 4.0], [3.0, 1.0, 2.0]])
    human = np.array([[1.0, 3.0, 2.0], [2.0, 1.0, 3.0]])
    # sample 1 draws segment 0 three times: every system is constant in it
    weights = np.array([[1.0, 1.0, 1.0], [3.0, 0.0, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = segment_correlation(metric, human, "pearson", "sys", weights=weights)
    per_system = [scipy.stats.pearsonr(m, h).statistic for m, h in zip(metric, human)]
    assert result.value == pytest.approx(np.mean(per_system), abs=1e-12)
    assert result.samples[0] == pytest.approx(result.value, abs=1e-12) and math.isnan(result.samples[1])


def test_constant_means_relative_variance_at_most_1e_12():
    # unit-scaled, the metric's variance is (1.5e-6)^2 = 2.25e-12 > 1e-12: defined
    metric = np.array([1.0, 1.0 - 3e-6, 1.0, 1.0 - 3e-6])
    human = np.array([4.0, 1.0, 3.0, 2.0])
    result = correlate_vectors(metric, human, "pearson")
    assert result.value == pytest.approx(scipy.stats.pearsonr(metric, human).statistic, abs=1e-6)
    # 1e-7 apart: variance 2.5e-15, constant
    flat = correlate_vectors(np.array([1.0, 1.0 - 1e-7, 1.0, 1.0 - 1e-7]), human, "pearson")
    assert flat.undefined_reason == "constant metric scores over 4 items"


def test_the_tied_share_of_two_values_is_their_one_pair() -> None:
    from metaeval.stats.reference import tied_share

    assert tied_share(np.array([1.0, 1.0])) == (1.0, 2) and tied_share(np.array([1.0, 2.0])) == (0.0, 2)
    assert tied_share(np.array([1.0, 1.0, 2.0, np.nan])) == (pytest.approx(1 / 3), 3)  # 1 tied pair of 3
    share, n = tied_share(np.array([1.0, np.nan]))
    assert math.isnan(share) and n == 1


def test_drawn_systems_are_taken_per_resample_row() -> None:
    from metaeval.stats.resampling import drawn

    values = np.array([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]])  # [n_samples, n_sys]
    draws = np.array([[2, 2, 0], [1, 0, 0]])
    assert drawn(values, draws).tolist() == [[3.0, 3.0, 1.0], [20.0, 10.0, 10.0]]
    assert drawn(np.array([1.0, 2.0, 3.0]), draws).tolist() == [[3.0, 3.0, 1.0], [2.0, 1.0, 1.0]]


def test_one_bootstrap_sample_is_allowed_and_none_is_an_error() -> None:
    from metaeval.stats.resampling import bootstrap_indices

    draws = bootstrap_indices(5, 1, np.random.default_rng(0))
    assert draws.shape == (1, 5) and ((draws >= 0) & (draws < 5)).all()
    for items, samples in ((0, 10), (5, 0)):
        with pytest.raises(UsageError, match=f"got {items} items, {samples} samples"):
            bootstrap_indices(items, samples, np.random.default_rng(0))


def test_a_resample_constant_within_the_relative_tolerance_has_no_pearson() -> None:
    """A resample counts as constant as a score vector does (variance at most 1e-12 of the
    squared largest magnitude): 10 systems spread by 1e-7 have variance 8.25e-14, and give NaN,
    while a spread of 1e-6 (8.25e-12) is a correlation."""
    human = np.arange(10.0)
    metric = np.linspace(0.0, 1.0, 10)
    samples = np.array([1.0 + 1e-7 * np.arange(10.0), 1.0 + 1e-6 * np.arange(10.0)])
    result = system_correlation(metric, human, "pearson", metric_samples=samples)
    assert math.isnan(result.samples[0]) and result.samples[1] == pytest.approx(1.0)


def test_a_confidence_level_outside_the_open_unit_interval_is_an_error() -> None:
    from metaeval.stats.resampling import percentile_ci

    samples = np.linspace(0.0, 1.0, 101)
    assert percentile_ci(samples, 0.5) == (pytest.approx(0.25), pytest.approx(0.75))
    for level in (0.0, 1.0, 1.5, -0.1):
        with pytest.raises(UsageError, match=r"confidence level must be in \(0, 1\)"):
            percentile_ci(samples, level)
