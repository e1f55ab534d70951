"""TER: golden values of tercom 0.7.25 (``-s``), hand-computed cases, and property tests
against sacrebleu 2.6.0's TER where the two must agree."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics.lib_ter import translation_edit_rate

from metaeval.errors import UsageError
from metaeval.metrics import get_metric
from metaeval.metrics.ter import TER
from tests.golden_util import GOLDEN, GOLDEN_FOLDERS, load_golden_folder

needs_golden = pytest.mark.skipif(not GOLDEN.is_dir(), reason=f"golden folder {GOLDEN} does not exist")


def toks(text: str) -> list[str]:
    return text.split()


def ter_of(hyp: str, *refs: str, **options) -> tuple[np.ndarray, float]:
    """Statistics and score of one segment."""
    metric = TER(**options)
    stats = metric.stats([toks(hyp)], [[toks(r)] for r in refs])
    return stats[0], float(metric.score(stats[0]))


# Golden values -------------------------------------------------------------------------------
@needs_golden
def test_golden_tercom_rows_all_compared():
    metric = TER()
    compared = expected = 0
    for folder in GOLDEN_FOLDERS:
        refs, systems, golden = load_golden_folder(folder)
        rows = golden[golden.metric == "ter"]
        expected += len(rows)
        prepared = metric.prepare(refs)
        stats = {name: metric.segment_stats(hyps, prepared) for name, hyps in systems.items()}
        for row in rows.itertuples():
            sys_stats = stats[row.system]
            ours = sys_stats.sum(0) if row.seg_id == "" else sys_stats[int(row.seg_id) - 1]
            assert float(metric.score(ours)) == pytest.approx(row.score, abs=1e-9), (
                folder.name, row.system, row.seg_id)
            compared += 1
    assert expected > 0
    assert compared == expected  # 816 rows: 324 + 4 + 164 + 324


@needs_golden
def test_golden_edge_empty_hypothesis_statistics():
    # tercom's TERnullstr: empty hyp vs refs of 3 and 4 tokens -> edits min(3, 4) = 3, length 3.5
    refs, systems, _ = load_golden_folder(GOLDEN / "edge")
    stats = TER().segment_stats(systems["edge"], TER().prepare(refs))
    np.testing.assert_array_equal(stats[0], [3.0, 3.5])


# Hand-computed cases -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "hyp, ref, edits",
    [
        ("a b c", "a b c", 0),  # identical: 0 / 3
        ("a b c d", "a x c d", 1),  # b -> x: 1 substitution / 4
        # without shifts: insert d + delete d = 2; shifting d to the end costs 1, then 0 edits
        ("d a b c", "a b c d", 1),
        # "x y" moved as one block to the end: 1 shift, then an exact match -> 1 / 5
        ("x y a b c", "a b c x y", 1),
    ],
)
def test_hand_computed(hyp, ref, edits):
    stats, score = ter_of(hyp, ref)
    np.testing.assert_array_equal(stats, [edits, len(toks(ref))])
    assert score == pytest.approx(edits / len(toks(ref)))


def test_empty_hypothesis_costs_reference_length():
    # refs of 3 and 4 tokens: min edits 3, average length 3.5 -> 3 / 3.5
    stats, score = ter_of("", "the cat sat", "a cat sat down")
    np.testing.assert_array_equal(stats, [3.0, 3.5])
    assert score == pytest.approx(3 / 3.5)


def test_empty_reference_scores_one_and_both_empty_zero():
    # tercom: 2 insertions over length 0 -> score 1; nothing against nothing -> 0
    stats, score = ter_of("a b", "")
    np.testing.assert_array_equal(stats, [2.0, 0.0])
    assert score == 1.0
    stats, score = ter_of("", "")
    np.testing.assert_array_equal(stats, [0.0, 0.0])
    assert score == 0.0


def test_best_reference_and_average_length():
    # ref 1: 0 edits (3 tokens); ref 2: 2 deletions (5 tokens) -> 0 edits over (3 + 5) / 2 = 4
    stats, _ = ter_of("a b c", "a b c", "a b c d e")
    np.testing.assert_array_equal(stats, [0.0, 4.0])
    # order of references does not change the minimum
    stats, _ = ter_of("a b c", "a b c d e", "a b c")
    np.testing.assert_array_equal(stats, [0.0, 4.0])


def test_hypothesis_tokens_unseen_in_references():
    # "p q" never occur in the reference: 2 substitutions of 3 tokens
    stats, _ = ter_of("p a q", "x a y")
    np.testing.assert_array_equal(stats, [2.0, 3.0])


def test_corpus_is_ratio_of_summed_statistics():
    metric = TER()
    hyps = [toks("a b c d"), toks("a b c")]
    refs = [[toks("a x c d"), toks("a b c")]]
    stats = metric.stats(hyps, refs)
    np.testing.assert_array_equal(stats, [[1.0, 4.0], [0.0, 3.0]])
    # (1 + 0) / (4 + 3) = 1/7, not the mean of 0.25 and 0
    assert metric.corpus_score(hyps, refs) == pytest.approx(1 / 7)
    assert float(metric.score(stats.sum(0))) == pytest.approx(1 / 7)


def test_score_is_vectorised_over_leading_axes():
    stats = np.array([[[1.0, 4.0], [2.0, 0.0]], [[0.0, 0.0], [3.0, 6.0]]])
    np.testing.assert_allclose(TER().score(stats), [[0.25, 1.0], [0.0, 0.5]])
    np.testing.assert_allclose(TER(invert=True).score(stats), [[0.75, 0.0], [1.0, 0.5]])


def test_case_option():
    # "A" vs "a": one substitution of 2 when case is kept, none when lowercased
    assert ter_of("A b", "a b")[1] == 0.5
    assert ter_of("A b", "a b", case_sensitive=False)[1] == 0.0


def test_shared_reference_preparation_matches_each_system_alone():
    # two reference sets, three systems sharing one preparation, lowercasing with tokens that only
    # match once lowercased (the Greek final sigma lowercases the same inside and outside a list),
    # unseen tokens and an empty segment: each system's statistics equal those of the system
    # scored on its own, segment by segment (hand-checked edits below)
    metric = TER(case_sensitive=False)
    refs = [[toks("ΟΔΟΣ a b"), toks("x y"), []], [toks("οδος b a"), toks("Y X z"), toks("q")]]
    systems = [[toks("a b ΟΔΟΣ"), toks("X Y"), toks("q")], [toks("p p p"), [], []], [toks("οδος A B"), toks("y"), toks("Q r")]]
    shared = metric.prepare(refs)
    for hyps in systems:
        alone = np.vstack([metric.stats([h], [[ref[i]] for ref in refs]) for i, h in enumerate(hyps)])
        np.testing.assert_array_equal(metric.segment_stats(hyps, shared), alone)
    # "a b ΟΔΟΣ" vs "οδος b a": 2 substitutions; vs "ΟΔΟΣ a b": one shift
    np.testing.assert_array_equal(metric.segment_stats(systems[0], shared)[0], [1.0, 3.0])
    # "q" against an empty reference (1 edit) and against "q" (none); length (0 + 1) / 2
    np.testing.assert_array_equal(metric.segment_stats(systems[0], shared)[2], [0.0, 0.5])


def test_invert_direction_signature_and_registry():
    ter, one_minus = get_metric("ter"), get_metric("1-ter")
    assert ter == TER() and one_minus == TER(invert=True)
    assert ter.higher_is_better is False and one_minus.higher_is_better is True
    assert ter_of("a b c d", "a x c d", invert=True)[1] == 0.75
    assert ter.signature().startswith("ter|case:mixed|norm:no|")
    assert ter.signature().endswith("|version:0.1.0")
    assert one_minus.signature().startswith("1-ter|")
    assert get_metric("ter:case_sensitive=false").signature().startswith("ter|case:lc|")
    assert ter.stat_names == ("edits", "ref_len")


def test_invalid_options():
    with pytest.raises(ValueError, match="case_sensitive"):
        TER(case_sensitive="yes")
    with pytest.raises(UsageError):
        get_metric("ter:beam=3")


def test_mismatched_segment_counts():
    metric = TER()
    with pytest.raises(ValueError, match=r"\[1, 2\]"):
        metric.segment_stats([toks("a")], metric.prepare([[toks("a"), toks("b")]]))


# Property tests against sacrebleu ------------------------------------------------------------
# sacrebleu's TER is a near-exact reimplementation of tercom. With at most 10 tokens neither
# beam prunes anything; they then differ only in the greedy shift search when a token repeats
# (tie-breaking and candidate rules; e.g. hyp "c a b a c b" vs ref "b c c a a": tercom 3,
# sacrebleu 4). Sequences without repeated tokens are where they must agree.
distinct_tokens = st.lists(st.sampled_from("abcdefghijkl"), min_size=1, max_size=10, unique=True)


@settings(max_examples=300, deadline=None)
@given(hyp=distinct_tokens, ref=distinct_tokens)
def test_agrees_with_sacrebleu_without_repeated_tokens(hyp, ref):
    edits, length = translation_edit_rate(hyp, ref)
    stats = TER().stats([hyp], [[ref]])
    np.testing.assert_array_equal(stats[0], [edits, length])


@settings(max_examples=200, deadline=None)
@given(hyp=st.lists(st.sampled_from("abc"), max_size=12), ref=st.lists(st.sampled_from("abc"), max_size=12))
def test_identical_zero_and_bounds(hyp, ref):
    metric = TER()
    assert metric.stats([ref], [[ref]])[0, 0] == 0.0
    edits = metric.stats([hyp], [[ref]])[0, 0]
    # never more than the edit distance without shifts, never less than the length difference
    levenshtein = np.arange(len(ref) + 1, dtype=float)
    for i, h in enumerate(hyp, 1):
        prev, levenshtein = levenshtein, np.empty_like(levenshtein)
        levenshtein[0] = i
        for j, r in enumerate(ref, 1):
            levenshtein[j] = min(prev[j] + 1, levenshtein[j - 1] + 1, prev[j - 1] + (h != r))
    assert abs(len(hyp) - len(ref)) <= edits <= levenshtein[-1]


@settings(max_examples=100, deadline=None)
@given(
    pairs=st.lists(st.tuples(distinct_tokens, distinct_tokens), min_size=1, max_size=6),
    data=st.data(),
)
def test_segment_order_does_not_matter(pairs, data):
    hyps = [h for h, _ in pairs]
    refs = [[r for _, r in pairs]]
    order = data.draw(st.permutations(range(len(pairs))))
    stats = TER().stats(hyps, refs)
    shuffled = TER().stats([hyps[k] for k in order], [[refs[0][k] for k in order]])
    np.testing.assert_array_equal(shuffled, stats[list(order)])


# Kernel pieces -------------------------------------------------------------------------------
def _plain_levenshtein_columns(hyp, ref):
    """Columns ``D[j][i]`` of the unit-cost edit distance of ``hyp[:j]`` and ``ref[:i]`` (textbook DP)."""
    cols = [list(range(len(ref) + 1))]
    for j, h in enumerate(hyp, 1):
        prev, col = cols[-1], [j]
        for i, r in enumerate(ref, 1):
            col.append(min(prev[i] + 1, col[i - 1] + 1, prev[i - 1] + (h != r)))
        cols.append(col)
    return cols


@settings(max_examples=150, deadline=None)
@given(
    hyp=st.lists(st.integers(0, 3), min_size=1, max_size=40),
    ref=st.lists(st.integers(0, 3), min_size=1, max_size=150),
)
def test_bit_parallel_columns_equal_plain_edit_distance(hyp, ref):
    # references of up to 150 tokens span three 64-row blocks, so carries between blocks are exercised
    from metaeval.metrics import tercom

    h = np.array(hyp, dtype=np.int64)
    r = np.array(ref, dtype=np.int64)
    words = (len(r) + 63) // 64
    peq = np.zeros((4, words), dtype=np.uint64)
    for i, t in enumerate(ref):
        peq[t, i >> 6] |= np.uint64(1) << np.uint64(i & 63)
    pv = np.empty((len(h) + 1, words), dtype=np.uint64)
    mv = np.zeros((len(h) + 1, words), dtype=np.uint64)
    pv[0, :] = np.uint64(0xFFFFFFFFFFFFFFFF)
    tercom._bp_columns(h, peq, 0, pv, mv, words, False)
    expected = _plain_levenshtein_columns(hyp, ref)
    for j in range(len(h) + 1):
        bits = [(int(pv[j, k >> 6]) >> (k & 63) & 1) - (int(mv[j, k >> 6]) >> (k & 63) & 1) for k in range(len(r))]
        assert list(np.cumsum([j] + bits)) == expected[j]



@st.composite
def shifted_pairs(draw) -> tuple[list[int], list[int]]:  # noqa: ANN001
    """A reference of few token types and a hypothesis made from it by moving blocks and
    changing tokens: many candidate shifts, some of which lower the edits."""
    ref = draw(st.lists(st.integers(0, 5), min_size=30, max_size=150))
    hyp = list(ref)
    for _ in range(draw(st.integers(1, 4))):
        start = draw(st.integers(0, len(hyp) - 1))
        block = hyp[start : start + draw(st.integers(1, 6))]
        del hyp[start : start + len(block)]
        at = draw(st.integers(0, len(hyp)))
        hyp[at:at] = block
    for _ in range(draw(st.integers(0, 8))):
        hyp[draw(st.integers(0, len(hyp) - 1))] = draw(st.integers(0, 7))
    return hyp, ref


def _buffers(h: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, ...]:
    """Work buffers of :func:`tercom._pair_edits` for one pair, as :func:`tercom._batch_edits` sizes them."""
    cells = (len(h) + 2) * (len(r) + 2)
    return np.empty(cells, np.int64), np.empty(2 * cells, np.int64), np.empty(cells, np.int64), np.empty((256, 4), np.int64)


def _taken(record, k, end, delta, searched):  # noqa: ANN001, ANN202
    """``record`` (rec, rlo, rhi, state) after ``searched`` (out, olo, ohi, ostate) columns
    ``k..end`` were taken, as ``(rlo, rhi, state, values of each column over its rows)``."""
    from metaeval.metrics import tercom

    rec, rlo, rhi, state = (x.copy() for x in record)
    tercom._take_columns(k, end, delta, *searched, rec, rlo, rhi, state)
    return rlo, rhi, state, [rec[j, rlo[j]:rhi[j] + 1].tolist() for j in range(len(rlo))]


def _searched_both_ways(h: np.ndarray, r: np.ndarray) -> tuple[int, list[bool]]:
    """Total edits of the pair with every candidate searched twice, once as the kernel does and
    once with nothing to rejoin (the search then runs to its end), both checked to agree; and,
    for each candidate search, whether it rejoined."""
    from metaeval.metrics import tercom

    tercom.pair_edits([h], [r])  # numba's dispatchers now stand in the module (metaeval.lazyjit)
    compiled = tercom._search
    rejoined = []

    def both_ways(*args):  # noqa: ANN002, ANN202
        seq, k, check_from = args[0], args[2], args[5]
        if check_from > len(seq):  # the first alignment: nothing to rejoin
            return compiled(*args)
        record, searched, res = args[6:10], args[11:15], args[15]
        full_out = tuple(x.copy() for x in searched)
        full_res = res.copy()
        full = compiled(*args[:5], len(seq) + 1, *record, args[10], *full_out, full_res)
        assert all((x == tercom._UNSET).all() for x in args[3:5])  # col and nxt left unset
        quick = compiled(*args)
        assert quick == full and full_res[0] == -1
        rejoined.append(bool(res[0] >= 0))
        end = res[0] if res[0] >= 0 else len(seq)
        for got, want in zip(_taken(record, k, end, res[1], searched), _taken(record, k, len(seq), 0, full_out)):
            assert np.array_equal(got, want) if isinstance(got, np.ndarray) else got == want
        return quick

    tercom._search = both_ways
    try:
        return tercom._pair_edits.py_func(h, r, *_buffers(h, r), np.zeros(1, np.int64)), rejoined
    finally:
        tercom._search = compiled


@settings(max_examples=40, deadline=None)
@given(pair=shifted_pairs())
def test_a_candidate_search_that_rejoins_the_recorded_columns_scores_and_records_as_the_full_search(pair):
    """A candidate's search ends once a column after the shifted block ends as the recorded one
    plus a constant. Searched again with nothing to rejoin, every candidate gets the same cost
    and would leave the same record if its shift were taken (the columns searched, later ones
    plus the constant); the total edits are the kernel's."""
    from metaeval.metrics import tercom

    h, r = (np.array(x, dtype=np.int64) for x in pair)
    assert _searched_both_ways(h, r)[0] == tercom.pair_edits([h], [r])[0]


def test_candidate_searches_rejoin_and_run_to_the_end_alike_on_shifted_blocks():
    """The same check on seeded pairs with moved blocks, where some searches rejoin the recorded
    columns and some run to the hypothesis's end, so that both ways are exercised."""
    from metaeval.metrics import tercom

    rng = np.random.default_rng(11)
    outcomes = []
    for _ in range(12):
        ref = rng.integers(0, 8, 80)
        a = int(rng.integers(0, 70))
        hyp = np.r_[ref[:a], ref[a + 6:], ref[a:a + 6]]
        hyp[rng.random(len(hyp)) < 0.1] = 9
        got, rejoined = _searched_both_ways(hyp, ref)
        assert got == tercom.pair_edits([hyp], [ref])[0]
        outcomes += rejoined
    assert any(outcomes) and not all(outcomes)


def _beam_alignment(hyp: list[int], ref: list[int]) -> tuple[list[bool], list[bool], list[int]]:
    """tercom's beam edit distance with backpointers, written plainly (``MinEditDist`` and
    ``FindAlignErr``): each operation is written over a cell in tercom's order, a later one only
    when lower; returns hypothesis errors, reference errors and the alignment of each reference
    token."""
    inf, unset = 999999, 1 << 40
    hl, rl = len(hyp), len(ref)
    cost = [[unset] * (rl + 2) for _ in range(hl + 2)]
    path = [[0] * (rl + 1) for _ in range(hl + 1)]
    cost[0][0] = 0
    best, fg, lg = inf, 0, 0
    for j in range(hl + 1):
        thr = best + 20 if j < hl else unset - 1
        best, first, last = inf, -1, -1
        i = max(fg, 0)
        while i <= rl and i <= lg:
            s = cost[j][i]
            if s <= thr:
                first = i if first == -1 else first
                last = i + 1
                if j < hl and i < rl:
                    sub = int(ref[i] != hyp[j])
                    cost[j + 1][i + 1], path[j + 1][i + 1] = s + sub, "S" if sub else "M"
                    best = min(best, s + sub)
                if j < hl and cost[j + 1][i] > s + 1:
                    cost[j + 1][i], path[j + 1][i] = s + 1, "I"
                if i < rl and cost[j][i + 1] > s + 1:
                    cost[j][i + 1], path[j][i + 1] = s + 1, "D"
                    lg = max(lg, i + 1)
            i += 1
        fg, lg = first, last
    herr, rerr, ralign = [False] * hl, [False] * rl, [0] * rl
    i, j = rl, hl
    while i > 0 or j > 0:
        op = path[j][i]
        if op in "MS":
            herr[j - 1] = rerr[i - 1] = op == "S"
            ralign[i - 1] = j - 1
            i, j = i - 1, j - 1
        elif op == "I":
            herr[j - 1] = True
            j -= 1
        else:
            rerr[i - 1] = True
            ralign[i - 1] = j - 1
            i -= 1
    return herr, rerr, ralign


@settings(max_examples=40, deadline=None)
@given(pair=shifted_pairs())
def test_the_record_after_each_shift_is_the_new_hypothesis_searched_anew_and_gives_its_alignment(pair):
    """After a shift the taken candidate's searched columns become the record; nothing is
    searched again. At every round the record is checked against a search of the current
    hypothesis from its first column, and the alignment read from it against tercom's beam search
    with backpointers written plainly (:func:`_beam_alignment`)."""
    from metaeval.metrics import tercom

    hyp, ref = pair
    h, r = np.array(hyp, dtype=np.int64), np.array(ref, dtype=np.int64)
    expected = tercom.pair_edits([h], [r])[0]
    compiled = tercom._align_errors
    rounds = []

    def checked(seq, ref_ids, rec, rlo, rhi, state, herr, rerr, ralign):  # noqa: ANN001, ANN202
        hl, rl = len(seq), len(ref_ids)
        fresh = (np.empty_like(rec), np.empty_like(rlo), np.empty_like(rhi), np.empty_like(state))
        unset = np.full(rl + 2, tercom._UNSET, np.int64)
        tercom._search(seq, ref_ids, 0, unset, unset.copy(), hl + 1, *fresh, 0, *fresh, np.zeros(2, np.int64))
        assert np.array_equal(rlo, fresh[1]) and np.array_equal(rhi, fresh[2]) and np.array_equal(state, fresh[3])
        for j in range(hl + 1):
            assert np.array_equal(rec[j, rlo[j]:rhi[j] + 1], fresh[0][j, rlo[j]:rhi[j] + 1])
        compiled(seq, ref_ids, rec, rlo, rhi, state, herr, rerr, ralign)
        assert (herr.tolist(), rerr.tolist(), ralign.tolist()) == _beam_alignment(seq.tolist(), ref_ids.tolist())
        rounds.append(1)

    tercom._align_errors = checked
    try:
        got = tercom._pair_edits.py_func(h, r, *_buffers(h, r), np.zeros(1, np.int64))
    finally:
        tercom._align_errors = compiled
    assert got == expected and len(rounds) >= 1
