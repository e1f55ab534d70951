"""BLEU with effective order and every smoothing, and chrF with eps_smoothing and whitespace,
against sacrebleu 2.6.0 on every segment of every shared corpus at character level.

Each corpus of ``../shared/data`` is segmented with ``char`` and given to sacrebleu as the
characters joined with spaces (``tokenize='none'``), every reference stream in corpus order.
sacrebleu computes its own per-segment statistics (``_extract_corpus_statistics``), which must
equal metaeval's to the count; every segment score and the corpus score of every system are then
sacrebleu's ``BLEU.compute_bleu`` / ``CHRF._compute_f_score`` on those statistics, divided by 100.
Nearly all of the time is sacrebleu counting n-grams: marked slow.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest
from sacrebleu.metrics import BLEU as SacreBLEU
from sacrebleu.metrics import CHRF

from metaeval import corpora, segmenters
from metaeval.metrics.bleu import BLEU
from metaeval.metrics.chrf import ChrF
from tests.golden_util import DATA, shared_corpora

CORPORA = shared_corpora()
pytestmark = [pytest.mark.slow, pytest.mark.skipif(not CORPORA, reason=f"shared data not found: {DATA}")]
IDS = [f"{p.parent.name}/{p.name}" for p in CORPORA]
TOLERANCE = 1e-9  # sacrebleu sums percentages in another order: the largest difference seen is 4e-16


def test_every_shared_corpus_is_compared():
    assert len(CORPORA) == 10, CORPORA


@functools.lru_cache(maxsize=1)
def characters(folder: Path) -> tuple[list[list[list[str]]], dict[str, list[list[str]]]]:
    """References ``[n_refs][n_seg]`` and systems of ``folder`` as ``char`` tokens."""
    corpus, _ = corpora.read(folder)
    char = segmenters.get("char")
    refs = [char.segment_many(ref) for ref in corpus.references.values()]
    return refs, {name: char.segment_many(hyps) for name, hyps in corpus.systems.items()}


def joined(segments: list[list[str]]) -> list[str]:
    return [" ".join(tokens) for tokens in segments]


def sacrebleu_bleu_score(stats: list[int], smooth: str, effective: bool) -> float:
    correct, total = list(stats[2:6]), list(stats[6:10])
    return SacreBLEU.compute_bleu(correct, total, int(stats[0]), int(stats[1]), smooth_method=smooth,
                                  effective_order=effective, max_ngram_order=4).score / 100


@pytest.mark.parametrize("folder", CORPORA, ids=IDS)
def test_bleu_effective_order_and_smoothing_equal_sacrebleu(folder):
    refs, systems = characters(folder)
    oracle = SacreBLEU(tokenize="none", force=True, references=[joined(ref) for ref in refs])
    compared = 0
    for hyps in systems.values():
        theirs = oracle._extract_corpus_statistics(joined(hyps), None)
        ours = BLEU().stats(hyps, refs)
        np.testing.assert_array_equal(ours, np.asarray(theirs, dtype=float))
        corpus_stats = [int(x) for x in np.asarray(theirs).sum(0)]
        for smooth in ("none", "exp", "floor", "add-k"):
            for effective in (False, True):
                metric = BLEU(smooth=smooth, effective_order=effective)
                expected = np.array([sacrebleu_bleu_score(s, smooth, effective) for s in theirs])
                np.testing.assert_allclose(metric.score(ours), expected, rtol=0, atol=TOLERANCE)
                corpus = sacrebleu_bleu_score(corpus_stats, smooth, effective)
                assert float(metric.score(ours.sum(0))) == pytest.approx(corpus, abs=TOLERANCE)
                compared += len(hyps) + 1
        # mteval-v13a's smoothing with effective order is sacrebleu's exp with it, except where no
        # n-gram matches (sacrebleu: 0; mteval smooths every order)
        matched = ours[:, 2] > 0
        expected = np.array([sacrebleu_bleu_score(s, "exp", True) for s in theirs])
        np.testing.assert_allclose(BLEU(effective_order=True).score(ours[matched]), expected[matched], rtol=0, atol=TOLERANCE)
    assert compared == 8 * sum(len(h) + 1 for h in systems.values())


@pytest.mark.parametrize("folder", CORPORA, ids=IDS)
def test_chrf_eps_smoothing_and_whitespace_equal_sacrebleu(folder):
    """eps_smoothing, whitespace, and with one reference both. sacrebleu counts every case with
    new statistics: with spaces, and with eps_smoothing against several references (it picks the
    best reference by the smoothed score). With one reference eps_smoothing changes only the
    score: without spaces sacrebleu scores chrF's own statistics (equal to sacrebleu's,
    ``test_chrf.py``), with them the statistics it counted with spaces. Both options against
    several references are left to the random corpora of ``test_chrf.py``: a third count of the
    two English corpora with two references would add about a minute."""
    refs, systems = characters(folder)
    several = len(refs) > 1
    cases = ((True, False), (False, True)) + (() if several else ((True, True),))
    counters = {}  # (whitespace, eps_smoothing) -> a sacrebleu CHRF holding the references
    for hyps in systems.values():
        counted = {}
        for eps, whitespace in cases:
            metric = ChrF(eps_smoothing=eps, whitespace=whitespace)
            ours = metric.stats(hyps, refs)
            if whitespace or several:
                key = (whitespace, eps and several)
                if key not in counters:
                    counters[key] = CHRF(whitespace=key[0], eps_smoothing=key[1], references=[joined(ref) for ref in refs])
                if key not in counted:
                    counted[key] = counters[key]._extract_corpus_statistics(joined(hyps), None)
                theirs = counted[key]
                np.testing.assert_array_equal(ours, np.asarray(theirs, dtype=float))
            else:
                theirs = ours.astype(int).tolist()
            oracle = CHRF(eps_smoothing=eps, whitespace=whitespace)
            expected = np.array([oracle._compute_f_score(s) / 100 for s in theirs])
            np.testing.assert_allclose(metric.score(ours), expected, rtol=0, atol=TOLERANCE)
            system = oracle._compute_f_score([int(x) for x in np.asarray(theirs).sum(0)]) / 100
            assert float(metric.score(ours.sum(0))) == pytest.approx(system, abs=TOLERANCE)
