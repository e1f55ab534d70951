"""Translation edit rate exactly as tercom 0.7.25 (Snover et al. 2006) computes it.

This module reproduces the numbers of tercom 0.7.25 run with ``-s`` (case kept), no
normalisation and no punctuation removal, on token sequences that are already segmented.
Its default parameters are fixed here: beam width 20, maximum shift distance 50, shift
blocks of at most 10 tokens, unit costs for insertion, deletion, substitution and shift.

For one hypothesis and one reference:

1. **Edit distance with tercom's beam.** Columns are hypothesis positions, rows reference
   positions. A cell is expanded (match/substitution, insertion, deletion) only when its cost
   is at most the best match/substitution cost that reached the column, plus the beam width;
   rows past the last expanded row (extended by deletions) are not visited. Ties keep the
   first operation written, in tercom's order. The backtrace gives the alignment.
2. **Candidate shifts** (tercom's ``GatherAllPossShifts``): a block ``hyp[start..end]`` of
   1..10 tokens that occurs in the reference at ``moveto`` and contains a hypothesis error,
   whose reference occurrence contains a reference error, and which lies within 50 positions;
   each offset ``roff`` in ``-1..len-1`` proposes the destination ``ralign[moveto + roff]``
   (the hypothesis position aligned to that reference position) under tercom's rules.
3. **Greedy search** (tercom's ``CalcBestShift``): blocks are tried longest first, in the
   order gathered; a shift is taken when it lowers edits + shift cost below the best so far,
   or, before any shift was taken, when it only breaks even. The search stops early as
   tercom does (``curfix``/``maxfix``). The best shift is applied and the search repeats
   until no shift is taken.

With several references, the edits are those of the first reference with the fewest edits,
and the length is the average reference length. An empty hypothesis costs the reference
length; an empty reference costs the hypothesis length with length 0 (tercom's
``TERnullstr``).

Speed, with the same results: every candidate shift is scored by a compiled (numba) kernel
that (a) restarts the beam search at the first column the shift changes, from the stored
columns of the current alignment, (b) skips candidates already scored in the same round
(same block and destination give the same result), and (c) abandons a candidate as soon as
its cost so far plus the exact (unbeamed) edit distance of the unchanged remainder exceeds
what it would need to be taken. The beam can only raise a cost, so (c) never drops a shift
tercom would take.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from numba import njit

#: The tool and version whose results this module reproduces.
TOOL = "tercom"
TOOL_VERSION = "0.7.25"
BEAM_WIDTH = 20
MAX_SHIFT_SIZE = 10
MAX_SHIFT_DIST = 50
_INF = 999999

_MATCH, _SUB, _INS, _DEL = 1, 2, 3, 4


@njit(cache=True)
def _columns(seq, ref, k, col, nxt, lo, hi, cur_best, cur_fg, cur_lg, rec, col_in, in_lo, in_hi, state,
             path, suffix, check_from, limit):
    """tercom's beam edit distance from column ``k`` (state of column ``k`` given in ``col``).

    ``rec`` records each column's incoming values and beam state (``col_in``, ``in_lo``,
    ``in_hi``, ``state``) and the backpointers (``path``). With ``check_from <= hl`` the
    search stops and returns ``_INF`` once every expanded cell of a column ``j >= check_from``
    has cost + ``suffix[j, i]`` above ``limit``. ``col`` and ``nxt`` are left all -1.
    """
    hl = seq.shape[0]
    rl = ref.shape[0]
    result = -1
    for j in range(k, hl + 1):
        last_best = cur_best
        cur_best = _INF
        fg = cur_fg
        cur_fg = -1
        lg = cur_lg
        cur_lg = -1
        if rec:
            in_lo[j] = lo
            in_hi[j] = hi
            for r in range(lo, hi + 1):
                col_in[j, r] = col[r]
            state[j, 0] = last_best
            state[j, 1] = fg
            state[j, 2] = lg
        nlo = rl + 1
        nhi = -1
        chi = hi
        check = j >= check_from and j < hl
        cmin = _INF
        i = fg if fg > 0 else 0
        while i <= rl:
            if i > lg:
                break
            s = col[i]
            if s < 0:
                i += 1
                continue
            if j < hl and s > last_best + BEAM_WIDTH:
                i += 1
                continue
            if cur_fg == -1:
                cur_fg = i
            if i < rl and j < hl:
                # nxt[i + 1] is still unset here (rows run upwards), so tercom's match branch,
                # which lowers cur_best even without writing, behaves as the substitution one
                sub = 0 if ref[i] == seq[j] else 1
                c = s + sub
                if nxt[i + 1] < 0 or c < nxt[i + 1]:
                    nxt[i + 1] = c
                    if rec:
                        path[i + 1, j + 1] = _SUB if sub else _MATCH
                    if c < cur_best:
                        cur_best = c
                if i + 1 > nhi:
                    nhi = i + 1
            cur_lg = i + 1
            if j < hl:
                c = s + 1
                if nxt[i] < 0 or nxt[i] > c:
                    nxt[i] = c
                    if rec:
                        path[i, j + 1] = _INS
                if i < nlo:
                    nlo = i
                if i > nhi:
                    nhi = i
            if i < rl:
                c = s + 1
                if col[i + 1] < 0 or col[i + 1] > c:
                    col[i + 1] = c
                    if rec:
                        path[i + 1, j] = _DEL
                    if i >= lg:
                        lg = i + 1
                    if i + 1 > chi:
                        chi = i + 1
            if check:
                v = s + suffix[j, i]
                if v < cmin:
                    cmin = v
            i += 1
        if j == hl:
            result = col[rl]
        for r in range(lo, chi + 1):
            col[r] = -1
        if check and cmin > limit:
            for r in range(nlo, nhi + 1):
                nxt[r] = -1
            return _INF
        col, nxt = nxt, col
        lo = nlo
        hi = nhi
    return result


@njit(cache=True)
def _suffix_distance(seq, ref, out):
    """``out[j, i]`` = plain Levenshtein distance of ``ref[i:]`` and ``seq[j:]``."""
    hl = seq.shape[0]
    rl = ref.shape[0]
    for i in range(rl + 1):
        out[hl, i] = rl - i
    for j in range(hl - 1, -1, -1):
        out[j, rl] = hl - j
        t = seq[j]
        for i in range(rl - 1, -1, -1):
            a = out[j + 1, i + 1] + (0 if ref[i] == t else 1)
            b = out[j + 1, i] + 1
            if b < a:
                a = b
            b = out[j, i + 1] + 1
            if b < a:
                a = b
            out[j, i] = a


@njit(cache=True)
def _align_errors(path, hl, rl, herr, rerr, ralign):
    """tercom's ``FindAlignErr``: error flags and the hyp position aligned to each ref token."""
    i = rl
    j = hl
    while i > 0 or j > 0:
        p = path[i, j]
        if p == _MATCH or p == _SUB:
            herr[j - 1] = p == _SUB
            rerr[i - 1] = p == _SUB
            ralign[i - 1] = j - 1
            i -= 1
            j -= 1
        elif p == _INS:
            herr[j - 1] = True
            j -= 1
        elif p == _DEL:
            rerr[i - 1] = True
            ralign[i - 1] = j - 1
            i -= 1
        else:
            raise ValueError("tercom: broken alignment path")


@njit(cache=True)
def _copy_range(w, first, last, out, c):
    """Copy ``w[first..last]`` (inclusive; empty when ``last < first``) to ``out[c:]``; return the next ``c``."""
    for i in range(first, last + 1):
        out[c] = w[i]
        c += 1
    return c


@njit(cache=True)
def _perform_shift(w, start, end, newloc, out):
    """tercom's ``PerformShift``: move ``w[start..end]`` after position ``newloc``."""
    last = w.shape[0] - 1
    if newloc == -1:
        c = _copy_range(w, start, end, out, 0)
        c = _copy_range(w, 0, start - 1, out, c)
        _copy_range(w, end + 1, last, out, c)
    elif newloc < start:
        c = _copy_range(w, 0, newloc, out, 0)
        c = _copy_range(w, start, end, out, c)
        c = _copy_range(w, newloc + 1, start - 1, out, c)
        _copy_range(w, end + 1, last, out, c)
    elif newloc > end:
        c = _copy_range(w, 0, start - 1, out, 0)
        c = _copy_range(w, end + 1, newloc, out, c)
        c = _copy_range(w, start, end, out, c)
        _copy_range(w, newloc + 1, last, out, c)
    else:
        # tercom's "moving inside of ourselves" case (start < newloc <= end)
        d = newloc - start
        c = _copy_range(w, 0, start - 1, out, 0)
        c = _copy_range(w, end + 1, min(last, end + d), out, c)
        c = _copy_range(w, start, end, out, c)
        _copy_range(w, end + d + 1, last, out, c)


@njit(cache=True)
def _gather_shifts(cur, ref, ref_sorted, ref_order, herr, rerr_cum, ralign, occ):
    """tercom's ``GatherAllPossShifts``, deduplicated: rows ``(length - 1, start, end, newloc)``.

    Rows come out in tercom's evaluation order: longest blocks first, then gathering order
    (start, reference occurrence, offset). A repeated ``(start, end, newloc)`` is dropped.
    """
    hl = cur.shape[0]
    out = np.empty((64, 4), dtype=np.int64)
    n = 0
    seen = set()
    seen.add(-1)
    for start in range(hl):
        a = np.searchsorted(ref_sorted, cur[start], side="left")
        b = np.searchsorted(ref_sorted, cur[start], side="right")
        if a == b:
            continue
        m_occ = 0
        for q in range(a, b):
            occ[m_occ] = ref_order[q]
            m_occ += 1
        # occurrences come out ascending: ref_order is a stable argsort
        ok = False
        for q in range(m_occ):
            ra = ralign[occ[q]]
            if start != ra and ra - start <= MAX_SHIFT_DIST and start - ra - 1 <= MAX_SHIFT_DIST:
                ok = True
                break
        if not ok:
            continue
        ok = True
        any_herr = False
        end = start
        while ok and end < hl and end < start + MAX_SHIFT_SIZE:
            ok = False
            length = end - start + 1
            if length > 1:
                kept = 0
                for q in range(m_occ):
                    p = occ[q]
                    if p + length - 1 < ref.shape[0] and ref[p + length - 1] == cur[end]:
                        occ[kept] = p
                        kept += 1
                m_occ = kept
            if m_occ == 0:
                break
            if herr[end]:
                any_herr = True
            if not any_herr:
                ok = True
                end += 1
                continue
            for q in range(m_occ):
                moveto = occ[q]
                ra = ralign[moveto]
                if not (ra != start and (ra < start or ra > end) and ra - start <= MAX_SHIFT_DIST
                        and start - ra <= MAX_SHIFT_DIST):
                    continue
                ok = True
                if rerr_cum[moveto + length] - rerr_cum[moveto] == 0:
                    continue
                for roff in range(-1, length):
                    newloc = -2
                    if roff == -1 and moveto == 0:
                        newloc = -1
                    elif start != ralign[moveto + roff] and (roff == 0 or ralign[moveto + roff] != ra):
                        newloc = ralign[moveto + roff]
                    if newloc == -2:
                        continue
                    key = (start * (MAX_SHIFT_SIZE + 1) + (end - start)) * (hl + 2) + newloc + 1
                    if key in seen:
                        continue
                    seen.add(key)
                    if n == out.shape[0]:
                        bigger = np.empty((2 * n, 4), dtype=np.int64)
                        bigger[:n] = out[:n]
                        out = bigger
                    out[n, 0] = length - 1
                    out[n, 1] = start
                    out[n, 2] = end
                    out[n, 3] = newloc
                    n += 1
            end += 1
    order = np.argsort(-out[:n, 0], kind="mergesort")
    return out[:n][order]


@njit(cache=True)
def _pair_edits(hyp, ref):
    """Total tercom edits (shifts + beam edit distance after shifting) of two non-empty sequences."""
    hl = hyp.shape[0]
    rl = ref.shape[0]
    ref_order = np.argsort(ref, kind="mergesort")
    ref_sorted = ref[ref_order]
    col = np.full(rl + 2, -1, dtype=np.int64)
    nxt = np.full(rl + 2, -1, dtype=np.int64)
    col_in = np.empty((hl + 1, rl + 2), dtype=np.int64)
    in_lo = np.empty(hl + 1, dtype=np.int64)
    in_hi = np.empty(hl + 1, dtype=np.int64)
    state = np.empty((hl + 1, 3), dtype=np.int64)
    path = np.zeros((rl + 1, hl + 1), dtype=np.int8)
    suffix = np.empty((hl + 1, rl + 1), dtype=np.int64)
    herr = np.zeros(hl, dtype=np.bool_)
    rerr = np.zeros(rl, dtype=np.bool_)
    rerr_cum = np.zeros(rl + 1, dtype=np.int64)
    ralign = np.zeros(rl, dtype=np.int64)
    occ = np.empty(rl, dtype=np.int64)
    cur = hyp.copy()
    arr = np.empty(hl, dtype=hyp.dtype)
    shifts = 0
    while True:
        col[0] = 0
        med = _columns(cur, ref, 0, col, nxt, 0, 0, _INF, 0, 0, True, col_in, in_lo, in_hi, state,
                       path, suffix, hl + 1, 0)
        _align_errors(path, hl, rl, herr, rerr, ralign)
        for r in range(rl):
            rerr_cum[r + 1] = rerr_cum[r] + (1 if rerr[r] else 0)
        cands = _gather_shifts(cur, ref, ref_sorted, ref_order, herr, rerr_cum, ralign, occ)
        if cands.shape[0] == 0:
            return shifts + med
        _suffix_distance(cur, ref, suffix)
        best_cost = 0
        best_edits = med
        best = -1
        q = 0
        for size in range(MAX_SHIFT_SIZE, -1, -1):
            maxfix = 2 * (1 + size)
            curfix = med - (best_cost + best_edits)
            if curfix > maxfix or (best_cost != 0 and curfix == maxfix):
                break
            while q < cands.shape[0] and cands[q, 0] > size:
                q += 1
            while q < cands.shape[0] and cands[q, 0] == size:
                curfix = med - (best_cost + best_edits)
                if curfix > maxfix or (best_cost != 0 and curfix == maxfix):
                    break
                _perform_shift(cur, cands[q, 1], cands[q, 2], cands[q, 3], arr)
                first = 0
                while first < hl and arr[first] == cur[first]:
                    first += 1
                if first < hl:
                    last = hl - 1
                    while arr[last] == cur[last]:
                        last -= 1
                    # accepted iff edits + 1 < best_edits + best_cost, or == with no shift yet
                    limit = best_edits - 1 if best_cost != 0 else med - 1
                    for r in range(in_lo[first], in_hi[first] + 1):
                        col[r] = col_in[first, r]
                    edits = _columns(arr, ref, first, col, nxt, in_lo[first], in_hi[first], state[first, 0],
                                     state[first, 1], state[first, 2], False, col_in, in_lo, in_hi, state,
                                     path, suffix, last + 1, limit)
                    gain = (best_edits + best_cost) - (edits + 1)
                    if gain > 0 or (best_cost == 0 and gain == 0):
                        best = q
                        best_cost = 1
                        best_edits = edits
                q += 1
        if best < 0:
            return shifts + med
        _perform_shift(cur, cands[best, 1], cands[best, 2], cands[best, 3], arr)
        cur, arr = arr, cur
        shifts += 1


@njit(cache=True)
def _batch_edits(hyp_flat, hyp_off, ref_flat, ref_off):
    """Edits of pair ``p``: ``hyp_flat[hyp_off[p]:hyp_off[p+1]]`` against the matching ref slice."""
    n = hyp_off.shape[0] - 1
    out = np.empty(n, dtype=np.int64)
    for p in range(n):
        h = hyp_flat[hyp_off[p]:hyp_off[p + 1]]
        r = ref_flat[ref_off[p]:ref_off[p + 1]]
        if h.shape[0] == 0 or r.shape[0] == 0:
            # tercom's TERnullstr: an empty side costs the other side's length
            out[p] = h.shape[0] + r.shape[0]
        else:
            out[p] = _pair_edits(h, r)
    return out


def _flatten(seqs: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    lengths = np.fromiter((len(s) for s in seqs), dtype=np.int64, count=len(seqs))
    offsets = np.zeros(len(seqs) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    flat = np.concatenate(seqs).astype(np.int64, copy=False) if len(seqs) else np.zeros(0, np.int64)
    return flat, offsets


def pair_edits(hyps: Sequence[np.ndarray], refs: Sequence[np.ndarray]) -> np.ndarray:
    """tercom 0.7.25 edits of each ``hyps[p]`` against ``refs[p]``, as an int64 array.

    Tokens are integer ids (equal ids are equal tokens). An empty side costs the length of
    the other side, as tercom's ``TERnullstr``.
    """
    if len(hyps) != len(refs):
        raise ValueError(f"pair_edits: got {len(hyps)} hypotheses and {len(refs)} references")
    if not hyps:
        return np.zeros(0, dtype=np.int64)
    hyp_flat, hyp_off = _flatten(hyps)
    ref_flat, ref_off = _flatten(refs)
    return _batch_edits(hyp_flat, hyp_off, ref_flat, ref_off)


def best_edits(hyps: Sequence[np.ndarray], refs: Sequence[Sequence[np.ndarray]]) -> np.ndarray:
    """Per segment ``(edits, average reference length)`` as tercom 0.7.25 reports them.

    ``refs`` is ``[n_refs][n_segments]``. The edits are the fewest over the references (tercom
    keeps the first best); the length is the mean of the reference lengths.
    """
    n_refs = len(refs)
    n_seg = len(hyps)
    all_hyps = [h for _ in range(n_refs) for h in hyps]
    all_refs = [r for ref_set in refs for r in ref_set]
    edits = pair_edits(all_hyps, all_refs).reshape(n_refs, n_seg)
    lengths = np.array([[len(r) for r in ref_set] for ref_set in refs], dtype=np.float64).reshape(n_refs, n_seg)
    out = np.empty((n_seg, 2), dtype=np.float64)
    out[:, 0] = edits.min(axis=0)
    out[:, 1] = lengths.mean(axis=0)
    return out
