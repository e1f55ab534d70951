"""NIST: golden values of mteval-v13a and hand-computed cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from metaeval.metrics import get_metric
from metaeval.metrics.nist import BETA, NIST, information_weights
from metaeval.metrics.ngrams import index_references
from tests.golden_util import GOLDEN, GOLDEN_FOLDERS, load_golden_folder

needs_golden = pytest.mark.skipif(not GOLDEN.is_dir(), reason=f"golden folder {GOLDEN} does not exist")


@needs_golden
@pytest.mark.parametrize("folder", GOLDEN_FOLDERS, ids=lambda p: p.name)
def test_golden_nist(folder):
    refs, systems, golden = load_golden_folder(folder)
    metric = NIST()
    prepared = metric.prepare(refs)
    ours = {}
    for system, hyps in systems.items():
        stats = metric.segment_stats(hyps, prepared)
        ours[system] = (metric.score(stats), float(metric.score(stats.sum(0))))
    rows = golden[golden.metric == "nist"]
    compared = 0
    for row in rows.itertuples():
        seg, sys_ = ours[row.system]
        value = sys_ if row.seg_id == "" else seg[int(row.seg_id) - 1]
        assert value == pytest.approx(row.score, abs=1e-9), (row.system, row.seg_id)
        compared += 1
    assert len(rows) > 0
    assert compared == len(rows)


def test_beta():
    # the penalty is exactly 0.5 at C/L = 1/1.5
    assert math.exp(-BETA * math.log(1 / 1.5) ** 2) == pytest.approx(0.5, abs=1e-15)


def test_hand_computed_score():
    # refs (one reference): seg 1 "a b a", seg 2 "b c"; 5 words in all.
    # counts: a 2, b 2, c 1; "a b" 1, "b a" 1, "b c" 1.
    # info: a = b = log2(5/2), c = log2(5/1); every bigram log2(2/1) = 1.
    refs = [[["a", "b", "a"], ["b", "c"]]]
    metric = NIST(n=2)
    index = index_references(refs, 2)
    info = information_weights(index)
    assert sorted(info[0].tolist()) == pytest.approx(sorted([math.log2(5 / 2)] * 2 + [math.log2(5)]))
    assert info[1].tolist() == pytest.approx([1.0, 1.0, 1.0])
    # hyp seg 1 "a b": M1 = 2 log2(5/2), T1 = 2; M2 = 1, T2 = 1 -> log2(5/2) + 1 = 2.321928
    # C = 2, L = 3, C/L = 1/1.5 -> BP = 0.5 -> 1.160964
    # hyp seg 2 "b c": M1 = log2(5/2) + log2(5), T1 = 2; M2 = 1, T2 = 1; BP = 1
    stats = metric.stats([["a", "b"], ["b", "c"]], refs)
    scores = metric.score(stats)
    assert scores[0] == pytest.approx((math.log2(5 / 2) + 1) * 0.5, abs=1e-12)
    assert scores[1] == pytest.approx((math.log2(5 / 2) + math.log2(5)) / 2 + 1, abs=1e-12)
    # system: M1 = 3 log2(5/2) + log2(5), T1 = 4; M2 = 2, T2 = 2; C = 4, L = 5
    # BP = exp(-beta ln^2(0.8))
    system = (3 * math.log2(5 / 2) + math.log2(5)) / 4 + 1
    system *= math.exp(-BETA * math.log(0.8) ** 2)
    assert float(metric.score(stats.sum(0))) == pytest.approx(system, abs=1e-12)


def test_mteval_zero_prefix_quirk():
    # ref "0 x 0 y" (4 words): count("0") = 2, count(x) = count(y) = 1, count("0 x") = count("0 y") = 1.
    # mteval tests the prefix string for Perl truth, and "0" is false, so "0 x" and "0 y"
    # get log2(4/1) = 2 instead of log2(2/1) = 1; "x 0" gets log2(1/1) = 0.
    # hyp = ref: M1 = 1 + 2 + 1 + 2 = 6, T1 = 4; M2 = 2 + 0 + 2 = 4, T2 = 3; BP = 1
    # -> 6/4 + 4/3 = 2.833333 (without the quirk it would be 6/4 + 2/3)
    seg = ["0", "x", "0", "y"]
    assert float(NIST(n=2).corpus_score([seg], [[seg]])) == pytest.approx(1.5 + 4 / 3, abs=1e-12)
    # "0" inside a longer prefix is a true string: "x 0 y" uses count("x 0") = 1 -> log2(1/1) = 0
    # M3 = info("0 x 0") + info("x 0 y") = log2(1/1) + 0 = 0
    assert float(NIST(n=3).corpus_score([seg], [[seg]])) == pytest.approx(1.5 + 4 / 3, abs=1e-12)


def test_information_from_all_references_and_average_length():
    # Two references: "a b" and "a c". Words 4: a 2, b 1, c 1 -> info(a) = 1, info(b) = info(c) = 2.
    # hyp "a b": unigram clipped against max over refs: a 1, b 1 -> M1 = 1 + 2 = 3, T1 = 2 -> 1.5
    # L = (2 + 2) / 2 = 2 = C -> BP = 1
    refs = [[["a", "b"]], [["a", "c"]]]
    assert float(NIST(n=1).corpus_score([["a", "b"]], refs)) == pytest.approx(1.5, abs=1e-12)
    # refs of lengths 2 and 4 (L = 3), hyp of length 2 -> BP = 0.5
    refs = [[["a", "b"]], [["a", "c", "d", "e"]]]
    stats = NIST(n=1).stats([["a", "b"]], refs)
    assert stats[0, 1] == 3.0
    # words 6: a 2 -> info log2(3); b 1 -> log2(6): (log2 3 + log2 6) / 2 * 0.5
    expected = (math.log2(3) + math.log2(6)) / 2 * 0.5
    assert float(NIST(n=1).score(stats[0])) == pytest.approx(expected, abs=1e-12)


def test_empty_hypothesis_and_system():
    metric = NIST()
    stats = metric.stats([[], []], [[["a"], ["b", "c"]]])
    assert metric.score(stats).tolist() == [0.0, 0.0]
    assert float(metric.score(stats.sum(0))) == 0.0


def test_one_segment_corpus_equals_segment():
    refs = [[["a", "b", "c"], ["d", "e"]]]
    hyps = [["a", "b"], ["e", "d", "d"]]
    metric = NIST()
    index = metric.prepare(refs)
    stats = metric.segment_stats(hyps, index)
    np.testing.assert_allclose(metric.score(stats[:1].sum(0)), metric.score(stats[0]), rtol=0, atol=0)
    # system statistics are column sums: hyp_len 2 + 3 = 5, ref_len 3 + 2 = 5
    assert stats.sum(0)[:2].tolist() == [5.0, 5.0]


def test_options_and_registry():
    assert NIST().signature() == "nist|n:5|version:0.1.0"
    assert get_metric("nist:n=3") == NIST(n=3)
    with pytest.raises(ValueError):
        NIST(n=0)
