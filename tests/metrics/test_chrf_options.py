"""chrF's ``eps_smoothing`` and ``whitespace``: hand-computed cases and the options' spec,
signature and reuse key (``test_chrf.py`` compares every combination with sacrebleu)."""

from __future__ import annotations

import numpy as np
import pytest

from metaeval.errors import UsageError
from metaeval.metrics import get_metric
from metaeval.metrics.chrf import ChrF


def test_eps_smoothing_by_hand():
    # hyp "a", ref "ab", char_order 2, beta 2. Order 1: P = 1, R = 1/2, F = 5 * 1 * 0.5 / (4 + 0.5)
    # = 5/9. Order 2: the hypothesis has no bigram. Effective order (default): order 2 is left
    # out, so chrF = 5/9. eps: P = eps, R = 0/1 = 0, F = 0, so chrF = (5/9 + 0) / 2.
    assert float(ChrF(char_order=2).corpus_score([["a"]], [[["ab"]]])) == pytest.approx(5 / 9, abs=1e-15)
    assert float(ChrF(char_order=2, eps_smoothing=True).corpus_score([["a"]], [[["ab"]]])) == pytest.approx(5 / 18, abs=1e-15)
    # hyp "ab", ref "ab", char_order 3: order 3 has no n-gram on either side, P = R = eps, F = eps
    score = float(ChrF(char_order=3, eps_smoothing=True).corpus_score([["ab"]], [[["ab"]]]))
    assert score == pytest.approx((1 + 1 + 1e-16) / 3, abs=1e-15)


def test_eps_smoothing_picks_the_best_reference_by_its_own_score():
    # hyp "cb", refs "cbca" and "c", char_order 3. Effective order: "cbca" scores
    # F(P = 1, R = (1/2 + 1/3) / 2) = 0.4717, "c" scores F(P = 1/2, R = 1) = 0.8333: "c" is taken.
    # eps: "cbca" (5/9 + 5/13 + 0) / 3 = 0.3134, "c" (5/6 + eps + eps) / 3 = 0.2778: "cbca" is taken.
    hyps, refs = [["cb"]], [[["cbca"]], [["c"]]]
    assert ChrF(char_order=3).stats(hyps, refs).tolist() == [[2, 1, 1, 0, 0, 0, 0, 0, 0]]
    assert ChrF(char_order=3, eps_smoothing=True).stats(hyps, refs).tolist() == [[2, 4, 2, 1, 3, 1, 0, 2, 0]]
    metric = ChrF(char_order=3, eps_smoothing=True)
    per_ref = [metric.stats(hyps, [ref]) for ref in refs]
    np.testing.assert_array_equal(metric.combine_references(per_ref), metric.stats(hyps, refs))
    assert float(metric.score(metric.stats(hyps, refs)[0])) == pytest.approx((5 / 9 + 5 / 13) / 3, abs=1e-15)


def test_whitespace_by_hand():
    # tokens "a" "b" against "ab", char_order 2: without spaces both are "ab" (chrF = 1); with
    # them "a b" against "ab". Order 1: 3 hypothesis characters, 2 match: P = 2/3, R = 1. Order 2:
    # "a ", " b" against "ab": P = R = 0. Averages P = 1/3, R = 1/2: F2 = 5 (1/6) / (4/3 + 1/2) = 5/11.
    hyps, refs = [["a", "b"]], [[["ab"]]]
    assert float(ChrF(char_order=2).corpus_score(hyps, refs)) == pytest.approx(1.0, abs=1e-15)
    assert float(ChrF(char_order=2, whitespace=True).corpus_score(hyps, refs)) == pytest.approx(5 / 11, abs=1e-15)
    assert ChrF(char_order=2, whitespace=True).stats(hyps, refs).tolist() == [[3, 2, 2, 2, 1, 0]]


def test_spec_signature_and_reuse_key():
    assert get_metric("chrf:eps_smoothing=true") == ChrF(eps_smoothing=True)
    assert get_metric("chrf++:whitespace=true,eps_smoothing=true") == ChrF(word_order=2, whitespace=True, eps_smoothing=True)
    # off: the signatures written before the options existed
    assert ChrF().signature().startswith("chrf|nc:6|nw:0|beta:2|case:mixed|space:no|sacrebleu:")
    assert "|space:yes|" in ChrF(whitespace=True).signature()
    assert "|space:no|eps:yes|sacrebleu:" in ChrF(word_order=2, eps_smoothing=True).signature()
    assert ChrF().reuse_key() == ChrF(eps_smoothing=True).reuse_key() == "chars"
    assert ChrF(whitespace=True).reuse_key() == ChrF(word_order=2).reuse_key() == "tokens"
    with pytest.raises(UsageError, match="whitespace"):
        get_metric("chrf:whitespace=maybe")
    with pytest.raises(ValueError, match="eps_smoothing"):
        ChrF(eps_smoothing=1)  # type: ignore[arg-type]
