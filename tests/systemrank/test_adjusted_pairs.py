"""A system leaderboard's pairs are one family (docs/design.md, "Many comparisons"): each side's
p-values are adjusted together (Holm by default) before rank ranges, clusters and the significant
pairs ordered against the humans are formed. Expected values are worked out by hand below, or
by a slow implementation of Holm's definition written here."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metaeval.corpora.model import Judgments
from metaeval.errors import UsageError
from metaeval.report.systems import render_board
from metaeval.stats.systems.rankranges import (
    adjusted_pairs, beats_one_sided, beats_two_sided, rank_ranges, resamples_needed,
)  # fmt: skip
from metaeval.systemrank.board import build_board

from .test_board import N_SEG, SYSTEMS, _config

# Four systems, scores 4 > 3 > 2 > 1, a symmetric two-sided p-value per pair (6 pairs):
#   (0,1) 0.03  (0,2) 0.001  (0,3) 0.0005  (1,2) 0.04  (1,3) 0.002  (2,3) 0.2
# Holm, m = 6, sorted: 0.0005 x 6 = 0.003; 0.001 x 5 = 0.005; 0.002 x 4 = 0.008; 0.03 x 3 = 0.09;
#   0.04 x 2 = 0.08 -> running max 0.09; 0.2 x 1 = 0.2.
# Benjamini-Hochberg: 6/1 x 0.0005 = 0.003; 6/2 x 0.001 = 0.003; 6/3 x 0.002 = 0.004;
#   6/4 x 0.03 = 0.045; 6/5 x 0.04 = 0.048; 0.2; running minimum from the end changes none.
TWO_SIDED = {(0, 1): 0.03, (0, 2): 0.001, (0, 3): 0.0005, (1, 2): 0.04, (1, 3): 0.002, (2, 3): 0.2}
TWO_SIDED_HOLM = {(0, 1): 0.09, (0, 2): 0.005, (0, 3): 0.003, (1, 2): 0.09, (1, 3): 0.008, (2, 3): 0.2}
TWO_SIDED_BH = {(0, 1): 0.045, (0, 2): 0.003, (0, 3): 0.003, (1, 2): 0.048, (1, 3): 0.004, (2, 3): 0.2}
SCORES = np.array([4.0, 3.0, 2.0, 1.0])


def _symmetric(values: dict[tuple[int, int], float], n: int = 4) -> np.ndarray:
    p = np.ones((n, n))
    for (i, j), v in values.items():
        p[i, j] = p[j, i] = v
    return p


def test_two_sided_pairs_are_adjusted_over_the_n_n_minus_1_over_2_pairs():
    p = _symmetric(TWO_SIDED)
    np.testing.assert_allclose(adjusted_pairs(p, "holm", two_sided=True), _symmetric(TWO_SIDED_HOLM), rtol=1e-12)
    np.testing.assert_allclose(adjusted_pairs(p, "bh", two_sided=True), _symmetric(TWO_SIDED_BH), rtol=1e-12)
    np.testing.assert_array_equal(adjusted_pairs(p, "none", two_sided=True), p)


def test_the_adjustment_changes_the_clusters_as_worked_out_by_hand():
    p = _symmetric(TWO_SIDED)
    clusters = {}
    for method in ("none", "bh", "holm"):
        beats = beats_two_sided(adjusted_pairs(p, method, two_sided=True), SCORES, 0.05)
        ranges = rank_ranges(SCORES, beats)
        clusters[method] = (ranges.low.tolist(), ranges.high.tolist(), ranges.cluster.tolist())
    # raw and BH: every pair but (2,3) below 0.05 -> ranges 1, 2, 3-4, 3-4, clusters 1, 2, 3, 3
    assert clusters["none"] == clusters["bh"] == ([1, 2, 3, 3], [1, 2, 4, 4], [1, 2, 3, 3])
    # Holm: only 0>2, 0>3, 1>3 -> ranges 1-2, 1-3, 2-4, 3-4; no place lies beyond the worst rank above: one cluster
    assert clusters["holm"] == ([1, 1, 2, 3], [2, 3, 4, 4], [1, 1, 1, 1])


def test_one_sided_tests_are_adjusted_over_the_ordered_pairs():
    # Three systems, p[i, j] one-sided (i better than j); the 6 ordered tests are the family.
    # Holm, m = 6: 0.004 x 6 = 0.024; 0.01 x 5 = 0.05; 0.03 x 4 = 0.12; the rest above 1 -> 1.
    # BH: 0.004 x 6 = 0.024; 0.01 x 3 = 0.03; 0.03 x 2 = 0.06; 0.97 x 1.5, 0.99 x 1.2, 0.996 x 1
    #   -> running minimum from the end: 0.996 for the three large ones.
    p = np.array([[1.0, 0.01, 0.004], [0.99, 1.0, 0.03], [0.996, 0.97, 1.0]])
    holm = np.array([[1.0, 0.05, 0.024], [1.0, 1.0, 0.12], [1.0, 1.0, 1.0]])
    bh = np.array([[1.0, 0.03, 0.024], [0.996, 1.0, 0.06], [0.996, 0.996, 1.0]])
    np.testing.assert_allclose(adjusted_pairs(p, "holm", two_sided=False), holm, rtol=1e-12)
    np.testing.assert_allclose(adjusted_pairs(p, "bh", two_sided=False), bh, rtol=1e-12)
    scores = np.array([3.0, 2.0, 1.0])
    got = {m: rank_ranges(scores, beats_one_sided(adjusted_pairs(p, m, two_sided=False), 0.05)).cluster.tolist()
           for m in ("none", "bh", "holm")}  # fmt: skip
    # raw: 0>1, 0>2, 1>2 -> 1, 2, 3; BH: 0>1, 0>2 -> ranges 1, 2-3, 2-3 -> 1, 2, 2; Holm: 0>2 only (0.05 is not < 0.05) -> 1, 1, 1
    assert got == {"none": [1, 2, 3], "bh": [1, 2, 2], "holm": [1, 1, 1]}


def test_undefined_p_values_stay_outside_the_family():
    p = _symmetric({(0, 1): 0.01, (0, 2): np.nan, (1, 2): 0.02}, n=3)
    out = adjusted_pairs(p, "holm", two_sided=True)
    # m = 2: 0.01 x 2 = 0.02, 0.02 x 1 -> running max 0.02
    assert out[0, 1] == pytest.approx(0.02) and out[1, 2] == pytest.approx(0.02) and np.isnan(out[0, 2])


def test_resamples_needed_for_holm_to_separate_any_pair():
    # 12 systems: 66 pairs; 66 / (B + 1) < 0.05 first at B = 1320 (66 / 1321 = 0.04996; 66 / 1320 = 0.05)
    assert resamples_needed(12, 0.05) == 1320
    assert resamples_needed(29, 0.05) == 8120  # 406 pairs
    assert resamples_needed(2, 0.05) == 20  # one pair: 1 / 21 < 0.05 = 1 / 20


def _holm_by_definition(p: list[float]) -> list[float]:
    """Holm's adjusted p-values, from the definition, one at a time: for the i-th smallest,
    the largest of min(1, (m - k + 1) p_(k)) over k <= i."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    for position, i in enumerate(order):
        out[i] = max(min(1.0, (m - k) * p[order[k]]) for k in range(position + 1))
    return out


def _judgments_with_a_close_pair() -> Judgments:
    """A far ahead, D far behind, B ahead of C on 20 of 30 segments by one point and behind on 10
    by one point: a one-sided Wilcoxon p for B over C near 0.03 (significant raw, not after Holm)."""
    rng = np.random.default_rng(11)
    b = 70 + rng.integers(0, 5, size=N_SEG).astype(float)
    c = b - np.where(np.arange(N_SEG) < 20, 1.0, -1.0)
    values = np.vstack([b + 20 + rng.integers(-2, 3, size=N_SEG), b, c, b - 30 + rng.integers(-2, 3, size=N_SEG)])
    rows = [(str(j + 1), s, "j1", "esa", float(values[i, j])) for i, s in enumerate(SYSTEMS) for j in range(N_SEG)]
    return Judgments(pd.DataFrame(rows, columns=["seg_id", "system", "judge", "kind", "value"]))


def test_the_board_counts_pairs_against_the_humans_with_the_adjusted_p_values():
    judgments = _judgments_with_a_close_pair()
    raw_bc = stats.wilcoxon(
        judgments.segment_matrix("esa", ["B"], [str(j + 1) for j in range(N_SEG)])[0]
        - judgments.segment_matrix("esa", ["C"], [str(j + 1) for j in range(N_SEG)])[0],
        alternative="greater",
    ).pvalue
    assert 0.05 / 7 < raw_bc < 0.05  # significant alone; B > C is the 6th smallest of 12 ordered tests: x 7 under Holm
    config = _config("bleu", "char", [0.6, 0.3, 0.4, 0.1])  # the metric puts C above B: the pair B > C is inverted
    boards = {m: build_board([config], judgments, n_bootstrap=0, adjust=m) for m in ("none", "holm")}
    for method, board in boards.items():
        row = board.pairs.iloc[0]
        assert row["inverted_pairs"] == "B > C" and row["adjust"] == method
        human = board.comparisons[board.comparisons["source"] == "human"]
        raw = human["p_a_better"].tolist() + human["p_b_better"].tolist()
        expected = raw if method == "none" else _holm_by_definition(raw)
        np.testing.assert_allclose(human["p_a_better_adjusted"].tolist() + human["p_b_better_adjusted"].tolist(), expected, rtol=1e-12)
        assert (human["adjust"] == method).all()
    assert boards["none"].pairs.iloc[0]["inverted_human_significant"] == 1
    assert boards["holm"].pairs.iloc[0]["inverted_human_significant"] == 0
    bc = {m: b.comparisons.set_index(["source", "system_a", "system_b"]).loc[("human", "B", "C")] for m, b in boards.items()}
    assert bc["none"]["winner"] == "B" and bc["holm"]["winner"] == ""
    assert bc["none"]["p_a_better"] == bc["holm"]["p_a_better"] == pytest.approx(raw_bc, rel=1e-12)
    # the reports say which adjustment applied
    assert "adjust holm" in render_board(boards["holm"], "text") and "Holm, familywise error rate" in render_board(boards["holm"], "text")
    assert "not adjusted" in render_board(boards["none"], "markdown")
    assert boards["holm"].signature["adjust"] == "holm" and boards["none"].signature["adjust"] == "none"


def test_too_few_resamples_for_holm_is_said():
    config = _config("bleu", "char", [0.6, 0.3, 0.4, 0.1])
    few = build_board([config], _judgments_with_a_close_pair(), n_bootstrap=100, adjust="holm")
    assert any("1/101" in note and "--bootstrap 120" in note for note in few.notes)
    assert (few.table.loc[few.table["source"] == "metric", "cluster"] == 1).all()
    enough = build_board([config], _judgments_with_a_close_pair(), n_bootstrap=120, adjust="holm")
    assert not any("resamples the smallest" in note for note in enough.notes)
    assert not any("resamples the smallest" in n for n in build_board([config], _judgments_with_a_close_pair(), n_bootstrap=100, adjust="bh").notes)


def test_an_unknown_adjustment_is_a_usage_error():
    with pytest.raises(UsageError, match="adjustment 'bonferroni'"):
        build_board([_config("bleu", "char", [0.6, 0.3, 0.4, 0.1])], _judgments_with_a_close_pair(), adjust="bonferroni")
