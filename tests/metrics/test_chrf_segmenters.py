"""chrF ignores spaces, so on the same characters every segmentation gives the same numbers.

The one intended difference: ``char`` and ``cjk-char`` drop invisible format characters and
variation selectors by policy (``invisible=drop``; README, "Characters"), word segmenters keep
them. An emoji with U+FE0F or a ZWJ sequence therefore scores differently under ``char`` than
under ``jieba``, and identically under ``char:invisible=keep``.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from metaeval.corpora.model import Corpus
from metaeval.scoring import score_corpus
from tests.robustness._helpers import N_REAL, WMT24_ZH

WORD = ["jieba"] + (["pkuseg"] if importlib.util.find_spec("pkuseg") else [])


def chrf_by_segmenter(corpus: Corpus, segmenters: list[str]) -> dict[str, np.ndarray]:
    result = score_corpus(corpus, segmenters, ["chrf"])
    return {cfg.segmenter: cfg.seg_scores for cfg in result.configs}


def test_every_segmenter_gives_the_same_chrf_on_real_paragraphs():
    if not WMT24_ZH.is_dir():
        pytest.skip(f"shared data folder {WMT24_ZH} not found")
    from metaeval import corpora

    full, _ = corpora.read(WMT24_ZH)
    keep = slice(0, N_REAL)
    corpus = Corpus(seg_ids=full.seg_ids[keep], sources=full.sources[keep],
                    references={k: v[keep] for k, v in full.references.items()},
                    systems={k: v[keep] for k, v in list(full.systems.items())[:4]})
    scores = chrf_by_segmenter(corpus, ["char", "cjk-char", *WORD])
    assert all(len(v.ravel()) == 4 * N_REAL for v in scores.values())
    for name, values in scores.items():
        assert values.tolist() == scores["char"].tolist(), name


EMOJI_REF = ["干得好👍️，明天见。", "一家人👨\u200d👩\u200d👧在公园。"]
EMOJI_HYP = ["做得好👍，明天见。", "一家👨\u200d👩\u200d👧在公园里。"]


def emoji_corpus() -> Corpus:
    return Corpus(seg_ids=("1", "2"), sources=("a", "b"), references={"A": tuple(EMOJI_REF)},
                  systems={"s": tuple(EMOJI_HYP)})


def test_invisible_characters_are_the_one_intended_difference():
    scores = chrf_by_segmenter(emoji_corpus(), ["char", "char:invisible=keep", "cjk-char", *WORD])
    for name in WORD:
        assert scores[name].tolist() == scores["char:invisible=keep"].tolist(), name
    # both segments hold U+FE0F or U+200D, which char and cjk-char drop
    assert scores["cjk-char"].tolist() == scores["char"].tolist()
    assert (scores["char"] != scores["jieba"]).all()


def test_without_invisible_characters_every_segmenter_agrees():
    strip = str.maketrans("", "", "\ufe0f\u200d")
    corpus = Corpus(seg_ids=("1", "2"), sources=("a", "b"), references={"A": tuple(t.translate(strip) for t in EMOJI_REF)},
                    systems={"s": tuple(t.translate(strip) for t in EMOJI_HYP)})
    scores = chrf_by_segmenter(corpus, ["char", "char:invisible=keep", "cjk-char", *WORD])
    for name, values in scores.items():
        assert values.tolist() == scores["char"].tolist(), name
