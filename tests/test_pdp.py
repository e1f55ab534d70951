"""Pairwise-difference Pearson (``pdp``): mt-metrics-eval's values, a slow implementation of the
definition written here, Pearson's r where the two coincide, and exact bootstrap samples."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from metaeval.cli import main
from metaeval.stats.correlations import pairwise_difference_pearson, segment_correlation
from metaeval.stats.resampling import bootstrap_indices, resample_weights
from tests.golden_util import GOLDEN

MTME = GOLDEN / "mtme-stats" / "en-zh"


def slow_pdp(metric: np.ndarray, human: np.ndarray, groups: list[list[tuple[int, int]]]) -> float:
    """The definition, pair by pair: within each group (a list of cells), every ordered pair of
    cells judged on both sides gives a human and a metric difference; one Pearson over all."""
    dh, dm = [], []
    for cells in groups:
        judged = [c for c in cells if not (np.isnan(human[c]) or np.isnan(metric[c]))]
        for a, b in itertools.product(judged, judged):
            dh.append(human[a] - human[b])
            dm.append(metric[a] - metric[b])
    return float(scipy.stats.pearsonr(dm, dh)[0])


def cells_of(shape: tuple[int, int], grouping: str) -> list[list[tuple[int, int]]]:
    n_sys, n_seg = shape
    if grouping == "none":
        return [[(i, s) for s in range(n_seg) for i in range(n_sys)]]
    if grouping == "item":
        return [[(i, s) for i in range(n_sys)] for s in range(n_seg)]
    return [[(i, s) for s in range(n_seg)] for i in range(n_sys)]


def test_every_mtme_golden_pdp_row_through_correlate(capsys) -> None:
    golden = pd.read_csv(MTME / "golden-pdp.tsv", sep="\t", keep_default_na=False)
    assert len(golden) == 9 and set(golden.statistic) == {"pdp"}
    code = main(["correlate", "--scores", str(MTME / "scores.tsv"), "--judgments", str(MTME / "judgments.tsv"),
                 "--bootstrap", "0", "--format", "tsv", "--statistic", "seg:pdp", "--grouping", "none,item,sys"])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    ours = pd.read_csv(pd.io.common.StringIO(out), sep="\t", comment="#", keep_default_na=False)
    for row in golden.itertuples():
        hit = ours[(ours.config == row.config) & (ours.level == row.level) & (ours.statistic == "pdp") & (ours.grouping == row.grouping)]
        assert len(hit) == 1, row
        assert float(hit.value.iloc[0]) == pytest.approx(float(row.value), abs=float(row.tolerance)), row


@pytest.mark.parametrize("grouping", ["none", "item", "sys"])
@pytest.mark.parametrize("directions", [(1, 1), (-1, 1), (1, -1)])
def test_pdp_is_the_pearson_of_every_pair_difference_within_the_groups(grouping, directions) -> None:
    rng = np.random.default_rng(7)
    metric = rng.normal(size=(5, 9)).round(1)  # ties within groups too
    human = (metric * 0.6 + rng.normal(size=(5, 9))).round(0)
    human[1, 2] = human[3, 7] = np.nan  # unjudged cells, dropped with their pairs
    metric_direction, human_direction = directions
    ours = pairwise_difference_pearson(metric, human, grouping, metric_direction=metric_direction, human_direction=human_direction)
    expected = slow_pdp(metric * metric_direction, human * human_direction, cells_of(metric.shape, grouping))
    assert ours.value == pytest.approx(expected, abs=1e-12)
    judged = [sum(not np.isnan(human[c]) for c in cells) for cells in cells_of(metric.shape, grouping)]
    assert ours.n == sum(k * (k - 1) // 2 for k in judged)


def test_pdp_by_none_is_pearsons_r_and_pooling_differs_from_averaging() -> None:
    rng = np.random.default_rng(3)
    metric, human = rng.normal(size=(6, 12)), rng.normal(size=(6, 12))
    assert pairwise_difference_pearson(metric, human, "none").value == pytest.approx(
        scipy.stats.pearsonr(metric.ravel(), human.ravel())[0], abs=1e-12)
    pooled = pairwise_difference_pearson(metric, human, "item").value
    averaged = segment_correlation(metric, human, "pearson", "item").value
    assert abs(pooled - averaged) > 1e-3  # pooled over segments, not the mean of per-segment correlations


@pytest.mark.parametrize("grouping", ["none", "item", "sys"])
def test_bootstrap_samples_are_pdp_of_the_resampled_data(grouping) -> None:
    """Each sample is the statistic of the resampled segments built explicitly: by item, each drawn
    segment is a group of its own; by system or pooled, its items join their group (copies of an
    item differ by 0)."""
    rng = np.random.default_rng(11)
    metric = rng.normal(size=(4, 7))
    human = metric + rng.normal(size=(4, 7))
    human[2, 3] = np.nan
    indices = bootstrap_indices(7, 5, np.random.default_rng(1))
    result = pairwise_difference_pearson(metric, human, grouping, weights=resample_weights(indices, 7))
    for b, drawn in enumerate(indices):
        m, h = metric[:, drawn], human[:, drawn]
        assert result.samples[b] == pytest.approx(slow_pdp(m, h, cells_of(m.shape, grouping)), abs=1e-12)
    assert result.ci_low <= result.ci_high


def test_pdp_without_a_pair_or_with_a_constant_side_is_undefined() -> None:
    one_system = pairwise_difference_pearson(np.ones((1, 5)), np.arange(5.0)[None], "item")
    assert np.isnan(one_system.value) and "two judged items in a segment" in one_system.undefined_reason
    constant = pairwise_difference_pearson(np.arange(12.0).reshape(3, 4), np.full((3, 4), 50.0), "sys")
    assert np.isnan(constant.value) and "constant human scores" in constant.undefined_reason


def test_pdp_at_system_level_is_pearson_of_the_system_scores(capsys) -> None:
    code = main(["correlate", "--scores", str(MTME / "scores.tsv"), "--judgments", str(MTME / "judgments.tsv"),
                 "--human-sys", str(MTME / "human_sys.tsv"), "--bootstrap", "0", "--format", "tsv",
                 "--statistic", "sys:pdp", "--statistic", "sys:pearson"])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    ours = pd.read_csv(pd.io.common.StringIO(out), sep="\t", comment="#", keep_default_na=False)
    pdp, pearson = (ours[ours.statistic == name].set_index("config").value for name in ("pdp", "pearson"))
    assert len(pdp) == 3 and (pdp == pearson).all()


def test_humans_constant_within_every_segment_leave_pdp_undefined_whatever_their_means() -> None:
    """Each segment's human scores are one value (0.1 and 0.7, whose means of three are 0.1 +
    1.4e-17 and 0.7 - 1.1e-16): every pair differs by 0 on the human side, so the value is
    undefined; a group's constancy is its own, not measured against other groups."""
    metric = np.array([[0.2, 0.5], [0.4, 0.1], [0.9, 0.3]])
    human = np.array([[0.1, 0.7], [0.1, 0.7], [0.1, 0.7]])
    result = pairwise_difference_pearson(metric, human, "item")
    assert math.isnan(result.value) and result.undefined_reason == "pdp: constant human scores within every segment"
