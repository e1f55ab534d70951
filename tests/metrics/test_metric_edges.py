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
