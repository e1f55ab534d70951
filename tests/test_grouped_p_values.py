"""The p-value of a grouped correlation: the groups' scipy p-values averaged as mt-metrics-eval's
``AverageCorrelation`` averages them, checked against a loop written from that definition (per
group: gold-unjudged items dropped, groups of fewer than two items skipped, a constant side NaN;
then the sum of weight x p over defined groups divided by their total weight, with
``replace_nans_with_zeros`` adding a NaN group's weight and nothing else)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats

from metaeval.stats.correlations import segment_correlation

SCIPY = {"pearson": scipy.stats.pearsonr, "spearman": scipy.stats.spearmanr, "kendall": scipy.stats.kendalltau}


def average_correlation(metric: np.ndarray, human: np.ndarray, method: str, grouping: str, macro: bool, zeros: bool) -> tuple[float, float]:
    """(correlation, p-value) of mt-metrics-eval's AverageCorrelation, one group at a time."""
    rows = (metric, human) if grouping == "sys" else (metric.T, human.T)
    total_corr, total_p, n = 0.0, 0.0, 0.0
    for m, h in zip(*rows):
        keep = ~np.isnan(h)
        m, h = m[keep], h[keep]
        if len(h) <= 1:
            continue
        if np.all(m == m[0]) or np.all(h == h[0]):
            corr, p = math.nan, math.nan
        else:
            res = SCIPY[method](h, m)
            corr, p = float(res[0]), float(res[1])
        k = 1.0 if macro else float(len(h))
        if not math.isnan(corr):
            total_corr += k * corr
            total_p += k * p
            n += k
        elif zeros:
            n += k
    return (total_corr / n, total_p / n) if n else (0.0, 0.0)


def data(seed: int, n_sys: int = 6, n_seg: int = 15) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    human = np.round(rng.normal(70, 15, (n_sys, n_seg)))
    metric = human / 100 + rng.normal(0, 0.2, (n_sys, n_seg))
    human[:, 2] = 50.0  # a segment every system got the same score: undefined by item
    metric[1, :] = 0.3  # a system with one metric score: undefined by system
    human[0, 4] = human[3, 7] = np.nan  # unjudged cells: groups of unequal size
    human[:5, 9] = np.nan  # a segment judged for one system only: no pair, not a group
    return metric, human


@pytest.mark.parametrize("method", ["pearson", "spearman", "kendall"])
@pytest.mark.parametrize("grouping", ["item", "sys"])
@pytest.mark.parametrize("average", ["macro", "micro"])
@pytest.mark.parametrize("undefined", ["skip", "zero"])
def test_grouped_p_value_is_the_average_of_the_groups_p_values(method, grouping, average, undefined):
    for seed in range(3):
        metric, human = data(seed)
        got = segment_correlation(metric, human, method, grouping, average=average, undefined=undefined)
        value, p = average_correlation(metric, human, method, grouping, average == "macro", undefined == "zero")
        assert got.value == pytest.approx(value, abs=1e-12)
        assert got.p_value == pytest.approx(p, rel=1e-9, abs=1e-12)
        assert 0 < got.p_value < 1


def test_undefined_groups_counted_as_zero_lower_the_averaged_p_value():
    metric, human = data(4)
    skip = segment_correlation(metric, human, "pearson", "item", undefined="skip")
    zero = segment_correlation(metric, human, "pearson", "item", undefined="zero")
    # segment 3 (index 2) is undefined: it adds weight 1 and p 0 to the mean of the other 13 groups
    assert zero.p_value == pytest.approx(skip.p_value * 13 / 14, rel=1e-12)


def test_grouping_none_keeps_scipys_p_value_and_every_group_undefined_gives_none():
    metric, human = data(5)
    pooled = segment_correlation(metric, human, "pearson", "none")
    keep = ~np.isnan(human)
    assert pooled.p_value == pytest.approx(scipy.stats.pearsonr(metric[keep], human[keep]).pvalue, rel=1e-9)
    flat = segment_correlation(np.ones((4, 5)), human[:4, :5], "spearman", "item")
    assert math.isnan(flat.value) and math.isnan(flat.p_value)


# --- mt-metrics-eval's own numbers --------------------------------------------------------------

from pathlib import Path  # noqa: E402

import pandas as pd  # noqa: E402

from tests.golden_util import GOLDEN  # noqa: E402

MTME = GOLDEN / "mtme-stats" / "en-zh"
#: Values and p-values of mt-metrics-eval's AverageCorrelation (google-research/mt-metrics-eval at
#: commit 68a481a, stats.py, run as it is on the golden folder's scores and judgments: sentence
#: BLEU on characters, on jieba words and rounded), for Pearson, Spearman and Kendall (scipy's
#: pearsonr, spearmanr, kendalltau), average_by item and sys, macro and micro, NaN groups skipped
#: or counted as zero; each row names the call in its ``source`` column.
AVERAGED = Path(__file__).with_name("fixtures") / "mtme-averaged-p.tsv"


@pytest.mark.skipif(not MTME.is_dir(), reason=f"golden folder not found: {MTME}")
def test_grouped_values_and_p_values_equal_mt_metrics_evals_average_correlation():
    from metaeval.api import correlate

    golden = pd.read_csv(AVERAGED, sep="\t")
    assert len(golden) == 72
    worst = 0.0
    for (grouping, average, undefined), rows in golden.groupby(["grouping", "average", "undefined"]):
        table = correlate(MTME / "scores.tsv", MTME / "judgments.tsv", statistics=["seg:pearson", "seg:spearman", "seg:kendall"],
                          groupings=[grouping], levels=["seg"], bootstrap=0, average=average, undefined=undefined)
        table["config"] = table.metric + "+" + table.segmenter
        got = table.set_index(["config", "statistic"])
        for r in rows.itertuples(index=False):
            mine = got.loc[(r.config, r.statistic)]
            assert mine.value == pytest.approx(r.value, abs=1e-12), r.source
            assert mine.p_value == pytest.approx(r.p_value, abs=1e-12), r.source
            worst = max(worst, abs(mine.p_value - r.p_value))
    assert worst < 1e-12
