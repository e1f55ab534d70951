"""Significance between systems: the paired bootstrap against a plain implementation written
here, the Wilcoxon tests against scipy and against WMT24's Stouffer formula written out, and the
rank ranges and clusters against cases worked by hand and WMT24's published English-Chinese table."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from metaeval.metrics import get_metric
from metaeval.scoretable import ConfigScores
from metaeval.stats.systems.bootstrap import human_samples, metric_samples, paired_bs_p_values, segment_resamples
from metaeval.stats.systems.rankranges import beats_one_sided, beats_two_sided, rank_ranges, walk_clusters
from metaeval.stats.systems.wilcoxon import one_sided_p, stratified_p, wilcoxon_p_values

SEED = 4321


def _bleu_config(n_systems: int = 4, n_segments: int = 40, seed: int = 7) -> ConfigScores:
    """BLEU statistics of ``n_systems`` random token outputs against one random reference."""
    rng = np.random.default_rng(seed)
    vocab = list("abcdefghij")
    refs = [[list(rng.choice(vocab, size=rng.integers(5, 12))) for _ in range(n_segments)]]
    metric = get_metric("bleu")
    stats_ = []
    for s in range(n_systems):
        keep = 0.3 + 0.15 * s  # each system copies more of the reference
        hyps = [[t if rng.random() < keep else str(rng.choice(vocab)) for t in ref] for ref in refs[0]]
        stats_.append(metric.stats(hyps, refs))
    stacked = np.stack(stats_)
    return ConfigScores(
        metric="bleu", segmenter="char", config="bleu+char", systems=[f"s{i}" for i in range(n_systems)],
        seg_ids=[str(i + 1) for i in range(n_segments)], seg_scores=metric.score(stacked),
        sys_scores=metric.score(stacked.sum(axis=1)), stats=stacked, score_fn=metric.score,
    )  # fmt: skip


def _plain_paired_bs(config: ConfigScores, a: int, b: int, n_samples: int, seed: int) -> float:
    """sacrebleu's paired bootstrap written out: draw the resamples as sacrebleu does, sum each
    system's statistics over them, score, and count shifted absolute differences."""
    rng = np.random.default_rng(seed)
    n = len(config.seg_ids)
    idxs = rng.choice(n, size=(n_samples, n), replace=True)
    score = config.score_fn
    diffs = []
    for idx in idxs:
        score_a = float(score(config.stats[a][idx].sum(axis=0)))
        score_b = float(score(config.stats[b][idx].sum(axis=0)))
        diffs.append(abs(score_a - score_b))
    diffs_array = np.array(diffs)
    real = abs(float(config.sys_scores[a]) - float(config.sys_scores[b]))
    count = int(np.sum(diffs_array - diffs_array.mean() > real))
    return (count + 1) / (n_samples + 1)


def test_paired_bootstrap_equals_the_plain_implementation_at_the_same_seed():
    config = _bleu_config()
    samples = metric_samples(config, segment_resamples(len(config.seg_ids), 300, SEED))
    p = paired_bs_p_values(config.sys_scores, samples)
    for a in range(4):
        for b in range(4):
            if a != b:
                assert p[a, b] == pytest.approx(_plain_paired_bs(config, a, b, 300, SEED), abs=1e-12), (a, b)
    assert np.allclose(p, p.T) and np.all(np.diag(p) == 1.0)
    assert p.min() < 0.05 < p.max()  # the case holds both separable and inseparable pairs


def test_identical_systems_are_never_apart_and_undefined_scores_are_left_out():
    samples = np.array([[0.5, 0.5, 0.1], [0.4, 0.4, np.nan], [0.6, 0.6, 0.3], [0.5, 0.5, 0.2]])
    p = paired_bs_p_values(np.array([0.5, 0.5, 0.2]), samples)
    assert p[0, 1] == 1.0  # sacrebleu's formula would give 1 / (B + 1)
    # system 2 is undefined on resample 1: three resamples count; d = |0.5 - s2| = 0.4, 0.3, 0.3
    # (mean 1/3), shifted 0.067, -0.033, -0.033: none above the observed 0.3
    assert p[0, 2] == pytest.approx(1 / 4)
    assert np.isnan(paired_bs_p_values(np.array([0.5, np.nan]), samples[:, :2])[0, 1])


def test_human_samples_are_means_over_the_resampled_judged_segments():
    matrix = np.array([[1.0, 2.0, np.nan], [3.0, np.nan, np.nan]])
    indices = np.array([[0, 0, 2], [1, 2, 2], [2, 2, 2]])
    out = human_samples(matrix, indices)
    assert out[0, 0] == 1.0 and out[0, 1] == 3.0
    assert out[1, 0] == 2.0 and np.isnan(out[1, 1])
    assert np.isnan(out[2]).all()


def test_wilcoxon_p_values_are_scipys_one_sided_tests_on_common_segments():
    rng = np.random.default_rng(3)
    matrix = rng.integers(0, 100, size=(3, 60)).astype(float)
    matrix[1, :5] = np.nan
    matrix[0] = matrix[2] + rng.integers(-5, 30, size=60)  # mostly above system 2, and so above 1
    p = wilcoxon_p_values(matrix)
    both = ~np.isnan(matrix[1])
    assert p[0, 1] == pytest.approx(stats.wilcoxon(matrix[0, both] - matrix[1, both], alternative="greater").pvalue)
    assert p[1, 0] == pytest.approx(stats.wilcoxon(matrix[1, both] - matrix[0, both], alternative="greater").pvalue)
    assert p[0, 2] == pytest.approx(stats.wilcoxon(matrix[0] - matrix[2], alternative="greater").pvalue)
    assert p[0, 2] < 0.05 < p[2, 0] and np.all(np.diag(p) == 1.0)


def test_stratified_p_is_wmt24s_stouffer_combination():
    rng = np.random.default_rng(11)
    d = rng.normal(0.3, 1.0, size=90)
    strata = np.array(["news", "social", "speech"] * 30)
    # weighted_wilcoxon_signed_rank_test of WMT24's humeval/tools.py, written out
    per_domain = [stats.wilcoxon(d[strata == s], alternative="greater").pvalue for s in ("news", "social", "speech")]
    z = [stats.norm.ppf(1 - p) for p in per_domain]
    expected = 1 - stats.norm.cdf(np.sum(z) / np.sqrt(3))
    assert stratified_p(d, strata) == pytest.approx(expected, rel=1e-9)
    matrix = np.vstack([d, np.zeros(90)])
    assert wilcoxon_p_values(matrix, strata)[0, 1] == pytest.approx(expected, rel=1e-9)


def test_pairs_without_differences():
    assert one_sided_p(np.zeros(7)) == 1.0
    strata = np.array([0, 0, 1, 1])
    assert stratified_p(np.array([0.0, 0.0, 1.0, 2.0]), strata) == one_sided_p(np.array([1.0, 2.0]))
    assert stratified_p(np.zeros(4), strata) == 1.0
    p = wilcoxon_p_values(np.array([[1.0, np.nan], [np.nan, 2.0]]))
    assert np.isnan(p[0, 1]) and np.isnan(p[1, 0])


def test_rank_ranges_and_clusters_worked_by_hand():
    # scores A > B > C > D; A beats C and D, B beats D, C beats D
    scores = np.array([4.0, 3.0, 2.0, 1.0])
    beats = np.zeros((4, 4), dtype=bool)
    beats[0, 2] = beats[0, 3] = beats[1, 3] = beats[2, 3] = True
    ranges = rank_ranges(scores, beats)
    assert ranges.low.tolist() == [1, 1, 2, 4]
    assert ranges.high.tolist() == [2, 3, 3, 4]
    # A: cut-off 2; B at place 2 stays (cut-off 3); C at 3 stays; D at 4 > 3 opens cluster 2
    assert ranges.cluster.tolist() == [1, 1, 1, 2]
    # the input order does not matter, the scores do
    shuffled = rank_ranges(scores[[3, 1, 0, 2]], beats[np.ix_([3, 1, 0, 2], [3, 1, 0, 2])])
    assert shuffled.cluster.tolist() == [2, 1, 1, 1]


def test_clusters_of_wmt24s_published_english_chinese_table():
    """generated_human_ranking.tex (wmt24-news-systems, 71cc027), English-Chinese: systems in
    the table's order with their published rank ranges; its rules (midrule) close clusters
    after CommandR-plus, HW-TSC and Aya23."""
    worst = [7, 6, 4, 8, 7, 7, 6, 8, 10, 10, 12, 12, 13]  # ONLINE-B ... IKUN-C
    scores = -np.arange(13.0)  # the table lists them by score
    assert walk_clusters(scores, np.array(worst)).tolist() == [1] * 8 + [2, 2, 3, 3, 4]


def test_beats_from_p_values():
    p = np.array([[1.0, 0.01, np.nan], [0.01, 1.0, 0.2], [np.nan, 0.2, 1.0]])
    assert beats_one_sided(p, 0.05).tolist() == [[False, True, False], [True, False, False], [False, False, False]]
    two = beats_two_sided(p, np.array([0.2, 0.3, 0.1]), 0.05)
    assert two.tolist() == [[False, False, False], [True, False, False], [False, False, False]]
