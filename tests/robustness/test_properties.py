"""Property-based tests (hypothesis) over the readers and the metric statistics.

Example counts: plain folder round trip 60, judgments round trip 60, BLEU against sacrebleu
100, additivity and order invariance of BLEU/TER/GTM 100 each, identity 50.
"""

from __future__ import annotations

import math
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metaeval import corpora
from metaeval.metrics import get_metric

# Any Unicode text without a line break, NUL or surrogate; a lone \r is allowed inside a
# line (the readers keep it) but not at its end, where it would form a CRLF pair.
LINE = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\n\x00"), max_size=30).filter(
    lambda s: not s.endswith("\r")
)


@st.composite
def folder_texts(draw):
    n = draw(st.integers(1, 8))
    column = st.lists(LINE, min_size=n, max_size=n)
    return {
        "src": draw(column),
        "ref": draw(column),
        "sys": {"a": draw(column), "b": draw(column)},
        "crlf": draw(st.booleans()),
        "bom": draw(st.booleans()),
        "final_newline": draw(st.booleans()),
    }


def _encode(texts, crlf, bom, final_newline):
    end = "\r\n" if crlf else "\n"
    body = end.join(texts) + (end if final_newline or texts[-1] == "" else "")
    return (b"\xef\xbb\xbf" if bom else b"") + body.encode("utf-8")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(folder_texts())
def test_plain_folder_round_trip(case):
    """Lines written with any mix of LF/CRLF, BOM and final newline are read back exactly."""
    opts = (case["crlf"], case["bom"], case["final_newline"])
    root = Path(tempfile.mkdtemp(prefix="metaeval-prop-"))
    try:
        (root / "systems").mkdir()
        (root / "src.en").write_bytes(_encode(case["src"], *opts))
        (root / "ref.R.zh").write_bytes(_encode(case["ref"], *opts))
        for name, texts in case["sys"].items():
            (root / "systems" / f"{name}.zh").write_bytes(_encode(texts, *opts))
        corpus = corpora.read_corpus_folder(root)
    finally:
        shutil.rmtree(root)
    n = len(case["src"])
    assert list(corpus.seg_ids) == [str(i) for i in range(1, n + 1)]
    assert list(corpus.sources) == case["src"]
    assert list(corpus.references["R"]) == case["ref"]
    assert {k: list(v) for k, v in corpus.systems.items()} == case["sys"]


NAME = st.text(st.characters(categories=["L", "N", "P", "S"], exclude_characters="\t"), min_size=1, max_size=8)
KEY = st.tuples(NAME, NAME, NAME | st.just(""), st.sampled_from(["esa", "da", "mqm", "rank", "fluency"]))
VALUE = st.floats(allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(KEY, VALUE, min_size=1, max_size=20))
def test_judgments_table_round_trip(rows):
    """A long judgments TSV written with ``repr`` floats reads back to the same rows."""
    text = "seg_id\tsystem\tjudge\tkind\tvalue\n" + "".join(
        f"{seg}\t{system}\t{judge}\t{kind}\t{value!r}\n" for (seg, system, judge, kind), value in rows.items()
    )
    with tempfile.TemporaryDirectory(prefix="metaeval-prop-") as folder:
        path = Path(folder) / "judgments.tsv"
        path.write_text(text, encoding="utf-8")
        table = corpora.read_long_judgments(path).table
    got = {
        (r.seg_id, r.system, r.judge, r.kind): r.value
        for r in table[["seg_id", "system", "judge", "kind", "value"]].itertuples(index=False)
    }
    assert got == rows


TOKENS = st.lists(st.sampled_from(list("abcde")), max_size=12)


@st.composite
def segments(draw, min_size=1):
    n = draw(st.integers(min_size, 6))
    n_refs = draw(st.integers(1, 2))
    hyps = draw(st.lists(TOKENS, min_size=n, max_size=n))
    refs = [draw(st.lists(TOKENS.filter(bool), min_size=n, max_size=n)) for _ in range(n_refs)]
    perm = draw(st.permutations(range(n)))
    return hyps, refs, list(perm)


@pytest.mark.parametrize("spec", ["bleu", "bleu:smooth=none", "ter", "gtm"])
@settings(max_examples=100, deadline=None)
@given(case=segments())
def test_additivity_and_order_invariance(spec, case):
    """Segment statistics depend on that segment only (computing them one segment at a time
    gives the same rows), and the corpus score of summed statistics ignores segment order."""
    hyps, refs, perm = case
    metric = get_metric(spec)
    stats = metric.stats(hyps, refs)
    one_by_one = np.vstack([metric.stats([h], [[r[i]] for r in refs]) for i, h in enumerate(hyps)])
    np.testing.assert_allclose(stats, one_by_one, rtol=0, atol=1e-12)
    permuted = metric.stats([hyps[i] for i in perm], [[r[i] for i in perm] for r in refs])
    np.testing.assert_allclose(permuted, stats[perm], rtol=0, atol=1e-12)
    a, b = float(metric.score(stats.sum(0))), float(metric.score(permuted.sum(0)))
    assert a == pytest.approx(b, abs=1e-12) or (math.isnan(a) and math.isnan(b))


@settings(max_examples=100, deadline=None)
@given(case=segments())
def test_bleu_matches_sacrebleu(case):
    """Corpus BLEU without smoothing equals sacrebleu's on pre-tokenized text (the oracle)."""
    import sacrebleu

    hyps, refs, _ = case
    ours = get_metric("bleu:smooth=none").corpus_score(hyps, refs)
    theirs = sacrebleu.corpus_bleu(
        [" ".join(h) for h in hyps], [[" ".join(t) for t in r] for r in refs],
        tokenize="none", smooth_method="none", force=True,
    ).score / 100  # fmt: skip
    assert ours == pytest.approx(theirs, abs=1e-9)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.sampled_from(list("abcde")), min_size=4, max_size=12), min_size=1, max_size=5))
def test_identical_hypothesis_and_reference(texts):
    """hyp == ref: BLEU 1 (every sequence has >= 4 tokens), TER 0, GTM 1."""
    refs = [texts]
    assert get_metric("bleu").corpus_score(texts, refs) == pytest.approx(1.0)
    assert get_metric("ter").corpus_score(texts, refs) == pytest.approx(0.0)
    assert get_metric("gtm").corpus_score(texts, refs) == pytest.approx(1.0)
