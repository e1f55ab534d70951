"""The order of granularities: the sweep's measure (mean characters per token) on the
references, from scoring when it segmented them, from the store when it did not."""

from __future__ import annotations

import math

import pytest

from metaeval import segmenters
from metaeval.api import read_corpus
from metaeval.scoring import reference_lines, score_corpus
from metaeval.sweep import chars_per_token
from metaeval.systemrank.granularity import granularity_order
from tests.robustness._helpers import make_corpus, write

HYPS = {
    "s1": ["猫坐在垫子上。", "今天下雨了。", "你好，世界。", "晚安，朋友们。"],
    "s2": ["一只猫坐着。", "今天有雨。", "世界你好。", "晚上好。"],
}


@pytest.fixture
def corpus(tmp_path):
    folder = make_corpus(tmp_path / "c", hyps=HYPS, esa={})
    write(folder / "ref.A.zh", "猫坐在垫子上。\n今天 ABC 下雨了。\n你好，世界。\n晚安，朋友们。\n")
    return read_corpus(folder)[0]


def expected(corpus, name: str) -> float:
    return chars_per_token(segmenters.get(name).segment_many(reference_lines(corpus)))[0]


def test_order_and_values_are_the_sweeps_measure_on_the_references(corpus):
    order = granularity_order(corpus, ["jieba", "cjk-char", "char"])
    assert order["name"].tolist() == ["char", "cjk-char", "jieba"]
    assert order["family"].tolist() == ["characters", "characters", "words"]
    for name, value in zip(order["name"], order["chars_per_token"]):
        assert value == pytest.approx(expected(corpus, name), abs=1e-12)
    assert order["chars_per_token"].iloc[0] == 1.0 < order["chars_per_token"].iloc[1]  # "ABC" is one cjk-char token


def test_scoring_measures_the_references_and_the_store_keeps_it(corpus, tmp_path):
    store = tmp_path / "store"
    cold = score_corpus(corpus, ["char", "jieba"], ["bleu"], store=store)
    assert cold.reference_chars_per_token["jieba"] == pytest.approx(expected(corpus, "jieba"), abs=1e-12)
    warm = score_corpus(corpus, ["char", "jieba"], ["bleu"], store=store)
    assert warm.reference_chars_per_token == cold.reference_chars_per_token
    assert score_corpus(corpus, ["jieba"], ["bleu"]).reference_chars_per_token == {"jieba": cold.reference_chars_per_token["jieba"]}
    # given measures are used as they are
    order = granularity_order(corpus, ["char", "jieba"], {"jieba": 0.5})
    assert order["name"].tolist() == ["jieba", "char"]


def test_ties_by_name_and_unmeasurable_segmenters_last(corpus):
    ties = granularity_order(corpus, ["zz-unknown", "char:nfkc=true", "char"], {"char:nfkc=true": 1.0, "char": 1.0})
    assert ties["name"].tolist() == ["char", "char:nfkc=true", "zz-unknown"]
    assert math.isnan(ties["chars_per_token"].iloc[2])
