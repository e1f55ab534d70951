"""Exact p-values of the paired tests, counted by hand (paired bootstrap) or recomputed from the
definition with the same random stream (paired permutation).

The README's significance counts depend on these p-values, so the tests pin the numbers, not
only "p < 0.01" or "p == 1".
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from metaeval.stats.result import Correlation

from metaeval.stats.significance import paired_bootstrap_test, paired_permutation_test
from metaeval.errors import UsageError

# sample-by-sample a - b: +0.3, -0.1, 0.0, -0.1, +0.5, +0.4, NaN, NaN, +0.7, +0.1
A_SAMPLES = np.array([0.6, 0.4, 0.5, 0.2, 0.7, 0.5, np.nan, 0.3, 0.9, 0.1])
B_SAMPLES = np.array([0.3, 0.5, 0.5, 0.3, 0.2, 0.1, 0.4, np.nan, 0.2, 0.0])


def corr(value: float, samples: np.ndarray) -> Correlation:
    return Correlation(value, n=10, samples=np.asarray(samples, float))


def test_positive_delta_p_is_twice_the_fraction_of_non_positive_differences() -> None:
    # 8 defined differences; 3 of them are <= 0 (-0.1, 0.0, -0.1): one-sided 3/8, two-sided 6/8
    result = paired_bootstrap_test(corr(0.5, A_SAMPLES), corr(0.3, B_SAMPLES))
    assert result.p_value == 0.75
    assert result.n_samples == 8
    assert result.delta == pytest.approx(0.2, abs=1e-15)
    assert (result.value_a, result.value_b) == (0.5, 0.3)
    assert "two-sided" in result.method


def test_negative_delta_counts_non_negative_differences() -> None:
    # b - a: -0.3, +0.1, 0.0, +0.1, -0.5, -0.4, -0.7, -0.1: 3 of 8 are >= 0 -> p = 2 * 3/8
    result = paired_bootstrap_test(corr(0.3, B_SAMPLES), corr(0.5, A_SAMPLES))
    assert result.p_value == 0.75
    assert result.delta == pytest.approx(-0.2, abs=1e-15)
    assert result.n_samples == 8


def test_zero_difference_counts_as_a_flip_on_both_sides() -> None:
    # one sample of four has d == 0, none has the opposite sign: p = 2 * 1/4 for either sign
    a = np.array([0.5, 0.6, 0.7, 0.8])
    b = np.array([0.5, 0.5, 0.5, 0.5])
    assert paired_bootstrap_test(corr(0.7, a), corr(0.5, b)).p_value == 0.5
    assert paired_bootstrap_test(corr(0.5, b), corr(0.7, a)).p_value == 0.5


def test_differences_within_rounding_of_zero_are_ties_whatever_their_sign() -> None:
    # a resample on which both configurations agree differs by summation rounding only, whose
    # sign varies between CPUs. d = a - b: five of +0.2, then +1e-17, -1e-17, 0.0: three ties
    # of eight count against the observed sign, p = 2 * 3/8 (not 2 * 2/8 from the signs)
    b = np.zeros(8)
    a = np.array([0.2, 0.2, 0.2, 0.2, 0.2, 1e-17, -1e-17, 0.0])
    assert paired_bootstrap_test(corr(0.2, a), corr(0.0, b)).p_value == 0.75
    assert paired_bootstrap_test(corr(0.0, b), corr(0.2, a)).p_value == 0.75
    assert paired_bootstrap_test(corr(0.2, a), corr(0.0, b + 1e-13)).p_value == 0.75
    # +2e-11 is a difference that agrees with the observed sign, 5e-13 is rounding: p = 2 * 2/8
    c = np.array([0.2, 0.2, 0.2, 0.2, 0.2, 2e-11, 5e-13, 0.0])
    assert paired_bootstrap_test(corr(0.2, c), corr(0.0, b)).p_value == 0.5
    # an observed delta within rounding of zero is no difference
    assert paired_bootstrap_test(corr(1e-16, a), corr(0.0, b)).p_value == 1.0


def test_one_flip_in_twenty() -> None:
    # 19 samples agree with the observed sign, 1 does not: one-sided 0.05, two-sided 0.1
    a = np.full(20, 0.6)
    b = np.full(20, 0.4)
    b[7] = 0.65
    result = paired_bootstrap_test(corr(0.6, a), corr(0.4, b))
    assert result.p_value == pytest.approx(0.1, abs=1e-15)
    assert result.n_samples == 20


def test_p_value_is_capped_at_one() -> None:
    # 3 of 4 samples flip: 2 * 3/4 = 1.5 -> 1
    a = np.array([0.1, 0.2, 0.3, 0.9])
    b = np.array([0.5, 0.5, 0.5, 0.5])
    assert paired_bootstrap_test(corr(0.6, a), corr(0.5, b)).p_value == 1.0


def test_no_flip_gives_zero() -> None:
    a = np.array([0.6, 0.7, 0.8])
    b = np.array([0.1, 0.2, 0.3])
    assert paired_bootstrap_test(corr(0.7, a), corr(0.2, b)).p_value == 0.0


def test_zero_observed_delta_gives_one_with_the_defined_sample_count() -> None:
    result = paired_bootstrap_test(corr(0.5, A_SAMPLES), corr(0.5, B_SAMPLES))
    assert result.p_value == 1.0 and result.delta == 0.0 and result.n_samples == 8


def test_undefined_side_gives_nan_without_samples() -> None:
    result = paired_bootstrap_test(corr(math.nan, A_SAMPLES), corr(0.3, B_SAMPLES))
    assert math.isnan(result.p_value) and math.isnan(result.delta) and result.n_samples == 0
    assert result.value_b == 0.3


def test_no_defined_sample_pair_gives_nan_p_with_the_delta() -> None:
    a = np.array([np.nan, 0.4])
    b = np.array([0.1, np.nan])
    result = paired_bootstrap_test(corr(0.5, a), corr(0.3, b))
    assert math.isnan(result.p_value) and result.n_samples == 0
    assert result.delta == pytest.approx(0.2, abs=1e-15)


def test_bootstrap_test_needs_matching_samples() -> None:
    with pytest.raises(UsageError, match="samples on both sides"):
        paired_bootstrap_test(Correlation(0.5), corr(0.3, B_SAMPLES))
    with pytest.raises(UsageError, match="samples on both sides"):
        paired_bootstrap_test(corr(0.3, B_SAMPLES), Correlation(0.5))
    with pytest.raises(UsageError, match="differ in shape"):
        paired_bootstrap_test(corr(0.5, A_SAMPLES), corr(0.3, B_SAMPLES[:5]))


# ------------------------------------------------------------------ paired permutation


def _zscore(v: np.ndarray) -> np.ndarray:
    mean = sum(v.ravel()) / v.size
    sd = (sum((x - mean) ** 2 for x in v.ravel()) / v.size) ** 0.5
    return (v - mean) / (sd if sd > 0 else 1.0)


def _permutation_oracle(statistic, a, b, seed, n_samples):
    """PERM-BOTH written out from the definition with the same random stream."""
    rng = np.random.default_rng(seed)
    delta = statistic(a) - statistic(b)
    za, zb = _zscore(a), _zscore(b)
    hits = 0
    for _ in range(n_samples):
        swap = rng.random(a.shape) < 0.5
        a2 = np.where(swap, zb, za)
        b2 = np.where(swap, za, zb)
        if abs(statistic(a2) - statistic(b2)) >= abs(delta) - 1e-12:
            hits += 1
    return delta, (1 + hits) / (1 + n_samples)


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_permutation_p_value_follows_the_definition(seed: int) -> None:
    human = np.array([[1.0, 2.0, 3.0, 4.0], [2.0, 2.5, 1.0, 0.0], [0.5, 0.2, 0.9, 1.5]])
    a = human + np.array([[0.1, -0.2, 0.0, 0.3], [0.0, 0.1, 0.2, -0.1], [0.3, 0.0, -0.1, 0.2]])
    b = np.array([[2.0, 1.0, 4.0, 3.0], [1.0, 3.0, 0.5, 1.0], [0.0, 1.0, 0.3, 2.0]])

    def statistic(m: np.ndarray) -> float:
        return float(np.corrcoef(m.ravel(), human.ravel())[0, 1])

    expected_delta, expected_p = _permutation_oracle(statistic, a, b, seed, 60)
    result = paired_permutation_test(statistic, a, b, np.random.default_rng(seed), 60)
    assert result.delta == pytest.approx(expected_delta, abs=1e-12)
    assert result.p_value == pytest.approx(expected_p, abs=1e-15)
    assert result.n_samples == 60 and "two-sided" in result.method
    assert 1 / 61 <= result.p_value < 1.0


def test_permutation_of_identical_metrics_is_one() -> None:
    # every swap of identical arrays leaves |delta'| = 0 >= |delta| = 0: p = (1 + n) / (1 + n)
    m = np.array([[1.0, 2.0, 3.0], [0.0, 5.0, 1.0]])
    result = paired_permutation_test(lambda v: float(v.sum()), m, m.copy(), np.random.default_rng(0), 25)
    assert result.p_value == 1.0 and result.delta == 0.0


def test_permutation_with_undefined_statistic_is_nan() -> None:
    m = np.ones((2, 3))
    result = paired_permutation_test(lambda v: math.nan, m, m, np.random.default_rng(0), 5)
    assert math.isnan(result.p_value) and math.isnan(result.delta) and result.n_samples == 0


def test_permutation_rejects_bad_arguments() -> None:
    m = np.ones((2, 3))
    with pytest.raises(UsageError, match="at least 1"):
        paired_permutation_test(lambda v: 0.0, m, m, np.random.default_rng(0), 0)
    with pytest.raises(UsageError, match="differ in shape"):
        paired_permutation_test(lambda v: 0.0, m, np.ones((3, 2)), np.random.default_rng(0), 5)


def test_no_resample_defined_on_both_sides_gives_no_p_value_and_keeps_both_values() -> None:
    a = corr(0.6, [np.nan, 0.5, np.nan])
    b = corr(0.4, [0.3, np.nan, np.nan])
    test = paired_bootstrap_test(a, b)
    assert (test.value_a, test.value_b, test.delta) == (0.6, 0.4, pytest.approx(0.2)) and math.isnan(test.p_value)


def test_a_comparison_at_segment_level_uses_the_grouping_it_is_given() -> None:
    """Pearson of the pooled cells (``none``) and the mean of each segment's Pearson (``item``),
    each counted by hand, are the compared values of the two groupings."""
    from metaeval.stats.paired import compare
    from tests.test_chance import _data

    configs, judgments = _data(2, gaps=False)
    human = judgments.table.pivot(index="system", columns="seg_id", values="value").loc[configs[0].systems, configs[0].seg_ids].to_numpy()
    by_hand = {c.config: {"none": np.corrcoef(c.seg_scores.ravel(), human.ravel())[0, 1],
                          "item": np.mean([np.corrcoef(c.seg_scores[:, j], human[:, j])[0, 1] for j in range(human.shape[1])])}
               for c in configs}  # fmt: skip
    for grouping in ("none", "item"):
        [row] = compare(configs, judgments, "esa", "pearson", "seg", grouping=grouping, n_bootstrap=50).to_dict("records")
        assert row["value_a"] == pytest.approx(by_hand[row["config_a"]][grouping], abs=1e-12)
        assert row["value_b"] == pytest.approx(by_hand[row["config_b"]][grouping], abs=1e-12)


def _close_configs():
    """Two configurations of :func:`tests.test_chance._data` whose second is the first plus noise,
    so that their permutation p-values are not at the floor."""
    import dataclasses

    from tests.test_chance import _data

    configs, judgments = _data(4, gaps=True)
    seg = configs[0].seg_scores + np.round(np.random.default_rng(5).normal(scale=0.3, size=configs[0].seg_scores.shape), 1)
    configs[1] = dataclasses.replace(configs[1], seg_scores=seg, sys_scores=np.nanmean(seg, axis=1))
    return configs, judgments


def test_a_permutation_comparison_permutes_the_statistic_with_the_options_asked_for() -> None:
    """Macro and micro averages of per-segment Pearson are different statistics, so their
    permutation distributions, and p-values, differ (a comparison that dropped the option
    would give both the macro one)."""
    from metaeval.stats.paired import compare

    configs, judgments = _close_configs()
    p = {average: compare(configs, judgments, "esa", "pearson", "seg", grouping="item", method="permutation",
                          n_bootstrap=200, average=average)["p_value"].item() for average in ("macro", "micro")}  # fmt: skip
    assert 0.01 < p["macro"] < 0.1 and 0.01 < p["micro"] < 0.1 and p["macro"] != p["micro"]


def test_williams_compares_over_the_cells_judged_and_scored_by_both() -> None:
    from metaeval.stats.paired import compare
    from metaeval.stats.significance import williams_test

    configs, judgments = _close_configs()
    human = judgments.table.pivot(index="system", columns="seg_id", values="value").reindex(
        index=configs[0].systems, columns=configs[0].seg_ids).to_numpy()  # fmt: skip
    [row] = compare(configs, judgments, "esa", "pearson", "seg", grouping="none", method="williams").to_dict("records")
    a, b = (next(c.seg_scores for c in configs if c.config == row[f"config_{side}"]) for side in "ab")
    keep = ~(np.isnan(human) | np.isnan(a) | np.isnan(b))
    assert (~keep).any()  # unjudged cells are left out
    r = lambda u, v: np.corrcoef(u[keep], v[keep])[0, 1]  # noqa: E731
    assert row["p_value"] == pytest.approx(williams_test(r(a, human), r(b, human), r(a, b), int(keep.sum())), rel=1e-9)
