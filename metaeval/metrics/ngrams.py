"""Vectorised n-gram statistics over integer token ids, every order 1..N in one pass.

Tokens are mapped to integer ids once (the vocabulary of the references). An n-gram of
order n is given a dense code by packing ``(code of its (n-1)-gram prefix, id of its last
token)`` into one int64 and ranking the packed keys with ``numpy.unique``. Codes are
exact: a packed key is ``prefix * V + last`` with ``0 <= last < V``, and the product is
checked against the int64 range before packing, so two different n-grams never share a
code. Hypothesis n-grams are looked up in a hash table of the reference keys (built once per
index and order); one that does not occur in any reference gets no code, and neither does
any of its extensions. A compiled kernel then counts each segment's codes and clips them
against that segment's reference maxima, in code order.

Clipped matches follow Papineni et al. (2002) and mteval-v13a:
``m_n = sum_g min(c_hyp(g), max_r c_r(g))`` per segment, and ``T_n = max(len - n + 1, 0)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Sequence

import numpy as np
from metaeval.lazyjit import njit

from metaeval.errors import DataError
from metaeval.metrics.base import Refs, Tokens, known_token_ids

_INT64_MAX = np.iinfo(np.int64).max


@dataclass(frozen=True)
class _Flat:
    """Segments concatenated into one id array (``-1`` for tokens not in the vocabulary)."""

    ids: np.ndarray  # (P,) token ids
    seg: np.ndarray  # (P,) segment index of every position
    room: np.ndarray  # (P,) tokens left in the segment from this position on (>= 1)
    lengths: np.ndarray  # (n_seg,) segment lengths


@dataclass(frozen=True)
class NgramIndex:
    """Reference-side n-gram statistics for orders ``1..order``, computed once per reference set.

    Per order ``n`` (index ``n - 1`` of each tuple):

    - ``keys[n-1]``: sorted packed keys ``prefix_code * vocab_size + last_id`` of every
      n-gram seen in any reference; the position in this array is the n-gram's code.
    - ``seg_keys[n-1]``, ``seg_max[n-1]``: sorted ``segment * n_codes + code`` and
      ``max_r c_r(g)`` for every n-gram of every segment's references.
    - ``corpus_counts[n-1]``: occurrences of each code summed over all references and segments.
    """

    order: int
    vocab: dict[str, int]
    ref_lens: np.ndarray  # (n_refs, n_seg) int64
    keys: tuple[np.ndarray, ...]
    seg_keys: tuple[np.ndarray, ...]
    seg_max: tuple[np.ndarray, ...]
    corpus_counts: tuple[np.ndarray, ...]

    @property
    def n_segments(self) -> int:
        return int(self.ref_lens.shape[1])

    @property
    def vocab_size(self) -> int:
        return max(len(self.vocab), 1)

    @cached_property
    def _tables(self) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...]:
        """Per order: the hash table of ``keys`` (slot keys, slot codes) and, per segment, where
        its entries start in ``seg_keys`` (``n_seg + 1`` bounds)."""
        out = []
        for keys, seg_keys in zip(self.keys, self.seg_keys):
            slot_keys, slot_codes = _hash_table(keys)
            n_codes = max(len(keys), 1)
            bounds = np.searchsorted(seg_keys, np.arange(self.n_segments + 1, dtype=np.int64) * n_codes)
            out.append((slot_keys, slot_codes, bounds.astype(np.int64)))
        return tuple(out)

    def prefix_codes(self, n: int) -> np.ndarray:
        """Code of the (n-1)-gram prefix of every order-n code (all zeros for n = 1)."""
        return self.keys[n - 1] // self.vocab_size


def _flatten(segments: Sequence[Tokens], vocab: dict[str, int]) -> _Flat:
    lengths = np.fromiter((len(s) for s in segments), dtype=np.int64, count=len(segments))
    total = int(lengths.sum())
    ids = known_token_ids(segments, vocab, -1, total)
    seg = np.repeat(np.arange(len(segments), dtype=np.int64), lengths)
    starts = np.cumsum(lengths) - lengths
    room = lengths[seg] - (np.arange(total, dtype=np.int64) - starts[seg])
    return _Flat(ids, seg, room, lengths)


def _check_packing(a: int, b: int, what: str) -> None:
    if a * b > _INT64_MAX:
        raise DataError(f"too many distinct n-grams to pack {what} into int64 ({a} x {b}); split the corpus")


def index_references(refs: Refs, order: int) -> NgramIndex:
    """Count the n-grams of orders ``1..order`` of ``refs`` (``[n_refs][n_segments]`` token lists)."""
    if order < 1:
        raise ValueError(f"n-gram order must be >= 1, got {order}")
    if not refs:
        raise ValueError("at least one reference is required")
    n_refs, n_seg = len(refs), len(refs[0])
    vocab: dict[str, int] = {}
    for ref in refs:
        for segment in ref:
            for tok in segment:
                vocab.setdefault(tok, len(vocab))
    flats = [_flatten(ref, vocab) for ref in refs]
    ids = np.concatenate([f.ids for f in flats])
    seg = np.concatenate([f.seg for f in flats])
    room = np.concatenate([f.room for f in flats])
    ref_of = np.repeat(np.arange(n_refs, dtype=np.int64), [len(f.ids) for f in flats])
    ref_lens = np.stack([f.lengths for f in flats]) if flats else np.zeros((0, n_seg), np.int64)
    v = max(len(vocab), 1)

    keys, seg_keys, seg_max, corpus_counts = [], [], [], []
    prev = np.zeros(len(ids), dtype=np.int64)
    for n in range(1, order + 1):
        at = np.flatnonzero(room >= n)
        _check_packing(int(prev.max(initial=0)) + 1, v, f"{n}-grams")
        packed = prev[at] * v + ids[at + n - 1]
        ukeys, code_at = np.unique(packed, return_inverse=True)
        code_at = code_at.reshape(-1)
        n_codes = max(len(ukeys), 1)
        _check_packing(n_refs * n_seg, n_codes, f"segment {n}-grams")
        # counts per (reference, segment, n-gram), then the maximum over references
        rsc, cnt = np.unique((ref_of[at] * n_seg + seg[at]) * n_codes + code_at, return_counts=True)
        sc = rsc % (n_seg * n_codes)
        by_sc = np.argsort(sc, kind="stable")
        sc, cnt = sc[by_sc], cnt[by_sc]
        first = np.flatnonzero(np.r_[True, sc[1:] != sc[:-1]]) if len(sc) else np.zeros(0, np.int64)
        keys.append(ukeys)
        seg_keys.append(sc[first])
        seg_max.append(np.maximum.reduceat(cnt, first) if len(sc) else np.zeros(0, np.int64))
        corpus_counts.append(np.bincount(code_at, minlength=len(ukeys)))
        prev = np.full(len(ids), -1, dtype=np.int64)
        prev[at] = code_at
    return NgramIndex(order, vocab, ref_lens, tuple(keys), tuple(seg_keys), tuple(seg_max), tuple(corpus_counts))


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def _hash_table(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Open addressing (linear probing, Fibonacci hashing) of the distinct keys ``>= 0``:
    ``slot_keys`` (-1 where empty) and ``slot_codes`` (the key's position in ``keys``)."""
    bits = 1
    while (1 << bits) < 2 * len(keys) + 1:
        bits += 1
    size = 1 << bits
    slot_keys = np.full(size, -1, dtype=np.int64)
    slot_codes = np.zeros(size, dtype=np.int64)
    shift = np.uint64(64 - bits)
    mask = size - 1
    for code in range(len(keys)):
        key = keys[code]
        slot = np.int64((np.uint64(key) * _GOLDEN) >> shift)
        while slot_keys[slot] != -1:
            slot = (slot + 1) & mask
        slot_keys[slot] = key
        slot_codes[slot] = code
    return slot_keys, slot_codes


@njit(cache=True)
def _codes(slot_keys: np.ndarray, slot_codes: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """The code of every query in the table, -1 for a key not in it."""
    size = len(slot_keys)
    bits = 0
    while (1 << bits) < size:
        bits += 1
    shift = np.uint64(64 - bits)
    mask = size - 1
    out = np.full(len(queries), -1, dtype=np.int64)
    for i in range(len(queries)):
        key = queries[i]
        slot = np.int64((np.uint64(key) * _GOLDEN) >> shift)
        while True:
            found = slot_keys[slot]
            if found == key:
                out[i] = slot_codes[slot]
                break
            if found == -1:
                break
            slot = (slot + 1) & mask
    return out


@njit(cache=True)
def _clip_segments(seg: np.ndarray, code: np.ndarray, n_codes: int, seg_keys: np.ndarray, seg_max: np.ndarray,
                   bounds: np.ndarray, weights: np.ndarray, weighted: bool, n_seg: int) -> np.ndarray:
    """Per segment, ``sum_g w(g) * min(c_hyp(g), max_r c_r(g))`` over its codes in ascending
    order, from 0.0 (the order ``numpy.bincount`` over sorted ``segment * n_codes + code`` keys
    adds them). ``seg`` is non-decreasing; ``code`` holds the hypothesis codes at those positions."""
    out = np.zeros(n_seg)
    i, n = 0, len(seg)
    while i < n:
        s = seg[i]
        j = i
        while j < n and seg[j] == s:
            j += 1
        mine = np.sort(code[i:j])
        lo, hi = bounds[s], bounds[s + 1]
        base = s * n_codes
        total = 0.0
        k = 0
        while k < len(mine):
            c = mine[k]
            run = k
            while k < len(mine) and mine[k] == c:
                k += 1
            target = base + c
            while lo < hi and seg_keys[lo] < target:
                lo += 1
            if lo < hi and seg_keys[lo] == target:
                clipped = float(min(k - run, seg_max[lo]))
                if weighted:
                    clipped = clipped * weights[c]
                total += clipped
        out[s] = total
        i = j
    return out


def hypothesis_lengths(hyps: Sequence[Tokens]) -> np.ndarray:
    """Token counts of the hypotheses, int64 ``(n_seg,)``."""
    return np.fromiter((len(h) for h in hyps), dtype=np.int64, count=len(hyps))


def ngram_totals(lengths: np.ndarray, order: int) -> np.ndarray:
    """``T_n = max(len - n + 1, 0)`` for n = 1..order, shape ``(n_seg, order)``."""
    n = np.arange(1, order + 1, dtype=np.int64)
    return np.maximum(np.asarray(lengths, dtype=np.int64)[:, None] - n + 1, 0)


def clipped_matches(
    hyps: Sequence[Tokens],
    index: NgramIndex,
    order: int | None = None,
    weights: Sequence[np.ndarray] | None = None,
) -> np.ndarray:
    """Clipped matches ``m_n = sum_g w(g) * min(c_hyp(g), max_r c_r(g))`` per segment.

    Returns float64 ``(n_seg, order)``. ``weights[n-1]`` gives a weight per order-n code of
    ``index`` (NIST information); without weights every n-gram counts 1 (BLEU).
    """
    order = index.order if order is None else order
    if not 1 <= order <= index.order:
        raise ValueError(f"order must be in 1..{index.order} (the order of the reference index), got {order}")
    n_seg = len(hyps)
    if n_seg != index.n_segments:
        raise ValueError(f"hyps and refs must have the same number of segments, got {[n_seg, index.n_segments]}")
    flat = _flatten(hyps, index.vocab)
    v = index.vocab_size
    tables = index._tables
    out = np.zeros((n_seg, order), dtype=np.float64)
    no_weights = np.zeros(0, dtype=np.float64)
    # positions whose n-gram of the current order occurs in some reference, and its code
    at = np.flatnonzero(flat.ids >= 0)
    prev = np.zeros(len(at), dtype=np.int64)
    for n in range(1, order + 1):
        keep = flat.room[at] >= n
        at, prev = at[keep], prev[keep]
        last = flat.ids[at + n - 1]
        keep = last >= 0
        at, prev, last = at[keep], prev[keep], last[keep]
        slot_keys, slot_codes, bounds = tables[n - 1]
        code = _codes(slot_keys, slot_codes, prev * v + last)
        found = code >= 0
        at, code = at[found], code[found]
        if len(at) == 0:
            break
        w = no_weights if weights is None else np.ascontiguousarray(weights[n - 1], dtype=np.float64)
        out[:, n - 1] = _clip_segments(flat.seg[at], code, len(index.keys[n - 1]), index.seg_keys[n - 1],
                                       index.seg_max[n - 1], bounds, w, weights is not None, n_seg)
        prev = code
    return out


def closest_ref_length(hyp_lens: np.ndarray, ref_lens: np.ndarray) -> np.ndarray:
    """Per segment, the reference length closest to the hypothesis length; on a tie the shorter.

    ``hyp_lens`` ``(n_seg,)``, ``ref_lens`` ``(n_refs, n_seg)`` (mteval-v13a, sacrebleu).
    """
    diff = np.abs(ref_lens - hyp_lens[None, :])
    best = diff.min(axis=0)
    return np.where(diff == best[None, :], ref_lens, np.iinfo(np.int64).max).min(axis=0)


def check_order(metric: str, n: object) -> int:
    """``n`` as an int, or ``ValueError`` unless it is an integer >= 1."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"{metric}: n must be an integer >= 1, got n={n!r}")
    return int(n)


def length_match_stats(lengths: np.ndarray, ref_len: np.ndarray, matches: np.ndarray) -> np.ndarray:
    """The layout shared by BLEU and NIST: ``[hyp_len, ref_len, m_1..m_N, T_1..T_N]``, float64."""
    totals = ngram_totals(lengths, matches.shape[1])
    return np.column_stack([lengths, ref_len, matches, totals]).astype(np.float64)


def split_length_match_stats(metric: str, stats: np.ndarray, n: int) -> tuple[np.ndarray, ...]:
    """``(hyp_len, ref_len, m, T)`` views of :func:`length_match_stats` statistics of order ``n``."""
    stats = np.asarray(stats, dtype=np.float64)
    if stats.shape[-1] != 2 + 2 * n:
        raise ValueError(f"{metric}: expected {2 + 2 * n} statistics for n={n}, got {stats.shape[-1]}")
    return stats[..., 0], stats[..., 1], stats[..., 2 : 2 + n], stats[..., 2 + n :]
