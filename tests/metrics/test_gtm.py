"""GTM 1.4: golden values from the tool, hand-computed cases and properties."""

from __future__ import annotations

import math
from pathlib import Path
from random import Random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metaeval.errors import UsageError
from metaeval.metrics import get_metric
from metaeval.metrics.base import Metric
from metaeval.metrics.gtm import GTM
from tests.golden_util import GOLDEN_FOLDERS, load_golden_folder

needs_golden = pytest.mark.skipif(not GOLDEN_FOLDERS, reason="shared golden folder not found (set METAEVAL_SHARED)")


def toks(text: str) -> list[str]:
    return text.split()


def compare_golden(metric: Metric, folder: Path, metric_name: str) -> int:
    """Compare every golden row of ``metric_name`` in ``folder`` (segment and system level) within 1e-9
    (GTM prints full double precision).

    Returns the number of rows compared; fails unless that is every row of the metric, and > 0.
    """
    refs, systems, golden = load_golden_folder(folder)
    rows = golden[golden.metric == metric_name]
    prepared = metric.prepare(refs)
    compared = 0
    for system, hyps in systems.items():
        stats = metric.segment_stats(hyps, prepared)
        seg_scores = metric.score(stats)
        for row in rows[rows.system == system].itertuples():
            got = metric.score(stats.sum(0)) if row.seg_id == "" else seg_scores[int(row.seg_id) - 1]
            assert got == pytest.approx(row.score, abs=1e-9), (metric_name, system, row.seg_id)
            compared += 1
    assert compared == len(rows) > 0, (metric_name, folder.name, compared, len(rows))
    return compared


def shuffled_corpus_scores(metric: Metric, segments: list[tuple[list[str], ...]], rnd: Random) -> tuple[float, float]:
    """Corpus score of ``(hyp, ref1, ref2)`` segments, in the given order and shuffled."""
    order = list(range(len(segments)))
    rnd.shuffle(order)
    hyps = [s[0] for s in segments]
    refs = [[s[1] for s in segments], [s[2] for s in segments]]
    shuffled_refs = [[r[i] for i in order] for r in refs]
    return metric.corpus_score(hyps, refs), metric.corpus_score([hyps[i] for i in order], shuffled_refs)


@needs_golden
@pytest.mark.parametrize("folder", GOLDEN_FOLDERS, ids=lambda p: p.name)
@pytest.mark.parametrize("e", [1, 2, 3])
def test_golden_gtm14(folder, e):
    """Every gtm_e{1,2,3} row of GTM 1.4 (-t +s +d -e E), segment and system level, within 1e-9."""
    compare_golden(GTM(e=e), folder, f"gtm_e{e}")


def seg_score(hyp: str, refs: list[str], e: float = 1.0) -> float:
    return float(GTM(e=e).sentence_scores([toks(hyp)], [[toks(r)] for r in refs])[0])


def test_identical_is_one():
    assert seg_score("a b c d", ["a b c d"], e=3) == pytest.approx(1.0)


def test_two_runs_with_exponent():
    # Runs "a b" and "c d" (the ref has x between them). e=2: MMS = sqrt(2^2 + 2^2) = sqrt(8).
    # P = sqrt(8)/4, R = sqrt(8)/5, F = 2PR/(P+R) = 2*(8/20) / (sqrt(8)*(1/4 + 1/5)) = 0.8 / (0.45*sqrt(8)).
    assert seg_score("a b c d", ["a b x c d"], e=2) == pytest.approx(0.8 / (0.45 * math.sqrt(8)))
    # e=1: MMS = 4, P = 1, R = 4/5, F = 2*0.8/1.8 = 8/9.
    assert seg_score("a b c d", ["a b x c d"], e=1) == pytest.approx(8 / 9)


def test_budget_cuts_the_run_to_the_mean_reference_length():
    # Refs of 3 and 7 tokens: mean 5, budget min(7, 5) = 5. The run of 7 against the second
    # ref is cut to 5: MMS = 5, P = 5/7, R = 5/5, F = 2*(5/7)/(12/7) = 10/12.
    assert seg_score("a b c d e f g", ["a b c", "a b c d e f g"], e=2) == pytest.approx(10 / 12)


def test_runs_never_cross_references_and_mean_length_is_used():
    # Joined refs "a b | c d": two runs of 2, not one of 4. Budget min(4, mean 2) = 2, so only
    # one run is taken: MMS = 2, P = 2/4, R = 2/2, F = 2*0.5/1.5 = 2/3 (for any e).
    assert seg_score("a b c d", ["a b", "c d"], e=1) == pytest.approx(2 / 3)
    assert seg_score("a b c d", ["a b", "c d"], e=3) == pytest.approx(2 / 3)


def test_edge_cases_score_zero():
    metric = GTM()
    stats = metric.stats([[], ["z"]], [[toks("a b"), toks("a")], [toks("a b c d"), toks("b")]])
    # Empty hyp: (0, 0, mean(2, 4) = 3); no hit: (0, 1, mean(1, 1) = 1).
    np.testing.assert_array_equal(stats, [[0, 0, 3], [0, 1, 1]])
    np.testing.assert_array_equal(metric.score(stats), [0.0, 0.0])
    assert metric.score(np.zeros(3)) == 0.0


def test_corpus_score_is_score_of_summed_stats():
    metric = GTM()
    hyps = [toks("a b c"), toks("a b c d")]
    refs = [[toks("a b c"), toks("a b x c d")]]
    # Stats (MMS, |hyp|, ref len): (3, 3, 3) and (4, 4, 5). P = 7/7, R = 7/8, F = 2*(7/8)/(15/8) = 14/15.
    np.testing.assert_array_equal(metric.stats(hyps, refs), [[3, 3, 3], [4, 4, 5]])
    assert metric.corpus_score(hyps, refs) == pytest.approx(14 / 15)


def test_one_segment_corpus_equals_segment_score():
    metric = GTM(e=2)
    hyps, refs = [toks("a b c d")], [[toks("a b x c d")]]
    assert metric.corpus_score(hyps, refs) == pytest.approx(metric.sentence_scores(hyps, refs)[0])


def test_score_is_vectorised_over_leading_axes():
    metric = GTM()
    stats = np.array([[[3, 3, 3], [4, 4, 5]], [[0, 0, 3], [2, 4, 2]]], dtype=float)
    # Rows: F = 1; 8/9; 0; P = 1/2, R = 1, F = 2/3.
    np.testing.assert_allclose(metric.score(stats), [[1, 8 / 9], [0, 2 / 3]])


def test_options_signature_and_registry():
    assert GTM(e=2).signature().startswith("gtm|e:2|version:")
    assert get_metric("gtm:e=3") == GTM(e=3.0)
    assert GTM().stat_names == ("mms", "hyp_len", "ref_len")
    for bad in (0, 0.5, float("nan"), float("inf"), "2", True):
        with pytest.raises(ValueError):
            GTM(e=bad)
    with pytest.raises(UsageError):
        get_metric("gtm:e=two")


def test_hypothesis_count_must_match_references():
    metric = GTM()
    with pytest.raises(ValueError, match="2 hypotheses for 1"):
        metric.segment_stats([["a"], ["b"]], metric.prepare([[["a"]]]))


token_lists = st.lists(st.sampled_from("abcd"), max_size=12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(token_lists, token_lists, token_lists), min_size=1, max_size=6), st.randoms(use_true_random=False))
def test_corpus_score_ignores_segment_order(segments, rnd):
    original, shuffled = shuffled_corpus_scores(GTM(e=2), segments, rnd)
    assert shuffled == pytest.approx(original)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from("abcd"), min_size=1, max_size=20), st.sampled_from([1.0, 2.0, 3.0]))
def test_identical_hypothesis_and_reference_score_one(tokens, e):
    assert GTM(e=e).sentence_scores([tokens], [[tokens], [tokens]])[0] == pytest.approx(1.0)


@settings(max_examples=60, deadline=None)
@given(token_lists, token_lists, st.sampled_from([1.0, 2.0, 3.0]))
def test_mms_bounded_by_budget(hyp, ref, e):
    mms, hyp_len, ref_len = GTM(e=e).stats([hyp], [[ref]])[0]
    # The runs' lengths sum to at most the budget, and (sum len^e)^(1/e) <= sum len.
    assert 0.0 <= mms <= min(hyp_len, ref_len) + 1e-9
