"""The system leaderboard of a scored corpus: its tables agree with the pieces they are built
from, and the human side follows the kind's direction, the given system scores and the test asked for."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metaeval.corpora.model import Judgments
from metaeval.errors import UsageError
from metaeval.scoretable import ConfigScores
from metaeval.systemrank.board import build_board, resolve_kinds
from metaeval.stats.systems.bootstrap import metric_samples, paired_bs_p_values, segment_resamples
from metaeval.stats.systems.ranks import competition_ranks, pair_order
from metaeval.stats.systems.wilcoxon import wilcoxon_p_values

SYSTEMS = ["A", "B", "C", "D"]
N_SEG = 30


def _judgments(kind: str = "esa", values: np.ndarray | None = None, system_scores: pd.DataFrame | None = None) -> Judgments:
    rng = np.random.default_rng(5)
    if values is None:  # A best, D worst on average; B and C close
        values = np.array([80, 70, 69, 40])[:, None] + rng.integers(-10, 11, size=(4, N_SEG))
    rows = [(str(j + 1), s, "j1", kind, float(values[i, j])) for i, s in enumerate(SYSTEMS) for j in range(N_SEG)]
    table = pd.DataFrame(rows, columns=["seg_id", "system", "judge", "kind", "value"])
    return Judgments(table, system_scores)


def _config(metric: str, segmenter: str, sys_scores: list[float], higher_is_better: bool = True) -> ConfigScores:
    """A configuration whose statistic is one number per segment and whose score is its mean:
    stats [sum, count] per segment."""
    rng = np.random.default_rng(len(segmenter) + len(metric))
    seg = np.array(sys_scores)[:, None] + rng.normal(0, 0.05, size=(4, N_SEG))
    stats = np.stack([seg, np.ones_like(seg)], axis=-1)

    def score(s: np.ndarray) -> np.ndarray:
        return s[..., 0] / s[..., 1]

    return ConfigScores(metric, segmenter, f"{metric}+{segmenter}", list(SYSTEMS), [str(j + 1) for j in range(N_SEG)],
                        seg, score(stats.sum(axis=1)), higher_is_better, stats, score)  # fmt: skip


ORDER = pd.DataFrame({"name": ["char", "jieba"], "family": ["characters", "words"], "chars_per_token": [1.0, 1.7]})


def test_tables_agree_with_their_pieces():
    configs = [_config("bleu", "jieba", [0.5, 0.3, 0.4, 0.1]), _config("bleu", "char", [0.6, 0.5, 0.2, 0.3])]
    judgments = _judgments()
    board = build_board(configs, judgments, n_bootstrap=200, seed=9, granularities=ORDER, dataset="toy")
    table = board.table
    human = table[table["source"] == "human"]
    assert human["system"].tolist() == ["A", "B", "C", "D"] and human["rank"].tolist() == [1, 2, 3, 4]
    # segmenters in the given order (char before jieba), whatever the order of the configurations
    assert list(dict.fromkeys(table.loc[table["source"] == "metric", "segmenter"])) == ["char", "jieba"]
    char = table[table["segmenter"] == "char"].set_index("system")
    assert char.loc[["A", "B", "C", "D"], "rank"].tolist() == [1, 2, 4, 3]
    assert (char["displacement"] == char["rank"] - char["human_rank"]).all()
    # metric clusters come from sacrebleu's p-values on the shared resamples
    p = paired_bs_p_values(configs[1].sys_scores, metric_samples(configs[1], segment_resamples(N_SEG, 200, 9)))
    got = board.comparisons[(board.comparisons["segmenter"] == "char")].set_index(["system_a", "system_b"])
    assert got.loc[("A", "B"), "p_a_better"] == got.loc[("A", "B"), "p_b_better"] == p[0, 1]
    # human ranges from WMT24's Wilcoxon tests on the judgments
    human_p = wilcoxon_p_values(judgments.segment_matrix("esa", SYSTEMS, [str(j + 1) for j in range(N_SEG)]))
    human_pairs = board.comparisons[board.comparisons["source"] == "human"].set_index(["system_a", "system_b"])
    assert human_pairs.loc[("B", "C"), "p_a_better"] == human_p[1, 2]
    assert human_pairs.loc[("A", "D"), "winner"] == "A"
    # the pairs table counts what pair_order counts
    row = board.pairs[board.pairs["segmenter"] == "char"].iloc[0]
    order = pair_order(np.array([4.0, 3.0, 2.0, 1.0]), configs[1].sys_scores)
    assert (row["pairs"], row["inverted"]) == (order.ordered, len(order.inverted)) == (6, 1)
    assert row["inverted_pairs"] == "C > D"
    assert board.signature["n_bootstrap"] == 200 and board.signature["seed"] == 9


def test_the_same_seed_gives_the_same_board_and_another_seed_other_p_values():
    configs = [_config("bleu", "char", [0.6, 0.58, 0.2, 0.3])]
    first = build_board(configs, _judgments(), n_bootstrap=100, seed=1)
    again = build_board(configs, _judgments(), n_bootstrap=100, seed=1)
    other = build_board(configs, _judgments(), n_bootstrap=100, seed=2)
    pd.testing.assert_frame_equal(first.comparisons, again.comparisons)
    assert not first.comparisons["p_a_better"].equals(other.comparisons["p_a_better"])


def test_lower_is_better_on_both_sides():
    # mqm: lower is better, so D (lowest) is the humans' first; TER-like metric: lower is better
    values = np.array([[5.0] * N_SEG, [4.0] * N_SEG, [3.0] * N_SEG, [1.0] * N_SEG])
    values[:, ::2] += 0.5
    config = _config("ter", "char", [0.9, 0.5, 0.6, 0.1], higher_is_better=False)
    board = build_board([config], _judgments("mqm", values), n_bootstrap=0)
    human = board.table[board.table["source"] == "human"]
    assert human["system"].tolist() == ["D", "C", "B", "A"]
    metric = board.table[board.table["source"] == "metric"].set_index("system")
    assert metric.loc[["D", "B", "C", "A"], "rank"].tolist() == [1, 2, 3, 4]
    assert metric["cluster"].isna().all()  # no resamples, no metric clusters
    assert human["cluster"].notna().all()  # the Wilcoxon tests need none


def test_given_system_scores_rank_and_extra_systems_are_named():
    given = pd.DataFrame({"esa": [1.0, 4.0, 3.0, 2.0, 9.0]}, index=pd.Index(["A", "B", "C", "D", "translator"], name="system"))
    board = build_board([_config("bleu", "char", [0.1, 0.2, 0.3, 0.4])], _judgments(system_scores=given), n_bootstrap=0)
    human = board.table[board.table["source"] == "human"]
    assert human["system"].tolist() == ["B", "C", "D", "A"] and human["score"].tolist() == [4.0, 3.0, 2.0, 1.0]
    assert any("translator" in note and "without outputs" in note for note in board.notes)


def test_system_level_scores_only_have_no_human_clusters():
    given = pd.DataFrame({"da_z": [0.3, 0.2, 0.1, np.nan]}, index=pd.Index(SYSTEMS, name="system"))
    empty = pd.DataFrame(columns=["seg_id", "system", "judge", "kind", "value"])
    board = build_board([_config("bleu", "char", [0.1, 0.2, 0.3, 0.4])], Judgments(empty, given), n_bootstrap=50)
    human = board.table[board.table["source"] == "human"]
    assert human["system"].tolist() == ["A", "B", "C"] and human["cluster"].isna().all()
    assert any("segment judgments" in note for note in board.notes)
    assert any("no human score for D" in note for note in board.notes)
    assert board.table.loc[board.table["source"] == "metric", "cluster"].notna().all()


def test_bootstrap_on_the_human_side():
    board = build_board([_config("bleu", "char", [0.1, 0.2, 0.3, 0.4])], _judgments(), n_bootstrap=300, seed=3, human_test="bootstrap")
    pairs = board.comparisons[board.comparisons["source"] == "human"]
    assert (pairs["p_a_better"] == pairs["p_b_better"]).all()
    assert pairs.set_index(["system_a", "system_b"]).loc[("A", "D"), "winner"] == "A"
    assert "bootstrap" in board.signature["human_test"]
    without = build_board([_config("bleu", "char", [0.1, 0.2, 0.3, 0.4])], _judgments(), n_bootstrap=0, human_test="bootstrap")
    assert without.table["cluster"].isna().all() and any("resamples" in n for n in without.notes)


def test_kinds_and_options_are_checked():
    judgments = _judgments()
    assert resolve_kinds(judgments, None) == ["esa"]
    with pytest.raises(UsageError, match="kind 'da'"):
        resolve_kinds(judgments, ["da"])
    config = _config("bleu", "char", [0.1, 0.2, 0.3, 0.4])
    for options in ({"human_test": "t-test"}, {"alpha": 1.0}, {"alpha": True}, {"n_bootstrap": 1}, {"n_bootstrap": -2}):
        with pytest.raises(UsageError):
            build_board([config], judgments, **options)
    with pytest.raises(UsageError, match="no scored configurations"):
        build_board([], judgments)
    other = ConfigScores("bleu", "jieba", "x", ["A", "B"], ["1"], np.zeros((2, 1)), np.zeros(2))
    with pytest.raises(UsageError, match="different systems or segments"):
        build_board([config, other], judgments)


def test_a_kind_with_one_ranked_system_is_a_note_not_rows():
    values = np.full((4, N_SEG), np.nan)
    values[0] = 50.0
    table = pd.DataFrame([(str(j + 1), "A", "j1", "esa", 50.0) for j in range(N_SEG)], columns=["seg_id", "system", "judge", "kind", "value"])
    board = build_board([_config("bleu", "char", [0.1, 0.2, 0.3, 0.4])], Judgments(table), n_bootstrap=0)
    assert board.table.empty and any("nothing to rank" in note for note in board.notes)


def test_ranks_are_competition_ranks_of_the_scores():
    board = build_board([_config("bleu", "char", [0.4, 0.4, 0.3, 0.1])], _judgments(), n_bootstrap=0)
    metric = board.table[board.table["source"] == "metric"].set_index("system")
    scores = metric.loc[SYSTEMS, "score"].to_numpy()
    assert metric.loc[SYSTEMS, "rank"].tolist() == competition_ranks(scores).tolist()


def test_a_segmenter_outside_the_granularity_order_comes_last_and_progress_counts_configurations():
    configs = [_config("bleu", "spm", [0.5, 0.3, 0.4, 0.1]), _config("bleu", "jieba", [0.6, 0.5, 0.2, 0.3]),
               _config("bleu", "char", [0.6, 0.5, 0.2, 0.3])]  # fmt: skip
    calls: list[tuple[str, int, int]] = []
    board = build_board(configs, _judgments(), n_bootstrap=50, seed=9, granularities=ORDER,
                        progress=lambda *a: calls.append(a))  # fmt: skip
    assert list(dict.fromkeys(board.table.loc[board.table["source"] == "metric", "segmenter"])) == ["char", "jieba", "spm"]
    assert calls == [("ranking", 1, 3), ("ranking", 2, 3), ("ranking", 3, 3)]
    assert board.signature["granularity_order"] == "mean characters per token over the references (the sweep's axis)"


def test_without_resamples_no_metric_pair_has_a_winner_and_raw_p_values_are_wmt24s():
    configs = [_config("bleu", "char", [0.6, 0.5, 0.2, 0.3])]
    board = build_board(configs, _judgments(), n_bootstrap=0, adjust="none", granularities=ORDER)
    metric = board.comparisons[board.comparisons["source"] == "metric"]
    assert len(metric) == 6 and (metric["winner"] == "").all() and (metric["adjust"] == "").all()
    assert board.signature["adjust_families"] == "none: raw p-values compared with alpha (as WMT24)"


def test_pairs_inverted_and_significant_on_both_sides_are_listed_like_the_inverted_ones():
    """Humans far apart in one order, the metric far apart in the reverse: every pair is inverted
    and significant on both sides, so both lists name all six, joined alike."""
    values = np.array([90, 60, 30, 0])[:, None] + np.zeros((4, N_SEG))
    configs = [_config("bleu", "char", [0.1, 0.4, 0.7, 1.0])]
    board = build_board(configs, _judgments(values=values + np.arange(N_SEG) % 3), n_bootstrap=200, seed=1, granularities=ORDER)
    row = board.pairs.iloc[0]
    assert row["inverted"] == 6 and row["inverted_both_significant"] == 6
    assert row["inverted_pairs"].split("; ") == ["A > B", "A > C", "A > D", "B > C", "B > D", "C > D"]
    assert row["inverted_pairs_significant"] == row["inverted_pairs"]
