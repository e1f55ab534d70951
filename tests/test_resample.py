"""``resample``: the bootstrap of system-level statistics resamples segments (the default),
systems, or both. Every sample is checked against the statistic computed directly on the drawn
systems (scipy, or a pair-by-pair count written here), for each system-level statistic."""

from __future__ import annotations

import concurrent.futures as cf
import itertools

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from metaeval.corpora.model import Judgments
from metaeval.errors import UsageError
from metaeval.scoretable import ConfigScores
from metaeval.stats.evaluate import evaluate
from metaeval.stats.paired import compare
from metaeval.stats.resampling import pair_weights, system_draws
from metaeval.stats.settings import Settings
from metaeval.stats.syspairs import permutation_p_values, swap_signs

N_SYS, N_SEG, SAMPLES, SEED = 7, 30, 60, 4


def data(seed: int = 0) -> tuple[list[ConfigScores], Judgments]:
    """Two metrics over 7 systems and 30 segments, human scores with a few ties; system scores
    derived from the segment judgments (no human_sys)."""
    rng = np.random.default_rng(seed)
    quality = np.linspace(0, 1, N_SYS)[:, None]
    human = np.round(50 + 20 * quality + rng.normal(0, 12, (N_SYS, N_SEG)))
    systems = [f"s{i}" for i in range(N_SYS)]
    seg_ids = [str(j + 1) for j in range(N_SEG)]
    configs = []
    for name, noise in (("good", 0.1), ("poor", 0.3)):
        seg = quality + rng.normal(0, noise, (N_SYS, N_SEG))
        configs.append(ConfigScores(name, "char", f"{name}|char", systems, seg_ids, seg, seg.mean(1)))
    rows = [(seg_ids[j], systems[i], "", "esa", human[i, j]) for i in range(N_SYS) for j in range(N_SEG)]
    return configs, Judgments(pd.DataFrame(rows, columns=["seg_id", "system", "judge", "kind", "value"]))


def run(resample: str, statistics=("sys:pearson", "sys:spearman", "sys:kendall", "sys:pairwise_accuracy",  # noqa: ANN001
                                   "sys:kendall_c", "sys:soft_pairwise_accuracy", "seg:pearson"), **options):
    configs, judged = data()
    table, samples = evaluate(configs, judged, ["esa"], statistics=list(statistics), n_bootstrap=SAMPLES, seed=SEED,
                              resample=resample, permutations=200, return_samples=True, **options)
    return configs, judged, table, samples


def row_samples(table: pd.DataFrame, samples: np.ndarray, metric: str, level: str, statistic: str) -> tuple[pd.Series, np.ndarray]:
    hit = table[(table.metric == metric) & (table.level == level) & (table.statistic == statistic)]
    assert len(hit) == 1
    return hit.iloc[0], samples[hit.index[0]]


def slow_pairwise_accuracy(x: np.ndarray, y: np.ndarray, draws: np.ndarray) -> float:
    """Over every two positions of the drawn list whose systems differ: the share ordered alike."""
    agree = pairs = 0
    for a, b in itertools.combinations(range(len(draws)), 2):
        i, j = draws[a], draws[b]
        if i == j:
            continue
        pairs += 1
        agree += np.sign(x[i] - x[j]) == np.sign(y[i] - y[j])
    return agree / pairs if pairs else float("nan")


def human_system_scores(judged: Judgments) -> np.ndarray:
    t = judged.table
    return t.groupby("system", sort=True)["value"].mean().to_numpy()


def test_an_unknown_resampling_is_a_usage_error_naming_the_choices():
    with pytest.raises(UsageError, match="unknown resampling 'items'; known: segments, systems, both"):
        Settings(resample="items")


@pytest.mark.parametrize("metric", ["good", "poor"])
def test_resampling_systems_draws_systems_and_keeps_their_full_sample_scores(metric):
    configs, judged, table, samples = run("systems")
    config = next(c for c in configs if c.metric == metric)
    x, y = config.sys_scores, human_system_scores(judged)
    draws = system_draws(SEED, N_SYS, 0, SAMPLES)
    for statistic, direct in (
        ("pearson", lambda a, b: scipy.stats.pearsonr(a, b)[0]),
        ("spearman", lambda a, b: scipy.stats.spearmanr(a, b)[0]),
        ("kendall", lambda a, b: scipy.stats.kendalltau(a, b)[0]),
        ("kendall_c", lambda a, b: scipy.stats.kendalltau(a, b, variant="c")[0]),
    ):
        row, got = row_samples(table, samples, metric, "sys", statistic)
        want = []
        for d in draws:
            with np.errstate(all="ignore"):
                value = direct(x[d], y[d]) if len(set(d)) > 1 else np.nan
            want.append(value)
        np.testing.assert_allclose(got, want, atol=1e-12, err_msg=statistic)
        assert "resamples of systems" in row["note"]
    _, got = row_samples(table, samples, metric, "sys", "pairwise_accuracy")
    np.testing.assert_allclose(got, [slow_pairwise_accuracy(x, y, d) for d in draws], atol=1e-12)


def test_soft_pairwise_accuracy_over_drawn_systems_averages_the_pairs_of_distinct_systems():
    configs, judged, table, samples = run("systems")
    config = configs[0]
    human = judged.segment_matrix("esa", config.systems, config.seg_ids)
    signs = swap_signs(N_SEG, 200, np.random.default_rng(12345))  # the permutation seed's swaps
    values = 1 - np.abs(permutation_p_values(human, signs) - permutation_p_values(config.seg_scores, signs))
    pairs = {pair: k for k, pair in enumerate(itertools.combinations(range(N_SYS), 2))}
    draws = system_draws(SEED, N_SYS, 0, SAMPLES)
    want = []
    for d in draws:
        chosen = [values[pairs[(min(i, j), max(i, j))]] for i, j in itertools.combinations(d, 2) if i != j]
        want.append(np.mean(chosen))
    row, got = row_samples(table, samples, config.metric, "sys", "soft_pairwise_accuracy")
    np.testing.assert_allclose(got, want, atol=1e-12)
    assert row["value"] == pytest.approx(values.mean(), abs=1e-12)
    assert "p-values of the full sample" in row["note"]


def test_resampling_both_draws_systems_from_the_resampled_segment_scores():
    configs, judged, table, samples = run("both", statistics=("sys:pearson", "sys:pairwise_accuracy"))
    config = configs[1]
    indices = np.random.default_rng(SEED).integers(0, N_SEG, size=(SAMPLES, N_SEG))  # the segment resamples
    xs = config.resampled_sys_scores(indices)
    human = judged.segment_matrix("esa", config.systems, config.seg_ids)
    ys = human[:, indices].mean(axis=2).T  # derived human scores, recomputed on each resample
    draws = system_draws(SEED, N_SYS, 0, SAMPLES)
    _, got = row_samples(table, samples, config.metric, "sys", "pearson")
    np.testing.assert_allclose(got, [scipy.stats.pearsonr(xs[s, d], ys[s, d])[0] if len(set(d)) > 1 else np.nan
                                     for s, d in enumerate(draws)], atol=1e-12)
    _, got = row_samples(table, samples, config.metric, "sys", "pairwise_accuracy")
    want = [slow_pairwise_accuracy(xs[s], ys[s], d) for s, d in enumerate(draws)]
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_segment_level_rows_and_values_do_not_depend_on_the_resampling():
    tables = {mode: run(mode)[2:] for mode in ("segments", "systems", "both")}
    base_table, base_samples = tables["segments"]
    seg = (base_table.level == "seg").to_numpy()
    for mode, (table, samples) in tables.items():
        pd.testing.assert_series_equal(table["value"], base_table["value"])
        np.testing.assert_array_equal(samples[seg], base_samples[seg])
        if mode != "segments":
            assert not np.array_equal(samples[~seg], base_samples[~seg], equal_nan=True), mode


def test_the_default_resamples_segments_and_names_it_in_the_signature():
    assert Settings().resample == "segments"
    assert Settings().signature()["system_resampling"] == "segments"
    assert "system_resampling" not in Settings(levels=("seg",)).signature()
    configs, judged = data()
    table, samples = evaluate(configs, judged, ["esa"], statistics=["sys:pearson"], n_bootstrap=SAMPLES, seed=SEED,
                              return_samples=True)
    _, _, explicit, explicit_samples = run("segments", statistics=("sys:pearson",))
    np.testing.assert_array_equal(samples, explicit_samples)
    assert explicit.note.str.startswith(f"bootstrap {SAMPLES} segment resamples").all()
    indices = np.random.default_rng(SEED).integers(0, N_SEG, size=(SAMPLES, N_SEG))
    human = judged.segment_matrix("esa", configs[0].systems, configs[0].seg_ids)
    xs, ys = configs[0].resampled_sys_scores(indices), human[:, indices].mean(axis=2).T
    np.testing.assert_allclose(samples[0], [scipy.stats.pearsonr(a, b)[0] for a, b in zip(xs, ys)], atol=1e-12)


def test_draws_are_shared_by_configurations_reproducible_and_independent_of_the_executor():
    _, _, table, samples = run("systems", statistics=("sys:pearson",))
    _, _, again, samples_again = run("systems", statistics=("sys:pearson",))
    np.testing.assert_array_equal(samples, samples_again)
    configs, judged = data()
    with cf.ThreadPoolExecutor(2) as pool:
        spread, spread_samples = evaluate(configs, judged, ["esa"], statistics=["sys:pearson"], n_bootstrap=SAMPLES,
                                          seed=SEED, resample="systems", return_samples=True, executor=pool)
    np.testing.assert_array_equal(samples, spread_samples)
    draws = system_draws(SEED, N_SYS, 0, SAMPLES)
    assert np.array_equal(draws, system_draws(SEED, N_SYS, 0, SAMPLES))
    assert not np.array_equal(draws, system_draws(SEED + 1, N_SYS, 0, SAMPLES))
    assert not np.array_equal(draws, system_draws(SEED, N_SYS, SAMPLES, SAMPLES))  # the next block draws anew


def test_pair_weights_count_pairs_of_distinct_drawn_systems():
    draws = np.array([[0, 0, 2], [1, 1, 1], [0, 1, 2]])
    # pairs (0,1) (0,2) (1,2)
    np.testing.assert_array_equal(pair_weights(draws, 3), [[0, 2, 0], [0, 0, 0], [1, 1, 1]])


def test_paired_bootstrap_comparisons_follow_the_resampling():
    configs, judged = data()
    found = {}
    for mode in ("segments", "systems"):
        found[mode] = compare(configs, judged, "esa", "pearson", "sys", n_bootstrap=SAMPLES, seed=SEED, resample=mode)
    _, _, table, samples = run("systems", statistics=("sys:pearson",))
    delta = samples[0] - samples[1]  # good - poor, on the same system draws
    low, high = np.quantile(delta[~np.isnan(delta)], [0.025, 0.975])
    row = found["systems"].iloc[0]
    assert (row.metric_a, row.metric_b) == ("good", "poor")
    assert (row.delta_ci_low, row.delta_ci_high) == pytest.approx((low, high))
    assert (row.delta_ci_low, row.delta_ci_high) != pytest.approx((found["segments"].iloc[0].delta_ci_low,
                                                                   found["segments"].iloc[0].delta_ci_high))


def test_soft_pairwise_accuracy_drawing_every_system_once_is_the_segment_bootstrap():
    """Both resampled, but each resample drawing every system once: the pairs are those of the
    segment bootstrap, each re-centred on its own permutation value, so the samples agree."""
    from metaeval.stats.syspairs import soft_pairwise_accuracy

    configs, judged = data()
    human = judged.segment_matrix("esa", configs[0].systems, configs[0].seg_ids)
    weights = np.random.default_rng(3).multinomial(N_SEG, np.full(N_SEG, 1 / N_SEG), size=SAMPLES).astype(float)
    signs = swap_signs(N_SEG, 200, np.random.default_rng(1))
    plain = soft_pairwise_accuracy(configs[1].seg_scores, human, signs=signs, weights=weights)
    every = soft_pairwise_accuracy(configs[1].seg_scores, human, signs=signs, weights=weights,
                                   draws=np.tile(np.arange(N_SYS), (SAMPLES, 1)))
    assert every.value == plain.value
    np.testing.assert_allclose(every.samples, plain.samples, atol=1e-12)


def test_soft_pairwise_accuracy_without_signs_or_rng_draws_its_permutations_from_seed_0():
    from metaeval.stats.syspairs import soft_pairwise_accuracy

    rng = np.random.default_rng(11)
    metric, human = rng.random((4, 12)), rng.integers(0, 5, (4, 12)).astype(float)
    default = soft_pairwise_accuracy(metric, human, n_permutations=50)
    seeded = soft_pairwise_accuracy(metric, human, n_permutations=50, rng=np.random.default_rng(0))
    assert default.value == seeded.value and default.counts == {"pairs": 6, "permutations": 50}
