"""BLEU and the n-gram statistics: golden values of mteval-v13a and sacrebleu 2.6.0,
hand-computed cases, and property tests against sacrebleu with ``tokenize='none'``."""

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
from metaeval.metrics.ngrams import clipped_matches, closest_ref_length, index_references
from tests.golden_util import GOLDEN, GOLDEN_FOLDERS, load_golden_folder

logging.getLogger("sacrebleu").setLevel(logging.ERROR)

needs_golden = pytest.mark.skipif(not GOLDEN.is_dir(), reason=f"golden folder {GOLDEN} does not exist")
SAC_METHODS = ("none", "exp", "floor")


def golden_bleu_rows(folder):
    """Yield ``(golden row, our value, tolerance)`` for every BLEU golden row of ``folder``."""
    refs, systems, golden = load_golden_folder(folder)
    mteval, sweep = BLEU(n=4), BLEU(n=20, smooth="none")
    mteval_refs, sweep_refs = mteval.prepare(refs), sweep.prepare(refs)
    ours = {}
    for system, hyps in systems.items():
        stats = mteval.segment_stats(hyps, mteval_refs)
        ours[("bleu", system)] = (mteval.score(stats), float(mteval.score(stats.sum(0))))
        stats20 = sweep.segment_stats(hyps, sweep_refs)
        for method in SAC_METHODS:
            metric = BLEU(n=20, smooth=method)
            seg, sys_ = metric.scores_by_order(stats20), metric.scores_by_order(stats20.sum(0))
            for m in range(1, 21):
                ours[(f"bleu_n{m}_{method}", system)] = (seg[:, m - 1], float(sys_[m - 1]))
    for row in golden.itertuples():
        if row.metric == "bleu" or row.metric.startswith("bleu_n"):
            seg, sys_ = ours[(row.metric, row.system)]
            value = sys_ if row.seg_id == "" else seg[int(row.seg_id) - 1]
            yield row, value, 1e-9  # mteval-v13a and sacrebleu print full precision


@needs_golden
@pytest.mark.parametrize("folder", GOLDEN_FOLDERS, ids=lambda p: p.name)
def test_golden_bleu(folder):
    _, _, golden = load_golden_folder(folder)
    expected = int(golden.metric.str.match(r"^bleu($|_n\d+_(none|exp|floor)$)").sum())
    compared = 0
    for row, value, tol in golden_bleu_rows(folder):
        assert value == pytest.approx(row.score, abs=tol), (row.metric, row.system, row.seg_id)
        compared += 1
    assert expected > 0
    assert compared == expected


@needs_golden
def test_golden_folders_all_present():
    assert sorted(p.name for p in GOLDEN_FOLDERS) == ["de-en-words", "edge", "en-ja-chars", "en-zh-chars"]


# Hand-computed cases ---------------------------------------------------------------------
def _score(metric, hyp, refs):
    return float(metric.corpus_score([hyp.split()], [[r.split()] for r in refs]))


@pytest.mark.parametrize("smooth", ["none", "mteval", "exp", "floor", "add-k"])
def test_identical_is_one(smooth):
    assert _score(BLEU(smooth=smooth), "a b c d e", ["a b c d e"]) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize(
    "smooth,expected",
    [
        # hyp "a b c d", ref "a b c e": m = 3, 2, 1, 0 and T = 4, 3, 2, 1; BP = 1
        ("none", 0.0),  # p4 = 0
        ("mteval", 0.125**0.25),  # p4 = 1/(2*1): (3/4 * 2/3 * 1/2 * 1/2) ** (1/4) = 0.125 ** 0.25
        ("exp", 0.125**0.25),  # same rule in sacrebleu
        ("floor", 0.025**0.25),  # p4 = 0.1/1: 3/4 * 2/3 * 1/2 * 0.1 = 0.025
        ("add-k", 0.1875**0.25),  # 3/4 * (2+1)/(3+1) * (1+1)/(2+1) * (0+1)/(1+1) = 0.1875
    ],
)
def test_smoothing_by_hand(smooth, expected):
    assert _score(BLEU(smooth=smooth), "a b c d", ["a b c e"]) == pytest.approx(expected, abs=1e-12)


def test_floor_and_add_k_values():
    # floor k=0.5: 3/4 * 2/3 * 1/2 * 0.5 = 0.125; add-k k=2: 3/4 * 4/5 * 3/4 * 2/3 = 0.3
    assert _score(BLEU(smooth="floor", k=0.5), "a b c d", ["a b c e"]) == pytest.approx(0.125**0.25)
    assert _score(BLEU(smooth="add-k", k=2), "a b c d", ["a b c e"]) == pytest.approx(0.3**0.25)


def test_brevity_penalty_and_closest_reference():
    # hyp length 2; refs of length 4 and 3: |2-4| = 2, |2-3| = 1, so R = 3; BP = exp(1 - 3/2)
    # order 2: p1 = 2/2, p2 = 1/1, so BLEU = exp(-0.5)
    assert _score(BLEU(n=2), "a b", ["a b c d", "a b c"]) == pytest.approx(math.exp(-0.5), abs=1e-12)
    # tie: hyp length 3, refs of length 2 and 4 -> the shorter (2)
    assert closest_ref_length(np.array([3]), np.array([[2], [4]])).tolist() == [2]
    assert closest_ref_length(np.array([3]), np.array([[4], [2]])).tolist() == [2]


def test_mteval_empty_orders_count_as_one():
    # hyp "a", ref "a b": p1 = 1/1, T2..T4 = 0 -> p = 1; BP = exp(1 - 2/1) = e^-1
    assert _score(BLEU(), "a", ["a b"]) == pytest.approx(math.exp(-1), abs=1e-12)
    # mteval doubles k for each unmatched order: hyp "x y z", ref "x q z": m = 2, 0, 0, T = 3, 2, 1, 0
    # p = 2/3, 1/(2*2), 1/(4*1), 1 -> (2/3 * 1/4 * 1/4) ** (1/4)
    assert _score(BLEU(), "x y z", ["x q z"]) == pytest.approx((2 / 3 / 16) ** 0.25, abs=1e-12)


def test_empty_hypothesis_and_empty_system_score_zero():
    metric = BLEU()
    stats = metric.stats([[], []], [[["a", "b"], ["c"]]])
    assert metric.score(stats).tolist() == [0.0, 0.0]
    assert float(metric.score(stats.sum(0))) == 0.0  # mteval crashes here; we return 0


def test_clipping_uses_max_over_references():
    hyps = [["the"] * 4]
    # one ref with one "the": min(4, 1) = 1; refs with 1 and 2 "the": min(4, max(1, 2)) = 2
    assert clipped_matches(hyps, index_references([[["the", "cat"]]], 1))[0, 0] == 1
    two = index_references([[["the", "cat"]], [["the", "the", "x"]]], 1)
    assert clipped_matches(hyps, two)[0, 0] == 2


def test_ngrams_never_collide():
    # "a b" vs the single token "ab", "a" + "b c" vs "a b" + "c": distinct n-grams
    index = index_references([[["ab", "c"], ["a", "bc"]]], 3)
    assert clipped_matches([["a", "b", "c"], ["a", "b", "c"]], index).tolist() == [[1, 0, 0], [1, 0, 0]]
    # the same bigram in another segment's reference does not match
    index = index_references([[["a", "b"], ["c", "d"]]], 2)
    assert clipped_matches([["c", "d"], ["c", "d"]], index).tolist() == [[0, 0], [2, 1]]


def test_one_segment_corpus_equals_segment_and_stats_are_additive():
    refs = [[["a", "b", "c", "d"], ["x", "y"], ["p", "q", "r"]], [["a", "b", "d"], ["x", "z", "y"], ["p", "r"]]]
    hyps = [["a", "b", "d", "c"], ["x", "y", "y"], ["q", "p"]]
    for metric in (BLEU(), BLEU(n=3, smooth="exp")):
        stats = metric.stats(hyps, refs)
        for i in range(3):
            alone = metric.stats([hyps[i]], [[r[i]] for r in refs])
            np.testing.assert_array_equal(alone[0], stats[i])
            assert float(metric.score(alone.sum(0))) == pytest.approx(float(metric.score(stats[i])), abs=0)
        # system statistics are the column sums: hyp_len 4 + 3 + 2 = 9; match_1 = 4 + 2 + 2 = 8
        total = stats.sum(0)
        assert total[0] == 9 and total[2] == 8


def test_scores_by_order_and_order_stats_match_direct_computation():
    refs, systems, _ = load_golden_folder(GOLDEN / "en-zh-chars") if GOLDEN.is_dir() else (None, None, None)
    if refs is None:
        pytest.skip(f"golden folder {GOLDEN} does not exist")
    hyps = systems["Online-B"]
    big = BLEU(n=30, smooth="none")
    stats30 = big.stats(hyps, refs)
    by_order_seg, by_order_sys = big.scores_by_order(stats30), big.scores_by_order(stats30.sum(0))
    for m in (1, 2, 4, 9, 17, 18, 30):
        direct = BLEU(n=m, smooth="none")
        direct_stats = direct.stats(hyps, refs)
        np.testing.assert_array_equal(big.order_stats(stats30, m), direct_stats)
        np.testing.assert_allclose(by_order_seg[:, m - 1], direct.score(direct_stats), rtol=0, atol=1e-15)
        assert by_order_sys[m - 1] == pytest.approx(float(direct.score(direct_stats.sum(0))), abs=1e-15)
        assert big.with_order(m) == direct


# Property tests against sacrebleu ---------------------------------------------------------
tokens = st.lists(st.sampled_from(["a", "b", "c", "d", "0", "的"]), min_size=0, max_size=12)


@settings(max_examples=60, deadline=None)
@given(
    data=st.lists(st.tuples(tokens, tokens, tokens), min_size=1, max_size=5),
    n=st.integers(1, 6),
    smooth=st.sampled_from(["none", "exp", "floor", "add-k"]),
    two_refs=st.booleans(),
)
def test_matches_sacrebleu(data, n, smooth, two_refs):
    hyps = [h for h, _, _ in data]
    refs = [[r for _, r, _ in data]] + ([[r for _, _, r in data]] if two_refs else [])
    metric = BLEU(n=n, smooth=smooth)
    stats = metric.stats(hyps, refs)
    oracle = SacreBLEU(tokenize="none", smooth_method=smooth, max_ngram_order=n, force=True)
    joined_refs = [[" ".join(t) for t in ref] for ref in refs]
    joined_hyps = [" ".join(t) for t in hyps]
    corpus = oracle.corpus_score(joined_hyps, joined_refs).score / 100
    assert float(metric.score(stats.sum(0))) == pytest.approx(corpus, abs=1e-9)
    for i, hyp in enumerate(joined_hyps):
        sentence = oracle.sentence_score(hyp, [ref[i] for ref in joined_refs]).score / 100
        assert float(metric.score(stats[i])) == pytest.approx(sentence, abs=1e-9)


def test_hash_table_finds_every_key_and_only_those():
    from metaeval.metrics.ngrams import _codes, _hash_table

    rng = np.random.default_rng(7)
    # multiples of a power of two collide in the low bits; large keys reach the top of int64
    keys = np.unique(np.r_[np.arange(0, 1 << 20, 1 << 12), rng.integers(0, np.iinfo(np.int64).max, 500)])
    slot_keys, slot_codes = _hash_table(keys)
    assert _codes(slot_keys, slot_codes, keys).tolist() == list(range(len(keys)))
    absent = np.setdiff1d(rng.integers(0, 1 << 21, 2000), keys)
    assert (_codes(slot_keys, slot_codes, absent) == -1).all()
    empty_keys, empty_codes = _hash_table(np.zeros(0, np.int64))
    assert _codes(empty_keys, empty_codes, np.array([0, 5])).tolist() == [-1, -1]


@settings(max_examples=60, deadline=None)
@given(data=st.lists(st.tuples(tokens, tokens, tokens), min_size=1, max_size=6), n=st.integers(1, 5))
def test_weighted_clipped_matches_equal_a_direct_count(data, n):
    """m_n = sum_g w(g) min(c_hyp(g), max_r c_r(g)), counted with Counters, w(g) a weight per code."""
    from collections import Counter

    hyps = [h for h, _, _ in data]
    refs = [[r for _, r, _ in data], [r for _, _, r in data]]
    index = index_references(refs, n)
    inverse = {tok: i for tok, i in index.vocab.items()}
    weights = [np.linspace(0.5, 2.5, max(len(k), 1)) for k in index.keys]

    def code(gram):  # the n-gram's position in index.keys (it occurs in some reference)
        prefix = 0
        for i, tok in enumerate(gram):
            prefix = int(np.searchsorted(index.keys[i], prefix * index.vocab_size + inverse[tok]))
        return prefix

    got_plain, got_weighted = clipped_matches(hyps, index), clipped_matches(hyps, index, weights=weights)
    for s, hyp in enumerate(hyps):
        for order in range(1, n + 1):
            counts = [Counter(tuple(x[i:i + order]) for i in range(len(x) - order + 1)) for x in (hyp, *(r[s] for r in refs))]
            clipped = {g: min(c, max(r[g] for r in counts[1:])) for g, c in counts[0].items()}
            assert got_plain[s, order - 1] == sum(clipped.values())
            expected = sum(c * weights[order - 1][code(g)] for g, c in clipped.items() if c)
            assert got_weighted[s, order - 1] == pytest.approx(expected, rel=1e-12, abs=0)


# Options, signature, registry ------------------------------------------------------------
def test_signature_and_defaults():
    assert BLEU().signature() == "bleu|n:4|smooth:mteval|version:0.1.0"
    assert BLEU(smooth="floor").k == 0.1 and BLEU(smooth="add-k").k == 1.0 and BLEU().k is None
    assert BLEU(n=18, smooth="floor").signature() == "bleu|n:18|smooth:floor|k:0.1|version:0.1.0"
    assert BLEU(smooth="add-k", k="2").k == 2.0
    assert len(BLEU(n=3).stat_names) == 8


@pytest.mark.parametrize("kwargs", [{"n": 0}, {"smooth": "nist"}, {"smooth": "floor", "k": -1}, {"smooth": "add-k", "k": "x"}, {"k": 0.5}, {"smooth": "exp", "k": 1}])
def test_invalid_options(kwargs):
    with pytest.raises(ValueError):
        BLEU(**kwargs)


def test_registry_specs():
    assert get_metric("bleu:n=18,smooth=none") == BLEU(n=18, smooth="none")
    assert get_metric("bleu:smooth=add-k,k=2").k == 2.0
    with pytest.raises(UsageError, match="smooth"):
        get_metric("bleu:smooth=bogus")
