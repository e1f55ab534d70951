"""chrF / chrF++: sacrebleu 2.6.0 as the oracle (scores / 100), and hand-computed cases."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import CHRF

from metaeval.metrics import get_metric
from metaeval.metrics.chrf import ChrF
from tests.golden_util import GOLDEN, load_golden_folder


def _oracle(metric: ChrF, hyps, refs):
    sb = CHRF(char_order=metric.char_order, word_order=metric.word_order, beta=metric.beta,
              eps_smoothing=metric.eps_smoothing, whitespace=metric.whitespace)
    joined_refs = [[" ".join(t) for t in ref] for ref in refs]
    joined_hyps = [" ".join(t) for t in hyps]
    sentences = [sb.sentence_score(h, [r[i] for r in joined_refs]).score / 100 for i, h in enumerate(joined_hyps)]
    return np.array(sentences), sb.corpus_score(joined_hyps, joined_refs).score / 100


@pytest.mark.skipif(not GOLDEN.is_dir(), reason=f"golden folder {GOLDEN} does not exist")
@pytest.mark.parametrize("spec", ["chrf", "chrf++"])
def test_matches_sacrebleu_on_real_data(spec):
    # WMT21 en-zh characters, two references; and WMT21 de-en words for chrF++'s word n-grams
    for folder in ("en-zh-chars", "de-en-words"):
        refs, systems, _ = load_golden_folder(GOLDEN / folder)
        metric = get_metric(spec)
        prepared = metric.prepare(refs)
        for hyps in list(systems.values())[:2]:
            stats = metric.segment_stats(hyps, prepared)
            sentences, corpus = _oracle(metric, hyps, refs)
            np.testing.assert_allclose(metric.score(stats), sentences, rtol=0, atol=1e-12)
            assert float(metric.score(stats.sum(0))) == pytest.approx(corpus, abs=1e-12)


tokens = st.lists(st.sampled_from(["a", "ab", "b.", "c", "中", "中文", ",x"]), min_size=0, max_size=8)


@settings(max_examples=100, deadline=None)
@given(
    data=st.lists(st.tuples(tokens, tokens, tokens), min_size=1, max_size=4),
    word_order=st.sampled_from([0, 2]),
    char_order=st.integers(1, 6),
    beta=st.integers(1, 3),
    eps_smoothing=st.booleans(),
    whitespace=st.booleans(),
    two_refs=st.booleans(),
)
def test_property_matches_sacrebleu(data, word_order, char_order, beta, eps_smoothing, whitespace, two_refs):
    # every combination of the options, eps_smoothing and whitespace included
    hyps = [h for h, _, _ in data]
    refs = [[r for _, r, _ in data]] + ([[r for _, _, r in data]] if two_refs else [])
    metric = ChrF(char_order=char_order, word_order=word_order, beta=beta, eps_smoothing=eps_smoothing, whitespace=whitespace)
    stats = metric.stats(hyps, refs)
    sentences, corpus = _oracle(metric, hyps, refs)
    np.testing.assert_allclose(metric.score(stats), sentences, rtol=0, atol=1e-12)
    assert float(metric.score(stats.sum(0))) == pytest.approx(corpus, abs=1e-12)
    if two_refs and word_order == 0:
        per_ref = [metric.stats(hyps, [ref]) for ref in refs]
        np.testing.assert_array_equal(metric.combine_references(per_ref), stats)


def test_hand_computed():
    # hyp "ab", ref "ac", char_order 2, beta 2:
    # unigrams: P = 1/2, R = 1/2; bigrams "ab" vs "ac": P = 0, R = 0 (both counted)
    # avg P = avg R = (0.5 + 0) / 2 = 0.25 -> F2 = 5 * 0.25 * 0.25 / (4 * 0.25 + 0.25) = 0.25
    assert float(ChrF(char_order=2).corpus_score([["ab"]], [[["ac"]]])) == pytest.approx(0.25, abs=1e-12)
    assert float(ChrF().corpus_score([["a", "b"]], [[["a", "b"]]])) == pytest.approx(1.0, abs=1e-12)


def test_chrf_ignores_segmentation_but_chrf_pp_does_not():
    ref = [[["我们", "喜欢", "苹果"]]]
    words, chars = [["我们", "喜欢", "香蕉"]], [list("我们喜欢香蕉")]
    ref_chars = [[list("我们喜欢苹果")]]
    chrf, chrfpp = ChrF(), ChrF(word_order=2)
    assert float(chrf.corpus_score(words, ref)) == pytest.approx(float(chrf.corpus_score(chars, ref_chars)), abs=1e-15)
    assert float(chrfpp.corpus_score(words, ref)) != pytest.approx(float(chrfpp.corpus_score(chars, ref_chars)), abs=1e-6)


def test_empty_hypothesis_scores_zero():
    metric = ChrF()
    assert float(metric.corpus_score([[]], [[["a", "b"]]])) == 0.0


def test_options_signature_registry():
    assert get_metric("chrf++") == ChrF(word_order=2)
    assert get_metric("chrf:beta=1") == ChrF(beta=1)
    sig = ChrF().signature()
    assert sig.startswith("chrf|nc:6|nw:0|beta:2|") and "sacrebleu:2.6.0" in sig and sig.endswith("version:0.1.0")
    assert len(ChrF(word_order=2).stat_names) == 24
    for bad in ({"char_order": 0}, {"word_order": -1}, {"beta": "2"}):
        with pytest.raises(ValueError):
            ChrF(**bad)


@pytest.mark.skipif(not GOLDEN.is_dir(), reason=f"golden folder {GOLDEN} does not exist")
def test_statistics_are_sacrebleus_to_the_bit_with_two_references():
    # chrF counts its character n-grams itself; every [hyp, ref, match] count and the choice of
    # the best reference per segment must be sacrebleu's own (WMT21 en-zh, two references).
    refs, systems, _ = load_golden_folder(GOLDEN / "en-zh-chars")
    metric = get_metric("chrf")
    sb = CHRF(char_order=6, word_order=0, beta=2, references=[[" ".join(t) for t in ref] for ref in refs])
    prepared = metric.prepare(refs)
    for hyps in systems.values():
        theirs = np.asarray(sb._extract_corpus_statistics([" ".join(t) for t in hyps], None), dtype=float)
        assert np.array_equal(metric.segment_stats(hyps, prepared), theirs)


def test_hand_computed_counts_when_the_reference_is_shorter_than_an_order():
    # hyp "abc", ref "ab", char_order 3: the reference has no trigram, so sacrebleu counts no
    # hypothesis trigram either: [3, 2, 2], [2, 1, 1], [0, 0, 0]
    stats = ChrF(char_order=3).stats([["a", "bc"]], [[["ab"]]])
    assert stats.tolist() == [[3, 2, 2, 2, 1, 1, 0, 0, 0]]
    # three references: the one with the highest sentence chrF is taken, neither the first
    # nor the last ("ab": bigram "ab" matches; "ba": no bigram matches; "xy": nothing does)
    stats = ChrF(char_order=2).stats([["ab"]], [[["xy"]], [["ab"]], [["ba"]]])
    assert stats.tolist() == [[2, 2, 2, 1, 1, 1]]
