"""The n-gram metrics on ``byte`` tokens: BLEU by hand and against sacrebleu on the byte tokens
(orders up to 12), chrF++ at three segmentations of real data against sacrebleu's
``CHRF(word_order=2)`` on the segmented text, and TER's length error at byte level."""

from __future__ import annotations

import logging
import math

import numpy as np
import pytest
from sacrebleu.metrics import BLEU as SacreBLEU
from sacrebleu.metrics import CHRF

from metaeval import corpora, segmenters
from metaeval.corpora.model import Corpus
from metaeval.metrics.bleu import BLEU
from metaeval.metrics.ter import DEFAULT_MAX_LEN
from metaeval.scoring import score_corpus
from tests.golden_util import DATA
from tests.robustness._helpers import assert_error, make_corpus
from tests.robustness.test_ter_guard import metaeval

logging.getLogger("sacrebleu").setLevel(logging.ERROR)

WMT24_ZH = DATA / "wmt24-esa" / "en-zh"
MLQE = DATA / "mlqe-pe" / "en-zh-test20"
needs_data = pytest.mark.skipif(not WMT24_ZH.is_dir(), reason=f"shared data not found: {DATA}")


def byte_tokens(texts):
    return segmenters.get("byte").segment_many(list(texts))


def test_byte_bleu_by_hand():
    # 中国 = E4 B8 AD E5 9B BD against 中文 = E4 B8 AD E6 96 87: 6 tokens each (BP = 1).
    # matches 3/6 (E4 B8 AD), 2/5 (E4B8, B8AD), 1/4 (E4B8AD), 0/3
    hyps, refs = byte_tokens(["中国"]), [byte_tokens(["中文"])]
    assert BLEU(smooth="none").stats(hyps, refs).tolist() == [[6, 6, 3, 2, 1, 0, 6, 5, 4, 3]]
    assert BLEU(n=3, smooth="none").corpus_score(hyps, refs) == pytest.approx((1 / 2 * 2 / 5 * 1 / 4) ** (1 / 3), abs=1e-15)
    # mteval: the first order without a match gets 1 / (2 * T4) = 1/6
    assert BLEU().corpus_score(hyps, refs) == pytest.approx((1 / 2 * 2 / 5 * 1 / 4 * 1 / 6) ** (1 / 4), abs=1e-15)
    # at order 12 with effective order the segment has orders 1..6 only: (3 2 1 0 0 0) / (6 5 4 3 2 1)
    # with floor 0.1 for each order without a match
    expected = (3 / 6 * 2 / 5 * 1 / 4 * 0.1 / 3 * 0.1 / 2 * 0.1 / 1) ** (1 / 6)
    assert BLEU(n=12, smooth="floor", effective_order=True).corpus_score(hyps, refs) == pytest.approx(expected, abs=1e-15)
    # characters see no shared bigram: (1/2 * 1/(2*1) * 1 * 1) ** (1/4) with mteval's smoothing
    chars = segmenters.get("char")
    assert BLEU().corpus_score([chars("中国")], [[chars("中文")]]) == pytest.approx(0.25 ** 0.25, abs=1e-15)


@pytest.mark.skipif(not MLQE.is_dir(), reason=f"shared data not found: {DATA}")
@pytest.mark.parametrize("folder,n_systems", [(WMT24_ZH, 2), (MLQE, 1)], ids=["wmt24-esa/en-zh", "mlqe-pe/en-zh-test20"])
def test_byte_bleu_up_to_order_12_equals_sacrebleu_on_the_byte_tokens(folder, n_systems):
    corpus, _ = corpora.read(folder)
    refs = [byte_tokens(ref) for ref in corpus.references.values()]
    oracle = SacreBLEU(tokenize="none", force=True, max_ngram_order=12, references=[[" ".join(t) for t in r] for r in refs])
    for hyps in list(corpus.systems.values())[:n_systems]:
        hyps = byte_tokens(hyps)
        theirs = oracle._extract_corpus_statistics([" ".join(t) for t in hyps], None)
        ours = BLEU(n=12).stats(hyps, refs)
        np.testing.assert_array_equal(ours, np.asarray(theirs, dtype=float))
        for smooth in ("none", "exp", "floor", "add-k"):
            for effective in (False, True):
                metric = BLEU(n=12, smooth=smooth, effective_order=effective)

                def sacrebleu_score(s):
                    return SacreBLEU.compute_bleu(list(s[2:14]), list(s[14:]), int(s[0]), int(s[1]), smooth_method=smooth,
                                                  effective_order=effective, max_ngram_order=12).score / 100

                np.testing.assert_allclose(metric.score(ours), [sacrebleu_score(s) for s in theirs], rtol=0, atol=1e-9)
                assert float(metric.score(ours.sum(0))) == pytest.approx(sacrebleu_score([int(x) for x in ours.sum(0)]), abs=1e-9)


@needs_data
def test_chrf_pp_at_three_segmentations_differs_and_equals_sacrebleu():
    full, _ = corpora.read(WMT24_ZH)
    corpus = Corpus(seg_ids=full.seg_ids, sources=full.sources, references=full.references,
                    systems=dict(list(full.systems.items())[:2]))
    names = ("char", "jieba", "byte")
    result = score_corpus(corpus, list(names), ["chrf++"])
    ours = {config.segmenter: config for config in result.configs}
    for name in names:
        seg = segmenters.get(name)
        refs = [[" ".join(t) for t in seg.segment_many(ref)] for ref in corpus.references.values()]
        oracle = CHRF(word_order=2, references=refs)
        for row, hyps in enumerate(corpus.systems.values()):
            joined = [" ".join(t) for t in seg.segment_many(hyps)]
            stats = oracle._extract_corpus_statistics(joined, None)
            expected = [oracle._compute_f_score(s) / 100 for s in stats]
            np.testing.assert_allclose(ours[name].seg_scores[row], expected, rtol=0, atol=1e-12)
            # sacrebleu's corpus_score: the F-score of the summed statistics
            system = oracle._compute_f_score([int(x) for x in np.asarray(stats).sum(0)]) / 100
            assert ours[name].sys_scores[row] == pytest.approx(system, abs=1e-12)
    # word n-grams follow the segmenter: nearly every paragraph scores differently
    for a, b in (("char", "jieba"), ("char", "byte"), ("jieba", "byte")):
        differs = ours[a].seg_scores != ours[b].seg_scores
        assert differs.mean() > 0.9, (a, b, differs.mean())
        assert (ours[a].sys_scores != ours[b].sys_scores).all()


def test_ter_at_byte_level_is_the_usual_length_error(tmp_path):
    # 334 CJK characters: 334 tokens under char, 1002 under byte, above TER's default limit
    n_chars = 334
    assert 3 * n_chars > DEFAULT_MAX_LEN >= n_chars
    hyps = {"s1": ["猫坐着。", "今天下雨。", "你好世界。", "晚安。"],
            "s2": ["一只猫坐。", "今天有雨。", ("你好" * n_chars)[:n_chars], "晚上好。"]}
    corpus = make_corpus(tmp_path / "long", hyps, esa={})
    assert metaeval("score", corpus, "-s", "char", "-m", "ter", "-q").code == 0
    err = assert_error(metaeval("score", corpus, "-s", "byte", "-m", "ter", "-q"), 1,
                       "system 's2'", str(corpus / "systems" / "s2.zh"), "segment 3",
                       f"{3 * n_chars} tokens under byte", f"limit of {DEFAULT_MAX_LEN} tokens of metric 'ter'")
    assert err.count("metaeval: error:") == 1


@needs_data
def test_ter_at_byte_level_on_real_paragraphs_is_one_error_line(tmp_path):
    out = tmp_path / "scores.tsv"
    result = metaeval("score", WMT24_ZH, "-s", "byte", "-m", "ter", "-q", "-o", out)
    # the corpus's own warnings (two system files differ from the reference only in NFKC form),
    # then one error line
    *warnings, error = result.err.rstrip("\n").split("\n")
    assert result.code == 1 and result.out == "" and not out.exists()
    assert all(line.startswith("metaeval: warning: ") for line in warnings) and len(warnings) <= 2
    for fragment in ("metaeval: error: corpus 'wmt24-esa/en-zh'", "tokens under byte",
                     f"limit of {DEFAULT_MAX_LEN} tokens of metric 'ter'", "-m ter:max_len=N"):
        assert fragment in error, (fragment, error)


def test_byte_order_is_about_three_times_the_character_order():
    # one CJK character is three byte tokens: a character 4-gram is a byte 12-gram
    text = "我们喜欢苹果"
    n_bytes, n_chars = len(byte_tokens([text])[0]), len(segmenters.get("char")(text))
    assert n_bytes == 3 * n_chars and math.isclose(BLEU(n=12).corpus_score(byte_tokens([text]), [byte_tokens([text])]), 1.0)


@needs_data
def test_bleu_nist_and_chrf_pp_score_byte_tokens_through_the_api():
    import metaeval

    full, _ = corpora.read(WMT24_ZH)
    keep = slice(0, 30)
    corpus = Corpus(seg_ids=full.seg_ids[keep], sources=full.sources[keep],
                    references={k: v[keep] for k, v in full.references.items()},
                    systems={k: v[keep] for k, v in list(full.systems.items())[:3]})
    table = metaeval.score(corpus, segmenters=["byte"], metrics=["bleu:n=12", "nist:n=15", "chrf++"], levels=["sys"])
    assert len(table) == 9 and np.isfinite(table.score).all() and (table.score > 0).all()
    refs = [byte_tokens(ref) for ref in corpus.references.values()]
    for system, hyps in corpus.systems.items():
        expected = BLEU(n=12).corpus_score(byte_tokens(hyps), refs)
        row = table[(table.metric == "bleu:n=12") & (table.system == system)]
        assert float(row.score.iloc[0]) == pytest.approx(expected, abs=1e-15)
        assert "byte|unit:utf8|form:ascii+braille" in row.config.iloc[0]
