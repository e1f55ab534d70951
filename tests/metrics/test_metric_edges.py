"""Edges of the metrics a golden value does not reach: no arithmetic warning from a METEOR
segment without matches, and the error naming what params=en needs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from metaeval.errors import UsageError
from metaeval.metrics.meteor import FUNCTION_WORDS_ENV, METEOR, meteor_score


def test_meteor_without_matches_scores_zero_silently():
    # hyp_len, ref_len, hyp_func, ref_func, matches, hyp_fm, ref_fm, chunks: nothing matches
    stats = np.array([[3.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scores = meteor_score(stats, alpha=0.85, beta=0.2, gamma=0.6, delta=0.75)
    assert scores.tolist() == [0.0, 0.0]


def test_meteor_en_without_function_words_names_what_it_needs(monkeypatch):
    monkeypatch.delenv(FUNCTION_WORDS_ENV, raising=False)
    with pytest.raises(UsageError, match=r"^meteor: params=en needs METEOR 1\.5's English function-word list .*"
                                         + FUNCTION_WORDS_ENV):
        METEOR(params="en")


def test_every_metric_compiles_its_kernels_on_preload() -> None:
    from metaeval.metrics import get_metric

    for name in ("bleu", "nist", "ter", "1-ter", "gtm", "meteor", "chrf"):
        get_metric(name).preload()  # runs the metric once on a made-up segment: an error here fails


def test_the_first_over_long_segment_is_named_with_its_length() -> None:
    from metaeval.metrics.ter import MAX_LEN_BOUND, TER, SegmentTooLong

    with pytest.raises(SegmentTooLong) as too_long:
        TER(max_len=3).segment_stats([["a"], ["a", "b", "c", "d"], list("abcde")], [[["a"], ["a"], ["a"]]])
    assert (too_long.value.side, too_long.value.index, too_long.value.length, too_long.value.limit) == ("hypothesis", 1, 4, 3)
    assert str(too_long.value).startswith("ter: the hypothesis of segment 2 has 4 tokens, above the limit of 3")
    assert TER(max_len=MAX_LEN_BOUND).max_len == MAX_LEN_BOUND  # the bound itself is allowed
    with pytest.raises(ValueError, match="max_len"):
        TER(max_len=MAX_LEN_BOUND + 1)


def test_bleu_names_itself_in_a_bad_order() -> None:
    from metaeval.metrics.bleu import BLEU

    with pytest.raises(ValueError, match=r"^bleu: n must be an integer >= 1, got n=0$"):
        BLEU(n=0)


def test_nist_of_an_empty_hypothesis_is_0_without_a_warning() -> None:
    import warnings

    from metaeval.metrics import get_metric

    nist = get_metric("nist")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scores = nist.score(nist.stats([[], ["a", "b"]], [[["a", "b", "c"], ["a", "b"]]]))
    assert scores[0] == 0.0 and scores[1] > 0


def test_a_metric_option_needs_a_key_and_a_value() -> None:
    from metaeval.metrics.base import parse_spec

    assert parse_spec("bleu:n=3") == ("bleu", {"n": "3"})
    for spec, part in (("bleu:n", "n"), ("bleu:=3", "=3")):
        with pytest.raises(UsageError, match=f"expected key=value options, got '{part}'"):
            parse_spec(spec)


def test_the_first_best_reference_gives_float_statistics_whatever_it_is_given() -> None:
    from metaeval.metrics.base import first_best_reference

    best = first_best_reference([np.array([[1, 2], [5, 0]]), np.array([[3, 4], [5, 9]])], lambda s: s[..., 0].astype(float))
    assert best.dtype == np.float64 and best.tolist() == [[3.0, 4.0], [5.0, 0.0]]  # a tie keeps the first


def test_an_n_gram_order_is_a_whole_number_from_1() -> None:
    from metaeval.metrics.ngrams import check_order

    assert check_order("bleu", 4) == 4 and check_order("bleu", np.int64(2)) == 2
    for n in (2.5, "4", True, 0):
        with pytest.raises(ValueError, match=r"^bleu: n must be an integer >= 1"):
            check_order("bleu", n)
