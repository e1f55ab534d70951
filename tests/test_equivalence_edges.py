"""Edges of metaeval.equivalence the synthetic analysis in test_equivalence.py leaves open:
the settings' boundaries, Table 1's analogical M, Table 3b's columns, the length maxima, the
number of grades inside length bins, one-item inputs and the error texts."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps

from metaeval.equivalence import EquivalenceSettings, analyse, first_reaching, kappa_matrix, pearson_matrix
from metaeval.errors import UsageError
from tests.test_equivalence import _synthetic


def test_threshold_zero_is_refused_one_is_accepted():
    with pytest.raises(ValueError, match=r"threshold must be in \(0, 1\], got 0.0"):
        EquivalenceSettings(threshold=0.0)
    assert EquivalenceSettings(threshold=1.0).threshold == 1.0


def test_length_edges_may_start_at_one():
    assert EquivalenceSettings(length_edges=(1, 5), char_length_edges=[1, 2]).char_length_edges == (1, 2)
    with pytest.raises(ValueError, match="length_edges must be increasing positive integers"):
        EquivalenceSettings(length_edges=(0, 5))


def test_analogical_m_is_the_first_order_reaching_the_threshold():
    word, char = _synthetic()
    for threshold in (0.2, 0.5, 0.9):
        result = analyse(word, char, EquivalenceSettings(max_word_order=2, max_char_order=3, threshold=threshold))
        fractions = result.analogical["N=2"].to_numpy()
        hits = [m for m, f in zip(result.analogical["M"], fractions) if f >= threshold - 1e-12]
        row = result.orders.set_index("N").loc[2]
        assert (None if pd.isna(row["analogical_M"]) else int(row["analogical_M"])) == (hits[0] if hits else None)
        assert first_reaching(fractions, threshold) == (hits[0] if hits else None)


def test_ranking_agreement_columns():
    word, char = _synthetic()
    result = analyse(word, char, EquivalenceSettings(max_word_order=2, max_char_order=3))
    assert list(result.ranking_agreement.columns) == ["N", "M_star", "criterion", "spearman", "kendall_tau_b", "same_ranking"]
    for n, row in result.ranking_agreement.set_index("N").iterrows():
        expected = sps.kendalltau(word.sys[:, n - 1], char.sys[:, int(row["M_star"]) - 1]).statistic
        assert row["kendall_tau_b"] == pytest.approx(expected, abs=1e-12)


def test_no_m_star_when_every_character_order_is_constant():
    word, char = _synthetic()
    char = dataclasses.replace(char, seg=np.full_like(char.seg, 0.5))  # Pearson undefined at every M
    result = analyse(word, char, EquivalenceSettings(max_word_order=2, max_char_order=3, m_star="pearson"))
    agree = result.ranking_agreement
    assert str(agree["M_star"].dtype) == "Int64" and agree["M_star"].isna().all()
    assert agree["kendall_tau_b"].isna().all() and agree["same_ranking"].isna().all()
    assert list(result.ranking.columns) == ["system", "BLEUw2", "rank_w2"]


def test_lengths_table_has_the_maximum():
    word, char = _synthetic()
    result = analyse(word, char, EquivalenceSettings(max_word_order=2, max_char_order=3))
    lengths = result.lengths.set_index(["texts", "unit"])
    # reference words 3, 12, 12, 45; characters five times as many; hypotheses 9 words, 40 characters
    assert lengths.loc[("references", "words"), "max"] == 45
    assert lengths.loc[("references", "characters"), "max"] == 225
    assert lengths.loc[("hypotheses", "words"), "max"] == 9


def test_length_bins_use_the_number_of_grades_set():
    word, char = _synthetic()
    # one bin holding every item: its row must equal Table 1's
    settings = EquivalenceSettings(max_word_order=2, max_char_order=3, n_grades=3, length_edges=(100,), m_star="kappa")
    result = analyse(word, char, settings)
    w_items, c_items = word.seg.reshape(12, 2), char.seg.reshape(12, 3)
    kappas = kappa_matrix(w_items, c_items, 3)
    assert not np.allclose(kappas, kappa_matrix(w_items, c_items, 10), equal_nan=True)  # the grades matter here
    binned = result.by_length[result.by_length["length"] == "1-100"].set_index("N")
    for n in (1, 2):
        assert binned.loc[n, "kappa"] == pytest.approx(np.nanmax(kappas[n - 1]), abs=1e-12)
        assert binned.loc[n, "kappa"] == pytest.approx(result.orders.set_index("N").loc[n, "kappa"], abs=1e-12)


def test_pearson_matrix_of_one_item_is_all_nan_of_the_right_shape():
    out = pearson_matrix(np.array([[0.5, 0.2]]), np.array([[0.1, 0.2, 0.3]]))
    assert out.shape == (2, 3) and np.isnan(out).all()


def test_unknown_table_lists_the_known_ones():
    word, char = _synthetic()
    result = analyse(word, char, EquivalenceSettings(max_word_order=2, max_char_order=3))
    with pytest.raises(UsageError, match=r"^unknown table 'x'; known: orders, by_length, ranking, ranking_agreement, "):
        result.table("x")


def test_title_marks_an_unknown_segmenter_with_a_question_mark():
    word, char = _synthetic()
    result = analyse(word, char, EquivalenceSettings(max_word_order=2, max_char_order=3), corpus_name="toy")
    assert result.title() == "BLEU in words (w|test) vs characters (c|test): toy"
    del result.signature["word_segmenter"], result.signature["corpus"]
    assert result.title() == "BLEU in words (?) vs characters (c|test)"
