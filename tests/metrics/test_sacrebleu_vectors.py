"""sacrebleu's own test vectors for BLEU's effective order and smoothing and chrF's
``eps_smoothing`` and ``whitespace``, reproduced through metaeval's segmenters and metrics.

Provenance: mjpost/sacrebleu, tag v2.6.0 (commit 2277caccfc7b956671a6a09f1646f62250034157),
files ``test/test_sentence_bleu.py``, ``test/test_bleu.py`` and ``test/test_chrf.py``. The
inputs, options and expected numbers are theirs, each checked with the tolerance that file uses;
sacrebleu's tokenizers map to metaeval's segmenters (``13a``, ``intl``; ``none`` is
``whitespace``; ``char`` is ``char``, which keeps the same characters for these texts).
sacrebleu reports 0..100, metaeval 0..1: expected values are compared with ``100 *`` ours where
the source compares ``.score``. Where the source passes ``smooth_value=0`` to ``floor`` (which
metaeval refuses: ``k`` must be positive), the row is checked with ``smooth=none``, the same
definition (a precision without matches is 0).
"""

from __future__ import annotations

import numpy as np
import pytest

from metaeval import segmenters
from metaeval.metrics import get_metric
from metaeval.metrics.bleu import BLEU
from metaeval.metrics.chrf import ChrF


def _tokens(segmenter: str, texts):
    return segmenters.get(segmenter).segment_many(list(texts))


def _corpus(metric, segmenter: str, hyps, refs) -> float:
    """``metric`` over ``hyps`` against reference streams ``refs``, both segmented by ``segmenter``."""
    return float(metric.corpus_score(_tokens(segmenter, hyps), [_tokens(segmenter, ref) for ref in refs]))


# test/test_sentence_bleu.py: sentence_bleu(..., use_effective_order=True), EPSILON = 1e-3 on 0..100
REF = "producţia de zahăr brut se exprimă în zahăr alb;"
SYS = "Producția de zahăr primă va fi exprimată în ceea ce privește zahărul alb;"
SENTENCE_BLEU = [
    # (smooth_method, smooth_value, lowercase, tokenize, expected score)
    ("exp", None, False, "13a", 8.493),
    ("none", None, False, "13a", 0.0),
    ("floor", None, False, "13a", 4.51688),
    ("floor", 0.1, False, "13a", 4.51688),
    ("floor", 0.5, False, "13a", 10.10),
    ("add-k", None, False, "13a", 14.882),
    ("add-k", 1, False, "13a", 14.882),
    ("add-k", 2, False, "13a", 21.389),
    ("exp", None, False, "none", 7.347),
    ("exp", None, False, "intl", 8.493),
    ("exp", None, False, "char", 40.8759),
    ("exp", None, True, "char", 42.0267),
]
SEGMENTER = {"13a": "13a", "intl": "intl", "none": "whitespace", "char": "char"}


def _bleu_spec(smooth: str, k, effective: bool) -> str:
    options = [f"smooth={smooth}"] + ([f"k={k}"] if k is not None else []) + [f"effective_order={effective}"]
    return "bleu:" + ",".join(options)


@pytest.mark.parametrize("smooth,k,lowercase,tokenize,expected", SENTENCE_BLEU)
def test_sentence_bleu_with_effective_order(smooth, k, lowercase, tokenize, expected):
    segmenter = SEGMENTER[tokenize] + (":lowercase=true" if lowercase else "")
    score = _corpus(get_metric(_bleu_spec(smooth, k, True)), segmenter, [SYS], [[REF]])
    assert abs(100 * score - expected) < 1e-3


@pytest.mark.parametrize("smooth,k", [("exp", None), ("none", None), ("floor", None), ("floor", 0.1), ("add-k", None), ("add-k", 1)])
def test_sentence_bleu_without_any_match_is_zero(smooth, k):
    # the same file: "this is a cat" against "okay thanks" (sacrebleu issue #141), 13a
    assert _corpus(get_metric(_bleu_spec(smooth, k, True)), "13a", ["this is a cat"], [["okay thanks"]]) == 0.0


# test/test_bleu.py: raw_corpus_bleu = corpus BLEU, tokenize none, floor smoothing, effective
# order; EPSILON = 1e-8 on 0..1
RAW_CORPUS_BLEU = [
    # (hypotheses, reference streams, smooth_value, expected)
    (["this is a test", "another test"], [["ref1", "ref2"]], 0.01, 0.0),
    (["this is a test"], [["this is a test"]], 0.01, 1.0),
    (["this is a fest"], [["this is a test"]], 0.01, 0.223606797749979),
    (["test"], [["a test"]], 0.01, 0.3678794411714425),
    (["a test"], [["a test"]], 0.01, 1.0),
    (["a little test"], [["a test"]], 0.01, 0.03218297948685433),
    (["am I am a character sequence"], [["I am a symbol string sequence a a"]], 0.1, 0.1555722182),
    (["am I am a character sequence"], [["I am a symbol string sequence a a"]], 0.0, 0.0),
]


@pytest.mark.parametrize("hyps,refs,k,expected", RAW_CORPUS_BLEU)
def test_raw_corpus_bleu(hyps, refs, k, expected):
    spec = _bleu_spec("floor", k, True) if k else _bleu_spec("none", None, True)
    assert abs(_corpus(get_metric(spec), "whitespace", hyps, refs) - expected) < 1e-8


def test_raw_corpus_bleu_statistics():
    # counts [4, 2, 1, 0] and totals [6, 5, 4, 3]
    metric = BLEU(smooth="floor", effective_order=True)
    hyps = _tokens("whitespace", ["am I am a character sequence"])
    stats = metric.stats(hyps, [_tokens("whitespace", ["I am a symbol string sequence a a"])])
    assert stats[0, 2:].tolist() == [4, 2, 1, 0, 6, 5, 4, 3]


def _stats(common, total, sys_len, ref_len) -> np.ndarray:
    return np.array([sys_len, ref_len, *common, *total], dtype=float)


def test_compute_bleu_from_statistics():
    # BLEU.compute_bleu([9, 7, 5, 3], [10, 8, 6, 4], 11, 11) with its defaults: no smoothing
    score = BLEU(smooth="none").score(_stats([9, 7, 5, 3], [10, 8, 6, 4], 11, 11))
    assert abs(float(score) - 0.8375922397) < 1e-8


@pytest.mark.parametrize("common,total,sys_len,ref_len,k", [
    ([0, 0, 0, 0], [4, 4, 2, 1], 0, 1, 0.0),
    ([0, 0, 0, 0], [10, 11, 12, 0], 14, 10, 0.0),
    ([0, 0, 0, 0], [0, 0, 0, 0], 0, 0, 0.0),
    ([6, 5, 4, 0], [6, 5, 4, 3], 6, 6, 0.0),
    ([0, 0, 0, 0], [0, 0, 0, 0], 0, 0, 0.1),
    ([0, 0, 0, 0], [0, 0, 0, 0], 1, 5, 0.01),
])
def test_degenerate_statistics_score_zero(common, total, sys_len, ref_len, k):
    # compute_bleu(..., smooth_method="floor", smooth_value=k) == 0.0 exactly
    metric = BLEU(smooth="floor", k=k) if k else BLEU(smooth="none")
    assert float(metric.score(_stats(common, total, sys_len, ref_len))) == 0.0


HYPS = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
REFS = [
    ["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
    ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."],
]


@pytest.mark.parametrize("hyps,segmenter,smooth,expected", [
    # corpus_bleu with its defaults (13a, exp), EPSILON = 1e-8 on 0..100
    (HYPS, "13a", "exp", 48.530827),
    (["", "", ""], "13a", "exp", 0.0),
    (HYPS, "whitespace", "exp", 49.1919566),
    (HYPS, "intl", "exp", 43.91623493),
    (HYPS, "13a", "none", 48.530827),
])
def test_corpus_bleu(hyps, segmenter, smooth, expected):
    assert abs(100 * _corpus(BLEU(smooth=smooth), segmenter, hyps, REFS) - expected) < 1e-8


@pytest.mark.parametrize("order,expected", [(1, "77.65"), (2, "60.50"), (3, "53.93"), (4, "48.53"), (5, "46.14"), (6, "43.28")])
def test_max_ngram_order(order, expected):
    assert f"{100 * _corpus(BLEU(n=order, smooth='exp'), '13a', HYPS, REFS):.2f}" == expected


# test/test_chrf.py: EPSILON = 1e-4 on 0..100
SENTENCE_CHRF_EPS = [
    # sentence_chrf(hypothesis, references, eps_smoothing=True): char_order 6, word_order 0, beta 2
    ("Co nás nejvíc trápí, protože lékaři si vybírají, kdo bude žít a kdo zemře.",
     ["Nejvíce smutní jsme z toho, že musíme rozhodovat o tom, kdo bude žít a kdo zemře."], 39.14078509),
    ("Nebo prostě nemají vybavení, které by jim pomohlo, uvedli lékaři.",
     ["A někdy nemáme ani potřebný materiál, abychom jim pomohli, popsali lékaři."], 31.22557079),
    ("Lapali po dechu, jejich životy skončily dřív, než skutečně začaly.",
     ["Lapali po dechu a pak jejich život skončil - dřív, než skutečně mohl začít, připomněli."], 57.15704367),
]

#: corpus_chrf(hypotheses, [references], char_order=6, word_order=0, beta=3, eps_smoothing=True)
CORPUS_CHRF_EPS = [
    (["abcdefg"], ["hijklmnop"], 0.0),
    (["a"], ["b"], 0.0),
    ([""], ["b"], 0.0),
    ([""], ["ref"], 0.0),
    ([""], ["reference"], 0.0),
    (["aa"], ["ab"], 8.3333),
    (["a", "b"], ["a", "c"], 8.3333),
    (["a"], ["a"], 16.6667),
    (["a b c"], ["a b c"], 50.0),
    (["a b c"], ["abc"], 50.0),
    ([" risk assessment must be made of those who are qualified and expertise in the sector - these are the scientists ."],
     ["risk assessment has to be undertaken by those who are qualified and expert in that area - that is the scientists ."], 63.361730),
    ([" Die    Beziehung zwischen  Obama und Netanjahu ist nicht gerade  freundlich. "],
     ["Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."], 64.1302698),
    (["Niemand hat die Absicht, eine Mauer zu errichten"], ["Niemand hat die Absicht, eine Mauer zu errichten"], 100.0),
]

#: the same with eps_smoothing=False (effective order, sacrebleu's default)
CORPUS_CHRF_EFFECTIVE = [
    (["a"], ["a"], 100.0),
    ([""], ["reference"], 0.0),
    (["a b c"], ["a b c"], 100.0),
    (["a b c"], ["abc"], 100.0),
    ([""], ["c"], 0.0),
    (["a", "b"], ["a", "c"], 50.0),
    (["aa"], ["ab"], 25.0),
]

#: remove_whitespace=False (whitespace=True), beta=3, effective order
CORPUS_CHRF_WHITESPACE = [
    (["Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich."],
     ["Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."], 67.3481606),
    (["risk assessment must be made of those who are qualified and expertise in the sector - these are the scientists ."],
     ["risk assessment has to be undertaken by those who are qualified and expert in that area - that is the scientists ."], 65.2414427),
]


@pytest.mark.parametrize("hyp,refs,expected", SENTENCE_CHRF_EPS)
def test_sentence_chrf_eps_smoothing(hyp, refs, expected):
    metric = get_metric("chrf:eps_smoothing=true")
    assert abs(100 * _corpus(metric, "whitespace", [hyp], [[ref] for ref in refs]) - expected) < 1e-4


@pytest.mark.parametrize("options,cases", [
    ({"eps_smoothing": True}, CORPUS_CHRF_EPS),
    ({}, CORPUS_CHRF_EFFECTIVE),
    ({"whitespace": True}, CORPUS_CHRF_WHITESPACE),
], ids=["eps_smoothing", "effective_order", "whitespace"])
def test_corpus_chrf(options, cases):
    metric = ChrF(beta=3, **options)
    for hyps, refs, expected in cases:
        assert abs(100 * _corpus(metric, "whitespace", hyps, [refs]) - expected) < 1e-4, (hyps, refs)
