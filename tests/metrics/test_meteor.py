"""METEOR 1.5, exact module: golden values from the tool, hand-computed cases and properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metaeval.errors import UsageError
from metaeval.metrics import get_metric
from metaeval.metrics.meteor import FUNCTION_WORDS_ENV, METEOR
from tests.golden_util import DATA, GOLDEN_FOLDERS
from tests.metrics.test_gtm import compare_golden, shuffled_corpus_scores, toks

ENGLISH_WORDS = DATA / "meteor" / "english.words"
needs_golden = pytest.mark.skipif(
    not GOLDEN_FOLDERS or not ENGLISH_WORDS.is_file(), reason="shared golden folder not found (set METAEVAL_SHARED)"
)

# 0.5 ** 1.4 = exp(-1.4 * ln 2) = 0.378929; the 'other' penalty at frag 1/2 is 0.7 * 0.378929.
HALF_POW = 0.5**1.4


@pytest.fixture
def english(tmp_path):
    path = tmp_path / "fw.words"
    path.write_text("the\na\n", encoding="utf-8")
    return METEOR(params="en", function_words=str(path))


@needs_golden
@pytest.mark.parametrize("folder", GOLDEN_FOLDERS, ids=lambda p: p.name)
@pytest.mark.parametrize("params", ["other", "en"])
def test_golden_meteor15(folder, params):
    """Every meteor_exact_{other,en} row of METEOR 1.5 -m exact, segment and system level, within 1e-9
    (METEOR 1.5 prints full double precision)."""
    metric = METEOR(params=params, function_words=str(ENGLISH_WORDS) if params == "en" else "")
    compare_golden(metric, folder, f"meteor_exact_{params}")


def seg_score(metric: METEOR, hyp: str, refs: list[str]) -> float:
    return float(metric.sentence_scores([toks(hyp)], [[toks(r)] for r in refs])[0])


def test_identical_is_one(english):
    assert seg_score(METEOR(), "a b c", ["a b c"]) == 1.0
    assert seg_score(english, "the cat sat", ["the cat sat"]) == 1.0


def test_best_reference_is_kept():
    # Ref 1: P = 1, R = 1/2, Fmean = 1/(0.25/1 + 0.75/0.5) = 1/1.75; frag = 1 chunk / 1 match,
    # penalty 0.7 * 1^1.4 = 0.7: score = 0.3/1.75 = 0.171429 (golden edge seg 2 is 0.17142857).
    # Ref 2: R = 1/3, Fmean = 1/(0.25 + 2.25) = 0.4, score = 0.12.
    assert seg_score(METEOR(), "hello", ["hello world", "hello there world"]) == pytest.approx(0.3 / 1.75, abs=1e-12)
    assert seg_score(METEOR(), "hello", ["hello there world", "hello world"]) == pytest.approx(0.3 / 1.75, abs=1e-12)


def test_reordering_is_penalised_by_chunks():
    # 4 matches in 2 chunks: P = R = Fmean = 1, frag = 2/4, score = 1 - 0.7 * 0.5^1.4 = 0.734750.
    assert seg_score(METEOR(), "a b c d", ["c d a b"]) == pytest.approx(1 - 0.7 * HALF_POW, abs=1e-12)


def test_alignment_minimises_chunks():
    # "a" can align to hyp 0 or hyp 2; hyp 0 keeps "a b" in one chunk. P = 2/3, R = 1,
    # Fmean = 1/(0.25*1.5 + 0.75) = 1/1.125; frag = 1/2: score = (1 - 0.7 * 0.5^1.4) / 1.125.
    metric = METEOR()
    stats = metric.stats([toks("a b a")], [[toks("a b")]])
    np.testing.assert_array_equal(stats[0, [4, 7]], [2, 1])
    assert metric.score(stats)[0] == pytest.approx((1 - 0.7 * HALF_POW) / 1.125, abs=1e-12)


def test_function_words_weighted_by_delta(english):
    # en: delta .75. hyp "the cat", ref "the dog": one match, a function word.
    # P = R = (0.75*0 + 0.25*1) / (0.75*1 + 0.25*1) = 0.25, Fmean = 0.25; frag = 1/1, penalty 0.6 * 1^0.2.
    # Score = 0.25 * 0.4 = 0.1.
    assert seg_score(english, "the cat", ["the dog"]) == pytest.approx(0.1, abs=1e-12)
    # Matching is case-sensitive ("The" != "the"), but the function-word test lowercases:
    # only "cat" matches, a content word: P = R = 0.75 / 1, frag 1/1: 0.75 * 0.4 = 0.3.
    assert seg_score(english, "The cat", ["the cat"]) == pytest.approx(0.3, abs=1e-12)
    np.testing.assert_array_equal(english.stats([toks("The cat")], [[toks("the cat")]]), [[2, 2, 1, 1, 1, 0, 0, 1]])


def test_undefined_scores_are_zero():
    metric = METEOR()
    hyps, refs = [[], toks("x y"), toks("a")], [[toks("a b"), toks("a b"), []]]
    np.testing.assert_array_equal(metric.sentence_scores(hyps, refs), [0.0, 0.0, 0.0])
    assert metric.score(np.zeros(8)) == 0.0


def test_system_score_from_summed_stats_identical_segment_adds_no_chunk():
    metric = METEOR()
    hyps = [toks("a b"), toks("a b c d")]
    refs = [[toks("a b"), toks("c d a b")]]
    stats = metric.stats(hyps, refs)
    assert stats[0, 7] == 0 and stats[1, 7] == 2
    # Sums: 6 matches of 6 tokens on both sides, 2 chunks: frag = 2/6,
    # score = 1 - 0.7 * (1/3)^1.4 = 1 - 0.7 * 0.214809 = 0.849633.
    assert metric.corpus_score(hyps, refs) == pytest.approx(1 - 0.7 * (1 / 3) ** 1.4, abs=1e-12)


def test_one_segment_corpus_equals_segment_score(english):
    hyps, refs = [toks("the cat sat on a mat")], [[toks("a cat sat on the mat")]]
    assert english.corpus_score(hyps, refs) == pytest.approx(english.sentence_scores(hyps, refs)[0], abs=1e-12)


def test_function_word_list_is_required_for_en(monkeypatch, tmp_path):
    monkeypatch.delenv(FUNCTION_WORDS_ENV, raising=False)
    with pytest.raises(UsageError, match="english.words"):
        METEOR(params="en")
    with pytest.raises(UsageError, match="english.words"):
        get_metric("meteor:params=en")
    with pytest.raises(UsageError, match="cannot read"):
        METEOR(params="en", function_words=str(tmp_path / "missing.words"))
    path = tmp_path / "fw.words"
    path.write_text("the\n", encoding="utf-8")
    monkeypatch.setenv(FUNCTION_WORDS_ENV, str(path))
    metric = get_metric("meteor:params=en")
    assert metric.function_words == str(path)
    assert "fw:fw.words(1,sha1:" in metric.signature()


def test_options_and_signature():
    assert METEOR().signature().startswith("meteor|params:other|mod:exact|case:mixed|fw:none|version:")
    assert get_metric("meteor:params=other") == METEOR()
    assert len(METEOR().stat_names) == 8
    with pytest.raises(ValueError, match="params must be one of"):
        METEOR(params="fr")
    with pytest.raises(ValueError, match="only to params=en"):
        METEOR(params="other", function_words="x.words")
    with pytest.raises(UsageError):
        get_metric("meteor:params=xx")


token_lists = st.lists(st.sampled_from("abcde"), max_size=12)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(token_lists, token_lists, token_lists), min_size=1, max_size=6), st.randoms(use_true_random=False))
def test_corpus_score_ignores_segment_order(segments, rnd):
    original, shuffled = shuffled_corpus_scores(METEOR(), segments, rnd)
    assert shuffled == pytest.approx(original, abs=1e-12)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.sampled_from("abcde"), min_size=1, max_size=30))
def test_identical_hypothesis_and_reference_score_one(tokens):
    metric = METEOR()
    assert metric.sentence_scores([tokens], [[tokens]])[0] == pytest.approx(1.0, abs=1e-12)
    assert metric.corpus_score([tokens, tokens], [[tokens, tokens]]) == pytest.approx(1.0, abs=1e-12)


@settings(max_examples=50, deadline=None)
@given(token_lists, token_lists)
def test_alignment_is_one_to_one_and_maximal(hyp, ref):
    stats = METEOR().stats([hyp], [[ref]])[0]
    # Exact matching: the maximum number of one-to-one matches is the bag intersection.
    expected = sum(min(hyp.count(t), ref.count(t)) for t in set(hyp))
    assert stats[4] == expected
    assert 0.0 <= METEOR().score(stats) <= 1.0


@settings(max_examples=200, deadline=None)
@given(
    paths=st.lists(
        st.tuples(st.integers(0, 30), st.integers(0, 30), st.sampled_from([0, 1, 5, 2**20, 2**40])),
        min_size=1,
        max_size=120,
    ),
    top=st.integers(1, 50),
)
def test_path_ranking_is_a_stable_sort(paths, top):
    # oracle: Python's stable sort on (more matches, fewer chunks, smaller distance); distances of
    # 2**40 do not fit the packed key and take the two-sort route
    from metaeval.metrics.meteor import _sorted_paths

    matches, chunks, dist = (np.array(col, dtype=np.int64) for col in zip(*paths))
    expected = sorted(range(len(paths)), key=lambda q: (-matches[q], chunks[q], dist[q]))[:top]
    keys = np.empty(len(paths) + 1, dtype=np.int64)
    order = np.full(top, -1, dtype=np.int64)
    kept = _sorted_paths(matches, chunks, dist, len(paths), keys, top, order)
    assert list(order[:kept]) == expected


def _every_extension_search(hyp: list, ref: list, hyp_func: list, ref_func: list, beam: int) -> tuple[int, int, int, int]:
    """METEOR 1.5's exact-module search as the module docstring states it, in plain Python: at
    each reference position every path of the beam is extended by each free candidate and by a
    skip, every extension is built, and the next beam is the first ``beam`` of a stable sort
    on (more matches, fewer chunks, smaller distance). (matches, chunks, function matches on
    each side) of the best path."""
    cand = [[i for i in range(len(hyp)) if hyp[i] == r] for r in ref]
    count1 = [sum(h == r for r in ref) for h in hyp]
    fixed = [c[0] if len(c) == 1 and count1[c[0]] == 1 else -1 for c in cand]
    rank = lambda path: (-path[0], path[1], path[3])  # noqa: E731
    # (matches, chunks, end of the open chunk or -1, distance, used positions, hyp/ref function matches)
    paths = [(0, 0, -1, 0, frozenset(i for i in fixed if i >= 0), 0, 0)]
    for j, r_func in enumerate(ref_func):
        extended = []
        for m, c, last, d, used, hf, rf in sorted(paths, key=rank)[:beam]:
            if fixed[j] >= 0:
                i = fixed[j]
                extended.append((m + 1, c + (last != -1 and i != last), i + 1, d + abs(j - i), used, hf + hyp_func[i], rf + r_func))
                continue
            parent = d  # the distance of each match is credited to the path it branched from
            for i in cand[j]:
                if i not in used:
                    extended.append((m + 1, c + (last != -1 and i != last), i + 1, parent, used | {i}, hf + hyp_func[i], rf + r_func))
                    parent += abs(j - i)
            extended.append((m, c + (last != -1), -1, parent, used, hf, rf))
        paths = extended
    closed = [(m, c + (last != -1), last, d, used, hf, rf) for m, c, last, d, used, hf, rf in sorted(paths, key=rank)[:beam]]
    m, c, _, _, _, hf, rf = sorted(closed, key=rank)[0]
    return m, c, hf, rf


@settings(max_examples=300, deadline=None)
@given(
    hyp=st.lists(st.integers(0, 5), max_size=14),
    ref=st.lists(st.integers(0, 7), max_size=14),
    func=st.lists(st.booleans(), min_size=28, max_size=28),
    beam=st.integers(1, 4),
)
def test_the_alignment_search_equals_the_search_that_builds_every_extension(hyp, ref, func, beam):
    # small alphabets and beams: tokens repeat, many reference positions have no candidate, and
    # the beam cuts, so that which extensions are built and kept, and their order, decide the result
    from metaeval.metrics.meteor import _align

    hyp_func, ref_func = func[: len(hyp)], func[14 : 14 + len(ref)]
    got = _align(np.array(hyp, dtype=np.int64), np.array(ref, dtype=np.int64), np.array(hyp_func, dtype=np.bool_),
                 np.array(ref_func, dtype=np.bool_), beam)
    assert tuple(int(v) for v in got) == _every_extension_search(hyp, ref, [int(f) for f in hyp_func], [int(f) for f in ref_func], beam)
