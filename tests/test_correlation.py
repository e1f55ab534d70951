"""Tests of the statistics of metaeval.stats (correlations, consistency, resampling, paired tests): scipy as the oracle, brute force and hand-counted cases."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from metaeval.stats.correlations import average, correlate_vectors, CORRELATIONS, segment_correlation, system_correlation

from metaeval.stats.pairwise import consistency, pair_counts, TIE_POLICIES

from metaeval.stats.resampling import bootstrap_indices, percentile_ci, resample_weights

from metaeval.stats.result import Correlation

from metaeval.stats.significance import paired_bootstrap_test, paired_permutation_test, significance_clusters

from metaeval.stats.weighted import weighted_kendall, weighted_pearson, weighted_spearman
from metaeval.errors import UsageError

pytestmark = pytest.mark.filterwarnings("ignore::scipy.stats.ConstantInputWarning")

SCIPY = {
    "pearson": lambda x, y: scipy.stats.pearsonr(x, y),
    "spearman": lambda x, y: scipy.stats.spearmanr(x, y),
    "kendall": lambda x, y: scipy.stats.kendalltau(x, y, variant="b"),
}
WEIGHTED = {"pearson": weighted_pearson, "spearman": weighted_spearman, "kendall": weighted_kendall}


def tied_data(rng: np.random.Generator, n_sys: int = 5, n_seg: int = 30) -> tuple[np.ndarray, np.ndarray]:
    """Correlated metric/human matrices rounded so that both sides have ties."""
    metric = np.round(rng.normal(size=(n_sys, n_seg)), 1)
    human = np.round(metric + rng.normal(size=(n_sys, n_seg)))
    return metric, human


# ------------------------------------------------------------------ correlations vs scipy


@pytest.mark.parametrize("method", CORRELATIONS)
def test_vectors_match_scipy_and_drop_nan_pairs(method: str) -> None:
    rng = np.random.default_rng(1)
    x, y = tied_data(rng, 1, 40)
    x, y = x[0], y[0]
    y[[3, 17]] = np.nan
    keep = ~np.isnan(y)
    expected = SCIPY[method](x[keep], y[keep])
    got = correlate_vectors(x, y, method)
    assert got.n == 38
    assert got.value == pytest.approx(expected.statistic, abs=1e-12)
    assert got.p_value == pytest.approx(expected.pvalue, rel=1e-9)


@pytest.mark.parametrize("method", CORRELATIONS)
def test_bootstrap_samples_equal_scipy_on_resampled_columns(method: str) -> None:
    rng = np.random.default_rng(2)
    metric, human = tied_data(rng)
    human[0, 4] = human[2, 9] = np.nan
    idx = bootstrap_indices(metric.shape[1], 6, rng)
    got = WEIGHTED[method](metric.T, human.T, resample_weights(idx, metric.shape[1]))
    for b, cols in enumerate(idx):
        x, y = metric[:, cols].ravel(), human[:, cols].ravel()
        keep = ~np.isnan(y)
        assert got[b] == pytest.approx(SCIPY[method](x[keep], y[keep]).statistic, abs=1e-12)


@pytest.mark.parametrize("method", CORRELATIONS)
@pytest.mark.parametrize("grouping", ["item", "sys"])
def test_grouped_correlation_is_mean_of_scipy_groups(method: str, grouping: str) -> None:
    rng = np.random.default_rng(3)
    metric, human = tied_data(rng, 6, 12)
    human[:, 5] = 7.0  # segment 5: constant human scores, undefined per item
    groups = zip(metric.T, human.T) if grouping == "item" else zip(metric, human)
    values = [SCIPY[method](x, y).statistic for x, y in groups]
    defined = [v for v in values if not np.isnan(v)]
    got = segment_correlation(metric, human, method, grouping)
    assert got.value == pytest.approx(np.mean(defined), abs=1e-12)
    assert got.n == len(defined)
    assert got.counts == {"skipped": len(values) - len(defined)}
    if grouping == "item":
        assert got.counts == {"skipped": 1}


@pytest.mark.parametrize("method", CORRELATIONS)
def test_sys_grouping_bootstrap_is_mean_of_per_system_scipy(method: str) -> None:
    rng = np.random.default_rng(4)
    metric, human = tied_data(rng, 3, 25)
    idx = bootstrap_indices(25, 4, rng)
    got = segment_correlation(metric, human, method, "sys", weights=resample_weights(idx, 25))
    for b, cols in enumerate(idx):
        expected = np.nanmean([SCIPY[method](m[cols], h[cols]).statistic for m, h in zip(metric, human)])
        assert got.samples[b] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("grouping", ["none", "sys"])
def test_human_side_cache_changes_nothing(grouping: str) -> None:
    rng = np.random.default_rng(12)
    _, human = tied_data(rng, 4, 20)
    human[1, 2] = np.nan
    weights = resample_weights(bootstrap_indices(20, 30, rng), 20)
    cache: dict = {}
    for k in range(3):
        metric = np.round(human + rng.normal(size=human.shape), 1)
        if k == 2:
            metric[0, 0] = np.nan  # items now depend on the metric too: the cache is bypassed
        for method in ("spearman", "kendall"):
            plain = segment_correlation(metric, human, method, grouping, weights=weights)
            cached = segment_correlation(metric, human, method, grouping, weights=weights, cache=cache)
            np.testing.assert_array_equal(plain.samples, cached.samples)
    assert cache  # the human side was stored


@pytest.mark.parametrize("method", CORRELATIONS)
def test_system_level_samples_match_scipy_rowwise(method: str) -> None:
    rng = np.random.default_rng(5)
    metric = rng.normal(size=8)
    human = metric + rng.normal(size=8)
    metric_samples = np.round(metric + 0.3 * rng.normal(size=(5, 8)), 1)
    human_samples = human + 0.3 * rng.normal(size=(5, 8))
    got = system_correlation(metric, human, method, metric_samples=metric_samples, human_samples=human_samples)
    assert got.value == pytest.approx(SCIPY[method](metric, human).statistic, abs=1e-12)
    for b in range(5):
        expected = SCIPY[method](metric_samples[b], human_samples[b]).statistic
        assert got.samples[b] == pytest.approx(expected, abs=1e-12)
    fixed = system_correlation(metric, human, method, metric_samples=metric_samples)
    assert fixed.samples[0] == pytest.approx(SCIPY[method](metric_samples[0], human).statistic, abs=1e-12)


def test_directions_flip_the_sign() -> None:
    rng = np.random.default_rng(6)
    metric, human = tied_data(rng, 4, 10)
    up = segment_correlation(metric, human, "kendall")
    ranks_like = segment_correlation(metric, -human, "kendall", human_direction=-1)
    error_like = segment_correlation(-metric, human, "kendall", metric_direction=-1)
    assert ranks_like.value == pytest.approx(up.value) and error_like.value == pytest.approx(up.value)
    assert segment_correlation(metric, -human, "kendall").value == pytest.approx(-up.value)


# ------------------------------------------------------------------ pairwise consistency


def brute_force_counts(metric, human, threshold, group_segments=None):  # noqa: ANN001, ANN201
    """Double loop over groups and system pairs: (C, D, T, H) totals, ties not yet policed."""
    c = d = t = h = 0
    n_sys, n_groups = human.shape
    for g in range(n_groups):
        seg = g if group_segments is None else group_segments[g]
        for i, j in itertools.combinations(range(n_sys), 2):
            hi, hj, mi, mj = human[i, g], human[j, g], metric[i, seg], metric[j, seg]
            if any(math.isnan(v) for v in (hi, hj, mi, mj)):
                continue
            if abs(hi - hj) <= (threshold or 0.0):
                h += 1
            elif mi == mj:
                t += 1
            elif (hi - hj) * (mi - mj) > 0:
                c += 1
            else:
                d += 1
    return c, d, t, h


def expected_value(c: float, d: float, t: float, policy: str, statistic: str) -> float:
    if policy == "discordant":
        d = d + t
    elif policy == "half":
        c, d = c + t / 2, d + t / 2
    return c / (c + d) if statistic == "consistency" else (c - d) / (c + d)


@pytest.mark.parametrize("policy", TIE_POLICIES)
@pytest.mark.parametrize("threshold", [None, 1.0])
@pytest.mark.parametrize("statistic", ["consistency", "kendall_like"])
def test_consistency_matches_brute_force(policy: str, threshold: float | None, statistic: str) -> None:
    rng = np.random.default_rng(7)
    metric = rng.integers(0, 4, size=(5, 20)).astype(float)  # many metric ties
    human = np.clip(metric + rng.integers(-2, 3, size=(5, 20)), 0, 5).astype(float)
    human[1, 3] = human[4, 0] = np.nan
    c, d, t, h = brute_force_counts(metric, human, threshold)
    counts = pair_counts(metric, human, threshold=threshold)
    got = consistency(counts, statistic=statistic, tie_policy=policy)
    assert got.counts == {"concordant": c, "discordant": d, "metric_ties": t, "human_ties": h}
    assert got.value == pytest.approx(expected_value(c, d, t, policy, statistic))
    assert got.n == (c + d if policy == "exclude" else c + d + t)


def test_hand_counted_ties() -> None:
    # Segment 0: human A=3, B=3, C=1; metric A=.5, B=.2, C=.5
    #   A-B human tie -> H; A-C human A>C, metric tie -> T; B-C human B>C, metric B<C -> D
    # Segment 1: human A=2, B=1, C=NaN (C unjudged); metric A=.9, B=.1, C=.4
    #   A-B human A>B, metric A>B -> C; pairs with C skipped entirely
    human = np.array([[3.0, 2.0], [3.0, 1.0], [1.0, np.nan]])
    metric = np.array([[0.5, 0.9], [0.2, 0.1], [0.5, 0.4]])
    counts = pair_counts(metric, human)
    assert counts.concordant.tolist() == [0, 1]
    assert counts.discordant.tolist() == [1, 0]
    assert counts.metric_ties.tolist() == [1, 0]
    assert counts.human_ties.tolist() == [1, 0]
    # exclude: C=1, D=1 -> 1/2; discordant: C=1, D=1+1 -> 1/3; half: C=1.5, D=1.5 -> 1/2
    assert consistency(counts, tie_policy="exclude").value == pytest.approx(1 / 2)
    assert consistency(counts, tie_policy="discordant").value == pytest.approx(1 / 3)
    assert consistency(counts, tie_policy="half").value == pytest.approx(1 / 2)
    # Kendall-like with ties discordant: (1 - 2) / 3
    assert consistency(counts, statistic="kendall_like", tie_policy="discordant").value == pytest.approx(-1 / 3)
    # threshold 1.5: segment 0 B-C (diff 2) still compared; segment 1 A-B (diff 1) now a human tie
    # -> C=0, D=1, T=1, H=2
    thr = consistency(pair_counts(metric, human, threshold=1.5))
    assert thr.counts == {"concordant": 0, "discordant": 1, "metric_ties": 1, "human_ties": 2}
    assert thr.value == 0.0


def test_ranks_lower_is_better() -> None:
    # Ranks of 3 systems on one segment: A=1 (best), B=2, C=3. Metric agrees: A>B>C.
    ranks = np.array([[1.0], [2.0], [3.0]])
    metric = np.array([[0.9], [0.5], [0.1]])
    agree = consistency(pair_counts(metric, ranks, human_direction=-1))
    assert (agree.value, agree.counts["concordant"], agree.counts["discordant"]) == (1.0, 3, 0)
    assert consistency(pair_counts(metric, ranks)).value == 0.0
    # A TER-like metric (lower better) that agrees.
    assert consistency(pair_counts(-metric, ranks, metric_direction=-1, human_direction=-1)).value == 1.0


def test_per_judge_groups_match_brute_force() -> None:
    # Two judges rank overlapping systems on the same segments: groups (segment, judge).
    rng = np.random.default_rng(8)
    metric = rng.integers(0, 5, size=(4, 6)).astype(float)
    group_segments = np.repeat(np.arange(6), 2)  # judge 1 and judge 2 per segment
    human = rng.integers(1, 5, size=(4, 12)).astype(float)
    human[0, ::2] = np.nan  # judge 1 never saw system 0
    counts = pair_counts(metric, human, human_direction=-1, group_segments=group_segments)
    c, d, t, h = brute_force_counts(metric, -human, None, group_segments)
    assert counts.totals() == {"concordant": c, "discordant": d, "metric_ties": t, "human_ties": h}
    # Counts land in the segment of their group, so a bootstrap over segments sees them.
    assert counts.concordant.shape == (6,)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(TIE_POLICIES))
def test_consistency_samples_equal_recount_on_resampled_segments(seed: int, policy: str) -> None:
    rng = np.random.default_rng(seed)
    metric = rng.integers(0, 3, size=(4, 8)).astype(float)
    human = rng.integers(0, 3, size=(4, 8)).astype(float)
    idx = bootstrap_indices(8, 5, rng)
    got = consistency(pair_counts(metric, human), tie_policy=policy, weights=resample_weights(idx, 8))
    for b, cols in enumerate(idx):
        again = consistency(pair_counts(metric[:, cols], human[:, cols]), tie_policy=policy)
        np.testing.assert_allclose(got.samples[b], again.value, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_consistency_ignores_system_order(seed: int) -> None:
    rng = np.random.default_rng(seed)
    metric = rng.integers(0, 3, size=(5, 6)).astype(float)
    human = rng.integers(0, 3, size=(5, 6)).astype(float)
    order = rng.permutation(5)
    assert pair_counts(metric, human).totals() == pair_counts(metric[order], human[order]).totals()


# ------------------------------------------------------------------ undefined cases


def test_undefined_statistics_are_nan_with_reason() -> None:
    rng = np.random.default_rng(9)
    human = rng.normal(size=(4, 10))
    constant = np.ones((4, 10))
    for method in CORRELATIONS:
        r = segment_correlation(constant, human, method)
        assert math.isnan(r.value) and "constant metric" in r.undefined_reason
        r = system_correlation(np.array([0.3]), np.array([0.5]), method)
        assert math.isnan(r.value) and "at least 2 systems" in r.undefined_reason
        r = segment_correlation(human, constant, method, "item", weights=np.ones((3, 10)))
        assert math.isnan(r.value) and "every segment" in r.undefined_reason
    tied = consistency(pair_counts(human, constant))
    assert math.isnan(tied.value) and "tied by the human" in tied.undefined_reason
    assert tied.counts["human_ties"] == 60  # 6 pairs x 10 segments
    one = consistency(pair_counts(human[:1], human[:1]))
    assert math.isnan(one.value) and one.undefined_reason and one.n == 0
    ties = consistency(pair_counts(constant, human))
    assert math.isnan(ties.value) and "metric" in ties.undefined_reason
    assert consistency(pair_counts(constant, human), tie_policy="discordant").value == 0.0


def test_bad_options_raise_usage_errors() -> None:
    m = np.zeros((2, 2))
    with pytest.raises(UsageError, match="tie policy"):
        consistency(pair_counts(m, m), tie_policy="ignore")
    with pytest.raises(UsageError, match="grouping"):
        segment_correlation(m, m, "pearson", "doc")
    with pytest.raises(UsageError, match="correlation"):
        correlate_vectors(m, m, "cosine")
    with pytest.raises(UsageError, match="threshold"):
        pair_counts(m, m, threshold=-1)


# ------------------------------------------------------------------ bootstrap and tests


def test_bootstrap_is_seeded_and_contains_the_estimate() -> None:
    rng = np.random.default_rng(10)
    metric = rng.normal(size=(6, 200))
    human = metric + rng.normal(size=(6, 200))

    def run(seed: int) -> Correlation:
        idx = bootstrap_indices(200, 500, np.random.default_rng(seed))
        return segment_correlation(metric, human, "pearson", weights=resample_weights(idx, 200))

    a, b, c = run(1), run(1), run(2)
    assert (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high)
    assert (a.ci_low, a.ci_high) != (c.ci_low, c.ci_high)
    assert a.ci_low < a.value < a.ci_high
    assert a.ci_high - a.ci_low < 0.1


def test_percentile_ci_by_hand() -> None:
    # 101 defined values 0..100 (+ one NaN, dropped); 90% interval = 5th and 95th percentiles,
    # at positions 0.05 * 100 = 5 and 0.95 * 100 = 95 -> values 5 and 95.
    samples = np.append(np.arange(101, dtype=float), np.nan)
    assert percentile_ci(samples, 0.9) == pytest.approx((5.0, 95.0))
    assert all(math.isnan(v) for v in percentile_ci(np.full(3, np.nan)))


def test_paired_tests_separate_better_from_identical() -> None:
    rng = np.random.default_rng(11)
    human = rng.normal(size=(5, 150))
    good = human + 0.3 * rng.normal(size=human.shape)
    bad = human + 3.0 * rng.normal(size=human.shape)
    weights = resample_weights(bootstrap_indices(150, 1000, rng), 150)

    def corr(metric: np.ndarray) -> Correlation:
        return segment_correlation(metric, human, "pearson", weights=weights)

    better = paired_bootstrap_test(corr(good), corr(bad))
    assert better.delta > 0.3 and better.p_value < 0.01
    same = paired_bootstrap_test(corr(good), corr(good.copy()))
    assert same.delta == 0 and same.p_value == 1.0

    def stat(m: np.ndarray) -> float:
        return segment_correlation(m, human, "pearson").value

    perm = paired_permutation_test(stat, good, bad, np.random.default_rng(0), 200)
    assert perm.p_value == pytest.approx(1 / 201)
    close = good + 0.01 * rng.normal(size=good.shape)
    assert paired_permutation_test(stat, good, close, np.random.default_rng(0), 200).p_value > 0.2


def test_significance_clusters_hand_example() -> None:
    # Sorted best first. p[0,1]=.30 (0 not better than 1) -> 1 joins cluster 1;
    # p[0,2]=.01 -> 2 is significantly worse than member 0 -> cluster 2 starts at 2;
    # p[2,3]=.20 -> 3 joins cluster 2 (p[0,3] is no longer looked at);
    # p[2,4]=.50, p[3,4]=.04 -> member 3 beats 4 -> cluster 3.
    p = np.ones((5, 5))
    p[0, 1], p[0, 2], p[1, 2] = 0.30, 0.01, 0.20
    p[0, 3], p[1, 3], p[2, 3] = 0.001, 0.001, 0.20
    p[0, 4], p[1, 4], p[2, 4], p[3, 4] = 0.0, 0.0, 0.50, 0.04
    assert significance_clusters(p, 0.05) == [1, 1, 2, 2, 3]
    assert significance_clusters(p, 0.005) == [1, 1, 1, 2, 2]


def test_average_of_fluency_and_adequacy() -> None:
    # Li et al.'s NIST'08 column: (r_fluency + r_adequacy) / 2, e.g. (.80 + .90) / 2 = .85
    flu = Correlation(0.80, n=11, samples=np.array([0.7, 0.9]))
    ade = Correlation(0.90, n=11, samples=np.array([0.8, 1.0]))
    avg = average([flu, ade])
    assert avg.value == pytest.approx(0.85) and avg.samples.tolist() == pytest.approx([0.75, 0.95])
    assert math.isnan(average([flu, Correlation(math.nan, undefined_reason="constant")]).value)
