"""METEOR 1.5 with the exact module only (``-m exact``), on pre-tokenized text.

This reproduces METEOR 1.5 (Denkowski & Lavie 2014) run as ``-m exact -l other`` or
``-l en``, without ``-norm`` or ``-lower``, so tokens are compared case-sensitively as given:

- Alignment: every pair of identical tokens is a candidate match. A reference token with
  exactly one candidate, whose hypothesis token has no other candidate, is fixed. The rest
  is resolved by METEOR's left-to-right beam search over reference positions (beam 40),
  ranking partial alignments by more matches, then fewer chunks, then a smaller distance
  sum, with ties kept in insertion order (a stable sort). The distance bookkeeping follows
  the tool exactly: a candidate's distance is credited to the partial alignment it
  branched from, not to the new one.
- Statistics: lengths, function-word counts and function-word matches on both sides,
  matches and chunks. With ``δ`` weighting content against function words,
  ``P = (δ·content matches + (1−δ)·function matches) / (δ·content length +
  (1−δ)·function length)`` on the hypothesis side, and ``R`` likewise on the reference side.
- ``Fmean = PR / (αP + (1−α)R)``, ``frag = chunks / matches``, except that a hypothesis
  identical to the reference (all tokens matched in one chunk) has ``frag = 0``;
  ``score = max(0, Fmean·(1 − γ·frag^β))``, and 0 where undefined (no match, empty side).
- Several references: each is scored separately and the statistics of the first best one
  are kept. The system score is computed from the summed statistics, where an identical
  segment contributes no chunk (as METEOR's ``MeteorStats.addStats`` does).

Parameter sets: ``other`` (α .75, β 1.4, γ .70, δ .50, no function words) and ``en``
(α .85, β .20, γ .60, δ .75, with METEOR 1.5's English function-word list,
``resources/function/english.words``, which this project does not ship: pass its path as
``function_words`` or in ``$METAEVAL_METEOR_FUNCTION_WORDS``). A token is a function word
when its lowercased form is in the list.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain
from pathlib import Path
from typing import Any, ClassVar, Sequence

import numpy as np
from metaeval.lazyjit import njit

import metaeval
from metaeval.errors import UsageError
from metaeval.metrics.base import Metric, Refs, Tokens, first_best_reference, known_token_ids, segment_offsets

#: ``params`` name -> (alpha, beta, gamma, delta), METEOR 1.5's task parameters.
PARAMETERS: dict[str, tuple[float, float, float, float]] = {
    "other": (0.75, 1.40, 0.70, 0.50),
    "en": (0.85, 0.20, 0.60, 0.75),
}
#: Environment variable naming the English function-word list.
FUNCTION_WORDS_ENV = "METAEVAL_METEOR_FUNCTION_WORDS"
#: METEOR 1.5's default beam size.
BEAM_SIZE = 40
#: Token id for a hypothesis token that the reference does not contain.
_UNKNOWN = -1

STAT_NAMES = (
    "hyp_len",
    "ref_len",
    "hyp_func",
    "ref_func",
    "matches",
    "hyp_func_matches",
    "ref_func_matches",
    "chunks",
)


@njit(cache=True, nogil=True)
def _bit_length(x: int) -> int:
    n = 0
    while x > 0:
        n += 1
        x >>= 1
    return n


@njit(cache=True, nogil=True)
def _sorted_paths(
    matches: np.ndarray, chunks: np.ndarray, dist: np.ndarray, n: int, keys: np.ndarray, top: int, order: np.ndarray
) -> int:
    """The first ``top`` of paths ``0..n-1`` ordered by more matches, fewer chunks, smaller distance,
    then insertion order, written to ``order``; returns how many (``min(top, n)``).

    The four criteria are packed into one distinct integer per path when they fit in 62 bits,
    and the ``top`` smallest are selected by insertion; otherwise two stable sorts give the
    same order.
    """
    most_matches = 0
    most_chunks = 0
    most_dist = 0
    for q in range(n):
        most_matches = max(most_matches, matches[q])
        most_chunks = max(most_chunks, chunks[q])
        most_dist = max(most_dist, dist[q])
    bits_i = _bit_length(n)
    bits_d = _bit_length(most_dist)
    bits_c = _bit_length(most_chunks)
    if bits_i + bits_d + bits_c + _bit_length(most_matches) > 62:
        by_dist = np.argsort(dist[:n], kind="mergesort")
        primary = -matches[:n] * (1 << 32) + chunks[:n]
        ranked = by_dist[np.argsort(primary[by_dist], kind="mergesort")]
        top = min(top, n)
        order[:top] = ranked[:top]
        return top
    # the best ``top`` keys, kept sorted by insertion (paths arrive nearly in order)
    top = min(top, n)
    kept = 0
    for q in range(n):
        key = ((((most_matches - matches[q]) << bits_c | chunks[q]) << bits_d | dist[q]) << bits_i) | q
        if kept == top:
            if key > keys[kept - 1]:
                continue
            kept -= 1
        r = kept
        while r > 0 and keys[r - 1] > key:
            keys[r] = keys[r - 1]
            r -= 1
        keys[r] = key
        kept += 1
    mask = (1 << bits_i) - 1
    for q in range(top):
        order[q] = keys[q] & mask
    return top


@njit(cache=True, nogil=True)
def _candidates(hyp: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hypothesis positions holding each reference position's token, ascending, in CSR layout
    (``cand[start[j]:start[j + 1]]``), and each hypothesis position's number of such reference
    positions. Positions are grouped by token with a stable sort, so that each reference
    position finds its run by binary search instead of scanning the hypothesis."""
    n1 = hyp.shape[0]
    n2 = ref.shape[0]
    by_token = np.argsort(hyp, kind="mergesort")
    tokens = hyp[by_token]
    first = np.empty(n2, dtype=np.int64)
    start = np.zeros(n2 + 1, dtype=np.int64)
    count1 = np.zeros(n1, dtype=np.int64)
    for j in range(n2):
        lo = np.searchsorted(tokens, ref[j], side="left")
        hi = np.searchsorted(tokens, ref[j], side="right")
        first[j] = lo
        start[j + 1] = start[j] + hi - lo
        for k in range(lo, hi):
            count1[by_token[k]] += 1
    cand = np.empty(start[n2], dtype=np.int64)
    for j in range(n2):
        for k in range(start[j + 1] - start[j]):
            cand[start[j] + k] = by_token[first[j] + k]
    return cand, start, count1


@njit(cache=True, nogil=True)
def _align(hyp: np.ndarray, ref: np.ndarray, hyp_func: np.ndarray, ref_func: np.ndarray, beam: int) -> np.ndarray:
    """METEOR 1.5 exact alignment of ``hyp`` (line 1) to ``ref`` (line 2).

    Returns ``(matches, chunks, hyp_func_matches, ref_func_matches)``.

    At each reference position every path in the beam is extended by each free candidate and
    by a skip, as METEOR does; the extensions' ranking keys are computed first and only the
    ``beam`` best extensions are built (their used-position sets copied), already in rank
    order: METEOR builds them all and keeps the same ``beam`` at the next position. An
    extension records only what ranks it (its parent, the hypothesis position it uses, its
    matches, chunks and distance): where its chunk ends and its function-word matches follow
    from its parent and that position, and are worked out for the kept ones. A position
    without candidates while no path has an open chunk is passed over: there each path's only
    extension, the skip, equals the path, and the beam keeps its order.
    """
    n1 = hyp.shape[0]
    n2 = ref.shape[0]
    cand, start, count1 = _candidates(hyp, ref)
    # One-to-one matches are fixed before the search.
    fixed = np.full(n2, -1, dtype=np.int64)
    words = (n1 + 63) // 64 + 1
    max_cand = 0
    for j in range(n2):
        count = start[j + 1] - start[j]
        max_cand = max(max_cand, count)
        if count == 1 and count1[cand[start[j]]] == 1:
            fixed[j] = cand[start[j]]
    # the paths in the beam, in rank order (two buffers: this position's and the next)
    used = np.zeros((2, beam, words), dtype=np.uint64)
    n_match = np.zeros((2, beam), dtype=np.int64)
    n_chunk = np.zeros((2, beam), dtype=np.int64)
    last_end = np.full((2, beam), -1, dtype=np.int64)
    dist = np.zeros((2, beam), dtype=np.int64)
    hfm = np.zeros((2, beam), dtype=np.int64)
    rfm = np.zeros((2, beam), dtype=np.int64)
    # the extensions of one position, in METEOR's order of creation; a position used is -1 for
    # a skip, and for the fixed match of a position that has one
    cap = beam * (max_cand + 1) + 1
    e_parent = np.empty(cap, dtype=np.int64)
    e_pos = np.empty(cap, dtype=np.int64)
    e_match = np.empty(cap, dtype=np.int64)
    e_chunk = np.empty(cap, dtype=np.int64)
    e_dist = np.empty(cap, dtype=np.int64)
    keys = np.empty(cap, dtype=np.int64)
    order = np.empty(beam, dtype=np.int64)
    for j in range(n2):
        i = fixed[j]
        if i >= 0:
            used[0, 0, i >> 6] |= np.uint64(1) << np.uint64(i & 63)
    cur = 0
    n_paths = 1
    closed = True  # every path in the beam has its chunk closed (``last_end`` -1)
    for current in range(n2):
        if closed and start[current] == start[current + 1]:
            # no candidate here and no open chunk: each path's skip equals it, in the same order
            continue
        n_ext = 0
        i_fixed = fixed[current]
        r_func = 1 if ref_func[current] else 0
        for p in range(n_paths):
            if i_fixed >= 0:
                # Reference position already taken by a fixed match: extend along it.
                e_parent[n_ext] = p
                e_pos[n_ext] = -1
                e_match[n_ext] = n_match[cur, p] + 1
                chunk_break = last_end[cur, p] != -1 and i_fixed != last_end[cur, p]
                e_chunk[n_ext] = n_chunk[cur, p] + (1 if chunk_break else 0)
                e_dist[n_ext] = dist[cur, p] + abs(current - i_fixed)
                n_ext += 1
                continue
            parent_dist = dist[cur, p]
            for c in range(start[current], start[current + 1]):
                i = cand[c]
                if used[cur, p, i >> 6] & (np.uint64(1) << np.uint64(i & 63)):
                    continue
                e_parent[n_ext] = p
                e_pos[n_ext] = i
                e_match[n_ext] = n_match[cur, p] + 1
                chunk_break = last_end[cur, p] != -1 and i != last_end[cur, p]
                e_chunk[n_ext] = n_chunk[cur, p] + (1 if chunk_break else 0)
                # METEOR credits the distance to the path it branched from, not to this one
                e_dist[n_ext] = parent_dist
                n_ext += 1
                parent_dist += abs(current - i)
            # Skip this reference position.
            e_parent[n_ext] = p
            e_pos[n_ext] = -1
            e_match[n_ext] = n_match[cur, p]
            e_chunk[n_ext] = n_chunk[cur, p] + (1 if last_end[cur, p] != -1 else 0)
            e_dist[n_ext] = parent_dist
            n_ext += 1
        kept = _sorted_paths(e_match, e_chunk, e_dist, n_ext, keys, beam, order)
        nxt = 1 - cur
        closed = True
        for q in range(kept):
            e = order[q]
            p = e_parent[e]
            for w in range(words):
                used[nxt, q, w] = used[cur, p, w]
            i = e_pos[e]
            if i >= 0:
                used[nxt, q, i >> 6] |= np.uint64(1) << np.uint64(i & 63)
            else:
                i = i_fixed
            n_match[nxt, q] = e_match[e]
            n_chunk[nxt, q] = e_chunk[e]
            if i >= 0:
                last_end[nxt, q] = i + 1
                hfm[nxt, q] = hfm[cur, p] + (1 if hyp_func[i] else 0)
                rfm[nxt, q] = rfm[cur, p] + r_func
                closed = False
            else:
                last_end[nxt, q] = -1
                hfm[nxt, q] = hfm[cur, p]
                rfm[nxt, q] = rfm[cur, p]
            dist[nxt, q] = e_dist[e]
        cur = nxt
        n_paths = kept
    # Close the open chunk of the paths within the beam (all of them, in rank order), then
    # take the best.
    for p in range(n_paths):
        if last_end[cur, p] != -1:
            n_chunk[cur, p] += 1
    _sorted_paths(n_match[cur], n_chunk[cur], dist[cur], n_paths, keys, 1, order)
    best = order[0]
    out = np.empty(4, dtype=np.int64)
    out[0] = n_match[cur, best]
    out[1] = n_chunk[cur, best]
    out[2] = hfm[cur, best]
    out[3] = rfm[cur, best]
    return out


@njit(cache=True, nogil=True)
def _align_all(hyp_ids, hyp_off, hyp_func, ref_ids, ref_off, ref_func, beam: int) -> np.ndarray:
    """:func:`_align` of segment ``s``: ``hyp_ids[hyp_off[s]:hyp_off[s + 1]]`` against the matching reference slice."""
    n = hyp_off.shape[0] - 1
    out = np.empty((n, 4), dtype=np.int64)
    for s in range(n):
        h0, h1 = hyp_off[s], hyp_off[s + 1]
        r0, r1 = ref_off[s], ref_off[s + 1]
        out[s] = _align(hyp_ids[h0:h1], ref_ids[r0:r1], hyp_func[h0:h1], ref_func[r0:r1], beam)
    return out


def _counts(flags: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Number of true flags in each ``flags[offsets[s]:offsets[s + 1]]``."""
    total = np.zeros(len(flags) + 1, dtype=np.int64)
    np.cumsum(flags, out=total[1:])
    return total[offsets[1:]] - total[offsets[:-1]]


def meteor_score(stats: np.ndarray, alpha: float, beta: float, gamma: float, delta: float) -> np.ndarray:
    """METEOR 1.5's score from statistics (columns as :data:`STAT_NAMES`), over leading axes."""
    stats = np.asarray(stats, dtype=np.float64)
    hyp_len, ref_len, hyp_func, ref_func, matches, hyp_fm, ref_fm, chunks = np.moveaxis(stats, -1, 0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        p = (delta * (matches - hyp_fm) + (1 - delta) * hyp_fm) / (delta * (hyp_len - hyp_func) + (1 - delta) * hyp_func)
        r = (delta * (matches - ref_fm) + (1 - delta) * ref_fm) / (delta * (ref_len - ref_func) + (1 - delta) * ref_func)
        fmean = 1.0 / ((1 - alpha) / p + alpha / r)
        identical = (matches == hyp_len) & (matches == ref_len) & (chunks == 1)
        frag = np.where(identical, 0.0, chunks / matches)
        score = fmean * (1.0 - gamma * frag**beta)
    return np.where(np.isnan(score), 0.0, np.maximum(score, 0.0))


@lru_cache(maxsize=8)
def _read_function_words(path: str) -> tuple[frozenset[str], str]:
    """The word list (one entry per line, as METEOR reads it) and its identity for signatures."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(f"meteor: cannot read the function-word list {path!r}: {exc.strerror}") from None
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        raise UsageError(f"meteor: the function-word list {path!r} is not UTF-8") from None
    digest = hashlib.sha1(data).hexdigest()[:8]
    return frozenset(lines), f"{Path(path).name}({len(lines)},sha1:{digest})"


@dataclass(frozen=True)
class MeteorReferences:
    """References prepared once: a shared vocabulary and, per reference set, the token ids and
    function-word flags of all its segments concatenated, with segment offsets."""

    vocab: dict[str, int]
    n_segments: int
    ids: list[np.ndarray]
    func: list[np.ndarray]
    offsets: list[np.ndarray]


@dataclass(frozen=True)
class METEOR(Metric):
    """METEOR 1.5, exact module (``meteor:params=other`` or ``meteor:params=en,function_words=PATH``)."""

    params: str = "other"
    function_words: str = ""
    beam: int = field(default=BEAM_SIZE, repr=False)

    name: ClassVar[str] = "meteor"
    compiled_kernels: ClassVar[bool] = True
    split_systems: ClassVar[bool] = True  # the alignment search dwarfs indexing the references
    higher_is_better: ClassVar[bool] = True

    def __post_init__(self) -> None:
        if self.params not in PARAMETERS:
            raise ValueError(f"meteor: params must be one of {', '.join(PARAMETERS)}, got {self.params!r}")
        if isinstance(self.beam, bool) or not isinstance(self.beam, int) or self.beam < 1:
            raise ValueError(f"meteor: beam must be a positive integer, got {self.beam!r}")
        if self.params == "other":
            if self.function_words:
                raise ValueError("meteor: function_words applies only to params=en")
            return
        path = self.function_words or os.environ.get(FUNCTION_WORDS_ENV, "")
        if not path:
            raise UsageError(
                "meteor: params=en needs METEOR 1.5's English function-word list "
                "(resources/function/english.words in the METEOR 1.5 distribution); "
                f"pass function_words=PATH or set ${FUNCTION_WORDS_ENV}"
            )
        object.__setattr__(self, "function_words", path)
        _read_function_words(path)

    @property
    def stat_names(self) -> tuple[str, ...]:
        return STAT_NAMES

    def _words(self) -> frozenset[str]:
        return _read_function_words(self.function_words)[0] if self.function_words else frozenset()

    def reuse_key(self) -> str | None:
        """Alignments depend on that segment's tokens only."""
        return "tokens"

    def signature(self) -> str:
        words = _read_function_words(self.function_words)[1] if self.function_words else "none"
        beam = f"|beam:{self.beam}" if self.beam != BEAM_SIZE else ""
        return f"meteor|params:{self.params}|mod:exact|case:mixed|fw:{words}{beam}|version:{metaeval.__version__}"

    def prepare(self, refs: Refs) -> MeteorReferences:
        vocab: dict[str, int] = {}
        words = self._words()
        offsets = [segment_offsets(ref) for ref in refs]
        ids = [_flat_ids(ref, vocab, off, grow=True) for ref, off in zip(refs, offsets)]
        func = [_flat_flags(ref, words, off) for ref, off in zip(refs, offsets)]
        return MeteorReferences(vocab, len(refs[0]) if refs else 0, ids, func, offsets)

    def segment_stats(self, hyps: Sequence[Tokens], prepared: Any) -> np.ndarray:
        refs: MeteorReferences = prepared
        n_seg = refs.n_segments
        if len(hyps) != n_seg:
            raise ValueError(f"meteor: {len(hyps)} hypotheses for {n_seg} reference segments")
        words = self._words()
        n_refs = len(refs.ids)
        per_ref = np.zeros((n_refs, len(hyps), len(STAT_NAMES)), dtype=np.float64)
        hyp_off = segment_offsets(hyps)
        hyp_ids = _flat_ids(hyps, refs.vocab, hyp_off, grow=False)
        hyp_func = _flat_flags(hyps, words, hyp_off)
        hyp_len = np.diff(hyp_off)
        for r in range(n_refs):
            ref_ids, ref_off, ref_func = refs.ids[r], refs.offsets[r], refs.func[r]
            ref_len = np.diff(ref_off)
            aligned = _align_all(hyp_ids, hyp_off, hyp_func, ref_ids, ref_off, ref_func, self.beam)
            matches, chunks = aligned[:, 0], aligned[:, 1].copy()
            # an identical segment adds no chunk to the system sums
            chunks[(matches == hyp_len) & (matches == ref_len) & (chunks == 1)] = 0
            per_ref[r, :, 0] = hyp_len
            per_ref[r, :, 1] = ref_len
            per_ref[r, :, 2] = _counts(hyp_func, hyp_off)
            per_ref[r, :, 3] = _counts(ref_func, ref_off)
            per_ref[r, :, 4] = matches
            per_ref[r, :, 5] = aligned[:, 2]
            per_ref[r, :, 6] = aligned[:, 3]
            per_ref[r, :, 7] = chunks
        return self.combine_references(list(per_ref))

    def combine_references(self, per_reference: Sequence[np.ndarray]) -> np.ndarray:
        """The statistics of the first reference with the best score, as METEOR keeps it
        (strictly greater replaces)."""
        return first_best_reference(per_reference, self.score)

    def score(self, stats: np.ndarray) -> np.ndarray:
        return meteor_score(stats, *PARAMETERS[self.params])


def _flat_ids(segments: Sequence[Tokens], vocab: dict[str, int], offsets: np.ndarray, grow: bool) -> np.ndarray:
    """The ids of all tokens of ``segments`` in order (:data:`_UNKNOWN` for a token not in
    ``vocab``; with ``grow``, a new token is given the next id)."""
    if grow:
        return np.fromiter((vocab.setdefault(t, len(vocab)) for t in chain.from_iterable(segments)), dtype=np.int64,
                           count=int(offsets[-1]))  # fmt: skip
    return known_token_ids(segments, vocab, _UNKNOWN, int(offsets[-1]))


def _flat_flags(segments: Sequence[Tokens], words: frozenset[str], offsets: np.ndarray) -> np.ndarray:
    """Whether each token of ``segments``, lowercased, is a function word (none without a list)."""
    if not words:
        return np.zeros(int(offsets[-1]), dtype=np.bool_)
    tokens = chain.from_iterable(segments)
    return np.fromiter((t.lower() in words for t in tokens), dtype=np.bool_, count=int(offsets[-1]))
