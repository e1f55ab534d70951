"""BLEU's ``effective_order``: hand-computed cases for every smoothing, sacrebleu 2.6.0 as the
oracle (``effective_order=True``) at segment and corpus level, and the option's spec and signature."""

from __future__ import annotations

import logging
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU as SacreBLEU

from metaeval.errors import UsageError
from metaeval.metrics import get_metric
from metaeval.metrics.bleu import BLEU

logging.getLogger("sacrebleu").setLevel(logging.ERROR)

SMOOTHINGS = ("mteval", "none", "exp", "floor", "add-k")


def _score(metric: BLEU, hyp: str, ref: str) -> float:
    return float(metric.corpus_score([hyp.split()], [[ref.split()]]))


# hyp "a b x", ref "a b c d": m = 2, 1, 0, 0 and T = 3, 2, 1, 0, so the effective order is 3;
# BP = exp(1 - 4/3) = exp(-1/3) for every method.
BP = math.exp(-1 / 3)
BY_HAND = {
    # (smoothing, effective_order): expected
    # mteval: p = 2/3, 1/2, 1/(2*1) (first order without a match: k = 2), p4 = 1 (T4 = 0)
    ("mteval", False): BP * (2 / 3 * 1 / 2 * 1 / 2) ** (1 / 4),
    ("mteval", True): BP * (2 / 3 * 1 / 2 * 1 / 2) ** (1 / 3),
    # exp: the same precisions, but sacrebleu stops at T4 = 0, so p4 = 0 without effective order
    ("exp", False): 0.0,
    ("exp", True): BP * (2 / 3 * 1 / 2 * 1 / 2) ** (1 / 3),
    # none: p3 = 0
    ("none", False): 0.0,
    ("none", True): 0.0,
    # floor: p3 = 0.1 / 1; p4 = 0 (T4 = 0) without effective order
    ("floor", False): 0.0,
    ("floor", True): BP * (2 / 3 * 1 / 2 * 0.1) ** (1 / 3),
    # add-k: (m + 1) / (T + 1) for n >= 2: 2/3, 2/3, 1/2, 1/1; T4 + 1 > 0, so both are order 4
    ("add-k", False): BP * (2 / 3 * 2 / 3 * 1 / 2 * 1) ** (1 / 4),
    ("add-k", True): BP * (2 / 3 * 2 / 3 * 1 / 2 * 1) ** (1 / 4),
}


@pytest.mark.parametrize("smooth,effective", sorted(BY_HAND))
def test_effective_order_by_hand(smooth, effective):
    metric = BLEU(smooth=smooth, effective_order=effective)
    assert _score(metric, "a b x", "a b c d") == pytest.approx(BY_HAND[(smooth, effective)], abs=1e-15)


def test_effective_order_at_corpus_level_counts_the_summed_statistics():
    # two one-token segments, both matched: summed T = 2, 0, 0, 0, so the corpus has order 1
    hyps, refs = [["a"], ["b"]], [[["a"], ["b"]]]
    for smooth in ("exp", "floor", "none"):
        assert BLEU(smooth=smooth, effective_order=True).corpus_score(hyps, refs) == pytest.approx(1.0, abs=1e-15)
        assert BLEU(smooth=smooth).corpus_score(hyps, refs) == 0.0
    # a corpus with 4-grams is scored at order 4 with or without the option
    hyps, refs = [["a", "b", "c", "x"], ["b"]], [[["a", "b", "c", "d"], ["b"]]]
    for smooth in SMOOTHINGS:
        with_eff = BLEU(smooth=smooth, effective_order=True).corpus_score(hyps, refs)
        assert with_eff == BLEU(smooth=smooth).corpus_score(hyps, refs)


def test_empty_hypothesis_scores_zero_with_effective_order():
    for smooth in SMOOTHINGS:
        metric = BLEU(smooth=smooth, effective_order=True)
        stats = metric.stats([[], ["a"]], [[["a", "b"], ["a"]]])
        assert metric.score(stats[0]) == 0.0
        assert metric.score(stats[1]) == pytest.approx(1.0, abs=1e-15)


def test_mteval_with_effective_order_is_sacrebleu_exp_wherever_an_ngram_matches():
    # The two differ only where no n-gram matches (sacrebleu: 0; mteval-v13a smooths every order).
    rng = np.random.default_rng(20)
    vocab = np.array(["a", "b", "c", "d"])
    hyps = [list(rng.choice(vocab, size=rng.integers(1, 7))) for _ in range(300)]
    refs = [[list(rng.choice(vocab, size=rng.integers(1, 7))) for _ in range(300)]]
    mteval, exp = BLEU(n=5, effective_order=True), BLEU(n=5, smooth="exp", effective_order=True)
    stats = mteval.stats(hyps, refs)
    matched = stats[:, 2] > 0
    assert matched.sum() > 200 and (~matched).sum() > 5
    np.testing.assert_allclose(mteval.score(stats[matched]), exp.score(stats[matched]), rtol=0, atol=1e-15)
    assert (exp.score(stats[~matched]) == 0).all() and (mteval.score(stats[~matched]) > 0).all()


def test_scores_by_order_with_effective_order_match_each_order_alone():
    rng = np.random.default_rng(3)
    vocab = np.array(["a", "b", "c"])
    hyps = [list(rng.choice(vocab, size=rng.integers(0, 9))) for _ in range(60)]
    refs = [[list(rng.choice(vocab, size=rng.integers(1, 9))) for _ in range(60)]]
    for smooth in SMOOTHINGS:
        big = BLEU(n=8, smooth=smooth, effective_order=True)
        stats = big.stats(hyps, refs)
        by_order = big.scores_by_order(stats)
        for m in range(1, 9):
            alone = big.with_order(m)
            assert alone == BLEU(n=m, smooth=smooth, effective_order=True)
            np.testing.assert_allclose(by_order[:, m - 1], alone.score(alone.stats(hyps, refs)), rtol=0, atol=1e-15)


# sacrebleu 2.6.0 as the oracle -------------------------------------------------------------
tokens = st.lists(st.sampled_from(["a", "b", "c", "d", "的"]), min_size=0, max_size=9)


@settings(max_examples=150, deadline=None)
@given(
    data=st.lists(st.tuples(tokens, tokens, tokens), min_size=1, max_size=5),
    n=st.integers(1, 7),
    smooth=st.sampled_from(["none", "exp", "floor", "add-k"]),
    k=st.sampled_from([None, 0.01, 0.5, 2.0]),
    two_refs=st.booleans(),
)
def test_effective_order_matches_sacrebleu(data, n, smooth, k, two_refs):
    k = k if smooth in ("floor", "add-k") else None
    hyps = [h for h, _, _ in data]
    refs = [[r for _, r, _ in data]] + ([[r for _, _, r in data]] if two_refs else [])
    metric = BLEU(n=n, smooth=smooth, k=k, effective_order=True)
    stats = metric.stats(hyps, refs)
    oracle = SacreBLEU(tokenize="none", smooth_method=smooth, smooth_value=k, max_ngram_order=n,
                       effective_order=True, force=True)
    joined_refs = [[" ".join(t) for t in ref] for ref in refs]
    joined_hyps = [" ".join(t) for t in hyps]
    assert float(metric.score(stats.sum(0))) == pytest.approx(oracle.corpus_score(joined_hyps, joined_refs).score / 100, abs=1e-9)
    for i, hyp in enumerate(joined_hyps):
        sentence = oracle.sentence_score(hyp, [ref[i] for ref in joined_refs]).score / 100
        assert float(metric.score(stats[i])) == pytest.approx(sentence, abs=1e-9)


# Spec and signature -------------------------------------------------------------------------
def test_spec_and_signature():
    assert get_metric("bleu:effective_order=true") == BLEU(effective_order=True)
    assert get_metric("bleu:smooth=exp,effective_order=yes") == BLEU(smooth="exp", effective_order=True)
    assert get_metric("bleu:effective_order=false") == BLEU()
    # off: the signature is the one written before the option existed (store keys stay valid)
    assert BLEU().signature() == "bleu|n:4|smooth:mteval|version:0.1.0"
    assert BLEU(smooth="floor", effective_order=True).signature() == "bleu|n:4|smooth:floor|k:0.1|eff:yes|version:0.1.0"
    assert BLEU(n=12, smooth="exp", effective_order=True).signature() == "bleu|n:12|smooth:exp|eff:yes|version:0.1.0"
    with pytest.raises(UsageError, match="effective_order"):
        get_metric("bleu:effective_order=sometimes")
    with pytest.raises(ValueError, match="effective_order"):
        BLEU(effective_order="yes")  # type: ignore[arg-type]
