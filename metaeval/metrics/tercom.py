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
   first operation written, in tercom's order (a later one replaces it only with a lower
   cost). The backtrace gives the alignment.
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

Speed, with the same results: every candidate shift is scored by compiled (numba) kernels that
(a) first compute the plain (unbeamed) Levenshtein distance of the shifted hypothesis with a
bit-parallel algorithm (Myers 1999; Hyyrö 2003), resumed at the first column the shift changes
and joined after the last one with the exact suffix distances of a reversed pass, and reject the
shift when it exceeds what the shift would need to be taken (the beam can only raise a cost, so
this never drops a shift tercom would take); (b) otherwise restart tercom's beam search at the
first changed column, from the recorded final values of the column before it, and finish it as
soon as a column after the shifted block ends equal to the recorded one up to a constant (the
rest of the search is then the recorded one's, shifted by that constant); (c) skip candidates
already scored in the same round (same block and destination give the same result). The search
records each column's final values (after its deletions), not backpointers: the columns a
candidate searched are kept, and when it is the shift taken they become the record, so the
alignment is never searched again after a shift; the backtrace reads each step's operation from
the recorded values (:func:`_align_errors`). The scoring search has no cut-off of its own: 78%
of the shifts that pass (a) lower the best cost so far, and checking each column's cells against
the remainder's distance cost more than it saved (``docs/performance.md``).

numba increments and decrements the reference count of each array a compiled call receives, of
each array view and of an array variable given another array in a loop, with atomic
instructions: sampled with gdb on WMT24 en-zh at character level, 15 of 77 backtraces stopped
there (in the bound's call and where candidates were gathered) before the paths run per
candidate were written to avoid them, 4 of 58 after. The plain-distance bound (a) is
written into the candidate loop rather than called, the two buffers of searched columns are
chosen by index rather than swapped, candidates are read by index rather than through a slice,
and the backtrace reads the records itself. The per-column copies keep their slices: measured,
they are faster than a loop even with their views.
"""

from __future__ import annotations

import threading
from typing import Sequence

import numpy as np
from metaeval.lazyjit import njit

BEAM_WIDTH = 20
MAX_SHIFT_SIZE = 10
MAX_SHIFT_DIST = 50
_INF = 999999
#: Value of a cell no edit path has reached (above every beam threshold).
_UNSET = 1 << 40

_ONE = np.uint64(1)
_HIGH = np.uint64(1 << 63)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True)
def _search(seq, ref, k, col, nxt, check_from, rec, rlo, rhi, state, med, out, olo, ohi, ostate, res):
    """tercom's beam edit distance of ``seq`` from column ``k``; returns the cost.

    Columns before ``k`` are the recorded ones (``rec``: each column's final values, after its
    deletions, over rows ``rlo[j]..rhi[j]``; ``state[j]``: best substitution/match cost that
    reached it, first and last row to visit). Each column searched from ``k`` on is written the
    same way into ``out``/``olo``/``ohi``/``ostate``. Once a column ``j >= check_from`` ends
    with the recorded column's rows, entry state and values, each plus one ``delta`` (``seq``
    equal to the recorded hypothesis from ``check_from`` on), every later step repeats the
    recorded one plus ``delta``: the search stops, ``res`` = ``(j, delta)`` and the cost is
    ``med + delta`` (``res[0] = -1`` if it ran to the end). ``col`` and ``nxt`` are left all
    ``_UNSET``.
    """
    hl = seq.shape[0]
    rl = ref.shape[0]
    res[0] = -1
    res[1] = 0
    if k == 0:
        col[0] = 0
        start, lo, hi = 0, 0, 0
        cur_best, cur_fg, cur_lg = _INF, 0, 0
    else:
        # column k - 1 is the recorded one (``seq`` is the recorded hypothesis up to it): it is
        # searched again from its final values, whose deletions are made already, over all its
        # recorded rows, to give column k's entry (its own records are not taken from ``out``)
        start, lo, hi = k - 1, rlo[k - 1], rhi[k - 1]
        if hi >= lo:
            col[lo:hi + 1] = rec[start, lo:hi + 1]
        cur_best, cur_fg, cur_lg = state[start, 0], state[start, 1], hi
    for j in range(start, hl):
        thr = cur_best + BEAM_WIDTH
        entry_best = cur_best
        cur_best = _INF
        fg = cur_fg
        cur_fg = -1
        lg0 = cur_lg
        lg = cur_lg
        cur_lg = -1
        chi = hi
        t = seq[j]
        i = fg if fg > 0 else 0
        while i <= rl and i <= lg:
            s = col[i]
            if s > thr:
                i += 1
                continue
            if cur_fg == -1:
                cur_fg = i
            cur_lg = i + 1
            c = s + 1
            if nxt[i] > c:
                nxt[i] = c
            if i < rl:
                # nxt[i + 1] is still unset here (rows run upwards), so tercom's match branch,
                # which lowers the best cost even without writing, acts as substitution
                d = s + (0 if ref[i] == t else 1)
                nxt[i + 1] = d
                if d < cur_best:
                    cur_best = d
                if col[i + 1] > c:
                    col[i + 1] = c
                    if i >= lg:
                        lg = i + 1
                    if i + 1 > chi:
                        chi = i + 1
            i += 1
        olo[j] = lo
        ohi[j] = chi
        ostate[j, 0] = entry_best
        ostate[j, 1] = fg
        ostate[j, 2] = lg0
        if chi >= lo:
            out[j, lo:chi + 1] = col[lo:chi + 1]
        rejoined = j >= check_from and lo == rlo[j] and chi == rhi[j] and fg == state[j, 1] and lg0 == state[j, 2]
        delta = entry_best - state[j, 0] if rejoined else 0
        if rejoined:
            for r in range(lo, chi + 1):
                if col[r] != rec[j, r] + delta and (col[r] != _UNSET or rec[j, r] != _UNSET):
                    rejoined = False
                    break
        if chi >= lo:
            col[lo:chi + 1] = _UNSET
        if rejoined:
            if cur_fg != -1:
                for r in range(cur_fg, min(cur_lg, rl) + 1):
                    nxt[r] = _UNSET
            res[0] = j
            res[1] = delta
            return med + delta
        if cur_fg == -1:
            lo = rl + 1
            hi = -1
        else:
            lo = cur_fg
            hi = min(cur_lg, rl)
        col, nxt = nxt, col
    # last column: deletions only, no beam
    i = cur_fg if cur_fg > 0 else 0
    lg = cur_lg
    chi = hi
    while i < rl and i <= lg:
        s = col[i]
        if s < _UNSET and col[i + 1] > s + 1:
            col[i + 1] = s + 1
            if i >= lg:
                lg = i + 1
            if i + 1 > chi:
                chi = i + 1
        i += 1
    result = col[rl]
    olo[hl] = lo
    ohi[hl] = chi
    ostate[hl, 0] = cur_best
    ostate[hl, 1] = cur_fg
    ostate[hl, 2] = cur_lg
    for r in range(lo, chi + 1):
        out[hl, r] = col[r]
        col[r] = _UNSET
    return result


@njit(cache=True)
def _take_columns(k, end, delta, out, olo, ohi, ostate, rec, rlo, rhi, state):
    """Columns ``k..end`` of a search become the record; later ones get ``delta`` added."""
    hl = rec.shape[0] - 1
    for j in range(k, end + 1):
        rlo[j] = olo[j]
        rhi[j] = ohi[j]
        state[j, 0] = ostate[j, 0]
        state[j, 1] = ostate[j, 1]
        state[j, 2] = ostate[j, 2]
        if ohi[j] >= olo[j]:
            rec[j, olo[j]:ohi[j] + 1] = out[j, olo[j]:ohi[j] + 1]
    if delta != 0:
        for j in range(end + 1, hl + 1):
            state[j, 0] += delta
            for r in range(rlo[j], rhi[j] + 1):
                if rec[j, r] != _UNSET:
                    rec[j, r] += delta


@njit(cache=True)
def _align_errors(seq, ref, rec, rlo, rhi, state, herr, rerr, ralign):
    """tercom's ``FindAlignErr`` on the recorded columns: error flags and the hypothesis position
    aligned to each reference token.

    A cell's operation is the one the search wrote last into it. The search writes the
    substitution/match first and lets an insertion, then a deletion, replace it only with a
    lower value; so a cell whose value is its substitution/match value (from an expanded cell)
    took that, else one whose value is its insertion value took the insertion, else the
    deletion."""
    hl = seq.shape[0]
    rl = ref.shape[0]
    i = rl
    j = hl
    v = rec[hl, rl] if rlo[hl] <= rl <= rhi[hl] else _UNSET
    while i > 0 or j > 0:
        if j > 0:
            thr = state[j - 1, 0] + BEAM_WIDTH
            if i > 0:
                a = rec[j - 1, i - 1] if rlo[j - 1] <= i - 1 <= rhi[j - 1] else _UNSET
                sub = 0 if ref[i - 1] == seq[j - 1] else 1
                if a <= thr and v == a + sub:
                    herr[j - 1] = sub == 1
                    rerr[i - 1] = sub == 1
                    ralign[i - 1] = j - 1
                    i -= 1
                    j -= 1
                    v = a
                    continue
            b = rec[j - 1, i] if rlo[j - 1] <= i <= rhi[j - 1] else _UNSET
            if b <= thr and v == b + 1:
                herr[j - 1] = True
                j -= 1
                v = b
                continue
        if i > 0 and rlo[j] <= i - 1 <= rhi[j] and rec[j, i - 1] == v - 1:
            rerr[i - 1] = True
            ralign[i - 1] = j - 1
            i -= 1
            v -= 1
            continue
        raise ValueError("tercom: broken alignment path")


@njit(cache=True)
def _bp_word(eq, p, m, hin):
    """One 64-row block of one column of the bit-parallel Levenshtein distance (Myers 1999,
    in Hyyrö's block form).

    ``p``/``m`` hold the +1/-1 vertical differences of the block (bit ``r``: row ``r + 1``
    minus row ``r``), ``eq`` the rows whose token is the column's, ``hin`` the horizontal
    difference entering at the block's top row. Returns the new ``p``, ``m`` and the
    horizontal difference leaving at its bottom row.
    """
    xv = eq | m
    if hin < 0:
        eq |= _ONE
    xh = (((eq & p) + p) ^ p) | eq
    ph = m | ~(xh | p)
    mh = p & xh
    hout = 0
    if ph & _HIGH:
        hout = 1
    elif mh & _HIGH:
        hout = -1
    ph = ph << _ONE
    mh = mh << _ONE
    if hin < 0:
        mh |= _ONE
    elif hin > 0:
        ph |= _ONE
    return mh | ~(xv | ph), ph & xv, hout


@njit(cache=True)
def _bp_columns(seq, peq, k, pv, mv, words, reverse):
    """Rows ``k + 1..`` of ``pv``/``mv``: columns after ``t`` tokens of ``seq`` (read backwards if
    ``reverse``); the top row grows by one per column (global distance)."""
    n = seq.shape[0]
    for t in range(k, n):
        c = seq[n - 1 - t] if reverse else seq[t]
        hin = 1
        for b in range(words):
            pv[t + 1, b], mv[t + 1, b], hin = _bp_word(peq[c, b], pv[t, b], mv[t, b], hin)


@njit(cache=True)
def _suffix_row(j, hl, rl, rpv, rmv, sfx, smin):
    """``sfx[j, i]`` = Levenshtein distance of ``ref[i:]`` and ``seq[j:]``, from the reversed pass,
    and ``smin[j, w]`` = its minimum over rows ``64w + 1..64w + 64``."""
    t = hl - j
    d = t
    sfx[j, rl] = d
    for k in range(rl):
        w = k >> 6
        sh = np.uint64(k & 63)
        d += np.int64((rpv[t, w] >> sh) & _ONE) - np.int64((rmv[t, w] >> sh) & _ONE)
        sfx[j, rl - 1 - k] = d
    for i in range(1, rl + 1):
        w = (i - 1) >> 6
        if (i - 1) & 63 == 0 or sfx[j, i] < smin[j, w]:
            smin[j, w] = sfx[j, i]


@njit(cache=True)
def _popcount(x):
    """Number of set bits of a uint64."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True)
def _shift_span(start, end, newloc, last):
    """First and last position that tercom's ``PerformShift`` of ``[start..end]`` after ``newloc`` can change."""
    if newloc < start:
        return newloc + 1, end
    if newloc > end:
        return start, newloc
    # tercom's "moving inside of ourselves" case (start < newloc <= end)
    return start, min(last, end + newloc - start)


@njit(cache=True)
def _shift_into(w, start, end, newloc, out):
    """tercom's ``PerformShift`` (move ``w[start..end]`` after ``newloc``), written only over
    :func:`_shift_span`; ``out`` must equal ``w`` elsewhere."""
    a, b = _shift_span(start, end, newloc, w.shape[0] - 1)
    c = a
    if newloc < start:
        for i in range(start, end + 1):
            out[c] = w[i]
            c += 1
        for i in range(newloc + 1, start):
            out[c] = w[i]
            c += 1
    else:
        for i in range(end + 1, b + 1):
            out[c] = w[i]
            c += 1
        for i in range(start, end + 1):
            out[c] = w[i]
            c += 1


@njit(cache=True)
def _local_ids(hyp, ref, h, r, occ_start, occ_pos):
    """Renumber tokens ``0..u-1`` by the reference, ``u`` for tokens only in ``hyp``; return ``u``.

    ``occ_pos[occ_start[c]:occ_start[c + 1]]`` lists the reference positions of token ``c``, ascending.
    """
    rl = ref.shape[0]
    order = np.argsort(ref, kind="mergesort")
    u = 0
    for q in range(rl):
        if q > 0 and ref[order[q]] != ref[order[q - 1]]:
            u += 1
        r[order[q]] = u
        occ_pos[q] = order[q]
    u += 1
    for c in range(u + 2):
        occ_start[c] = 0
    for q in range(rl):
        occ_start[r[q] + 1] += 1
    for c in range(u + 1):
        occ_start[c + 1] += occ_start[c]
    sorted_ref = ref[order]
    for j in range(hyp.shape[0]):
        q = np.searchsorted(sorted_ref, hyp[j])
        h[j] = r[order[q]] if q < rl and sorted_ref[q] == hyp[j] else u
    return u


@njit(cache=True)
def _gather_shifts(cur, ref, u, occ_start, occ_pos, herr, rerr_cum, ralign, occ, seen, stamp, out):
    """tercom's ``GatherAllPossShifts``, deduplicated: rows ``(length - 1, start, end, newloc)``.

    Rows come out in tercom's evaluation order: longest blocks first, then gathering order
    (start, reference occurrence, offset). A repeated ``(start, end, newloc)`` is dropped.
    Returns the number of rows (-1 if ``out`` is too small) and the stamp to pass next time.
    """
    hl = cur.shape[0]
    n = 0
    for start in range(hl):
        tok = cur[start]
        if tok == u:
            continue
        stamp += 1
        m_occ = 0
        for q in range(occ_start[tok], occ_start[tok + 1]):
            occ[m_occ] = occ_pos[q]
            m_occ += 1
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
                    if seen[end - start, newloc + 1] == stamp:
                        continue
                    seen[end - start, newloc + 1] = stamp
                    if n == out.shape[0]:
                        return -1, stamp
                    out[n, 0] = length - 1
                    out[n, 1] = start
                    out[n, 2] = end
                    out[n, 3] = newloc
                    n += 1
            end += 1
    return n, stamp


@njit(cache=True)
def _order_by_length(cands, n, order):
    """Stable order of ``cands[:n]`` by decreasing block length (a counting sort); returns bucket starts."""
    first = np.zeros(MAX_SHIFT_SIZE + 2, dtype=np.int64)
    for q in range(n):
        first[MAX_SHIFT_SIZE - cands[q, 0] + 1] += 1
    for b in range(MAX_SHIFT_SIZE + 1):
        first[b + 1] += first[b]
    fill = first.copy()
    for q in range(n):
        b = MAX_SHIFT_SIZE - cands[q, 0]
        order[fill[b]] = q
        fill[b] += 1
    return first


@njit(cache=True)
def _pair_edits(hyp, ref, rec_buf, a_buf, sfx_buf, cand_buf, stop):
    """Total tercom edits (shifts + beam edit distance after shifting) of two non-empty sequences.

    ``*_buf`` are work buffers at least as large as this pair needs (see :func:`_batch_edits`).
    Returns -1 as soon as ``stop[0]`` is set (checked before each round of shifts).
    """
    hl = hyp.shape[0]
    rl = ref.shape[0]
    cur = np.empty(hl, dtype=np.int64)
    rloc = np.empty(rl, dtype=np.int64)
    occ_start = np.empty(rl + 2, dtype=np.int64)
    occ_pos = np.empty(rl, dtype=np.int64)
    u = _local_ids(hyp, ref, cur, rloc, occ_start, occ_pos)
    words = (rl + 63) // 64
    peq = np.zeros((u + 1, words), dtype=np.uint64)
    peq_rev = np.zeros((u + 1, words), dtype=np.uint64)
    for i in range(rl):
        peq[rloc[i], i >> 6] |= _ONE << np.uint64(i & 63)
        k = rl - 1 - i
        peq_rev[rloc[i], k >> 6] |= _ONE << np.uint64(k & 63)
    fpv = np.empty((hl + 1, words), dtype=np.uint64)
    fmv = np.zeros((hl + 1, words), dtype=np.uint64)
    rpv = np.empty((hl + 1, words), dtype=np.uint64)
    rmv = np.zeros((hl + 1, words), dtype=np.uint64)
    fpv[0, :] = _ALL
    rpv[0, :] = _ALL
    tpv = np.empty(words, dtype=np.uint64)
    tmv = np.empty(words, dtype=np.uint64)

    col = np.full(rl + 2, _UNSET, dtype=np.int64)
    nxt = np.full(rl + 2, _UNSET, dtype=np.int64)
    cells = (hl + 1) * (rl + 2)
    rec = rec_buf[:cells].reshape((hl + 1, rl + 2))
    outs = a_buf[:2 * cells].reshape((2, hl + 1, rl + 2))
    rlo = np.empty(hl + 1, dtype=np.int64)
    rhi = np.empty(hl + 1, dtype=np.int64)
    state = np.empty((hl + 1, 3), dtype=np.int64)
    # a candidate's searched columns go to buffer ``cb``; the best so far's are in the other one
    olos = np.empty((2, hl + 1), dtype=np.int64)
    ohis = np.empty((2, hl + 1), dtype=np.int64)
    ostates = np.empty((2, hl + 1, 3), dtype=np.int64)
    cb = 0
    res = np.empty(2, dtype=np.int64)
    sfx = sfx_buf[: (hl + 1) * (rl + 1)].reshape((hl + 1, rl + 1))
    smin = np.empty((hl + 1, words), dtype=np.int64)
    sfx_ok = np.zeros(hl + 1, dtype=np.bool_)
    herr = np.zeros(hl, dtype=np.bool_)
    rerr = np.zeros(rl, dtype=np.bool_)
    rerr_cum = np.zeros(rl + 1, dtype=np.int64)
    ralign = np.zeros(rl, dtype=np.int64)
    occ = np.empty(rl, dtype=np.int64)
    seen = np.zeros((MAX_SHIFT_SIZE, hl + 2), dtype=np.int64)
    stamp = 0
    cands = cand_buf
    order = np.empty(cands.shape[0], dtype=np.int64)
    arr = cur.copy()
    shifts = 0
    # columns from ``redo`` on (``redo_rev`` on for the reversed pass) must be recomputed
    redo = 0
    redo_rev = 0
    # the first alignment, searched straight into the record
    med = _search(cur, rloc, 0, col, nxt, hl + 1, rec, rlo, rhi, state, 0, rec, rlo, rhi, state, res)
    while True:
        if stop[0] != 0:
            return -1
        _align_errors(cur, rloc, rec, rlo, rhi, state, herr, rerr, ralign)
        for r in range(rl):
            rerr_cum[r + 1] = rerr_cum[r] + (1 if rerr[r] else 0)
        n, stamp = _gather_shifts(cur, rloc, u, occ_start, occ_pos, herr, rerr_cum, ralign, occ, seen, stamp, cands)
        while n < 0:
            cands = np.empty((2 * cands.shape[0], 4), dtype=np.int64)
            n, stamp = _gather_shifts(cur, rloc, u, occ_start, occ_pos, herr, rerr_cum, ralign, occ, seen, stamp, cands)
        if n == 0:
            return shifts + med
        if order.shape[0] < n:
            order = np.empty(cands.shape[0], dtype=np.int64)
        bucket = _order_by_length(cands, n, order)
        _bp_columns(cur, peq, redo, fpv, fmv, words, False)
        _bp_columns(cur, peq_rev, redo_rev, rpv, rmv, words, True)
        best_cost = 0
        best_edits = med
        best = -1
        best_first = 0
        best_last = 0
        best_end = 0
        best_delta = 0
        for size in range(MAX_SHIFT_SIZE, -1, -1):
            maxfix = 2 * (1 + size)
            curfix = med - (best_cost + best_edits)
            if curfix > maxfix or (best_cost != 0 and curfix == maxfix):
                break
            b = MAX_SHIFT_SIZE - size
            for qi in range(bucket[b], bucket[b + 1]):
                q = order[qi]
                curfix = med - (best_cost + best_edits)
                if curfix > maxfix or (best_cost != 0 and curfix == maxfix):
                    break
                s0 = cands[q, 1]
                s1 = cands[q, 2]
                s2 = cands[q, 3]
                a, z = _shift_span(s0, s1, s2, hl - 1)
                _shift_into(cur, s0, s1, s2, arr)
                first = a
                while first <= z and arr[first] == cur[first]:
                    first += 1
                if first <= z:
                    last = z
                    while arr[last] == cur[last]:
                        last -= 1
                    # accepted iff edits + 1 < best_edits + best_cost, or == with no shift yet
                    limit = best_edits - 1 if best_cost != 0 else med - 1
                    # (a) the beam only raises costs: a shift whose plain edit distance exceeds
                    # the limit cannot be taken. Bit-parallel columns resumed at ``first``, joined
                    # at ``last + 1`` with the suffix distances; ``exceeds`` says the distance is
                    # over the limit.
                    for bw in range(words):
                        tpv[bw] = fpv[first, bw]
                        tmv[bw] = fmv[first, bw]
                    for t in range(first, last + 1):
                        c = arr[t]
                        hin = 1
                        for bw in range(words):
                            tpv[bw], tmv[bw], hin = _bp_word(peq[c, bw], tpv[bw], tmv[bw], hin)
                    j = last + 1
                    if j < hl and not sfx_ok[j]:
                        _suffix_row(j, hl, rl, rpv, rmv, sfx, smin)
                        sfx_ok[j] = True
                    d = j
                    exceeds = True
                    if j == hl:
                        for kk in range(rl):
                            sh = np.uint64(kk & 63)
                            d += np.int64((tpv[kk >> 6] >> sh) & _ONE) - np.int64((tmv[kk >> 6] >> sh) & _ONE)
                        exceeds = d > limit
                    elif d + sfx[j, 0] <= limit:
                        exceeds = False
                    else:
                        for w in range(words):
                            # rows of block w are at least d minus its -1 steps: skip the block if
                            # that cannot reach the limit, else walk it
                            if d - _popcount(tmv[w]) + smin[j, w] <= limit:
                                e = d
                                for kk in range(64 * w, min(64 * w + 64, rl)):
                                    sh = np.uint64(kk & 63)
                                    e += np.int64((tpv[w] >> sh) & _ONE) - np.int64((tmv[w] >> sh) & _ONE)
                                    if e + sfx[j, kk + 1] <= limit:
                                        exceeds = False
                                        break
                                if not exceeds:
                                    break
                            d += _popcount(tpv[w]) - _popcount(tmv[w])
                    # end of (a)
                    if not exceeds:
                        edits = _search(arr, rloc, first, col, nxt, last + 1, rec, rlo, rhi, state, med, outs[cb],
                                        olos[cb], ohis[cb], ostates[cb], res)
                        gain = (best_edits + best_cost) - (edits + 1)
                        if gain > 0 or (best_cost == 0 and gain == 0):
                            best = q
                            best_cost = 1
                            best_edits = edits
                            best_first = first
                            best_last = last
                            best_end = res[0] if res[0] >= 0 else hl
                            best_delta = res[1]
                            cb = 1 - cb
                for i in range(a, z + 1):
                    arr[i] = cur[i]
        if best < 0:
            return shifts + med
        _shift_into(cur, cands[best, 1], cands[best, 2], cands[best, 3], arr)
        a, z = _shift_span(cands[best, 1], cands[best, 2], cands[best, 3], hl - 1)
        for i in range(a, z + 1):
            cur[i] = arr[i]
        # the taken shift's searched columns become the record
        bb = 1 - cb
        _take_columns(best_first, best_end, best_delta, outs[bb], olos[bb], ohis[bb], ostates[bb], rec, rlo, rhi, state)
        med = best_edits
        redo = best_first
        redo_rev = hl - 1 - best_last
        for j in range(best_last + 1):
            sfx_ok[j] = False
        shifts += 1


@njit(cache=True, nogil=True)
def _batch_edits(hyp_flat, hyp_off, ref_flat, ref_off, stop):
    """Edits of pair ``p``: ``hyp_flat[hyp_off[p]:hyp_off[p+1]]`` against the matching ref slice.

    Runs without the GIL; once another thread sets ``stop[0]``, the remaining pairs get -1 and
    the call returns within one round of shifts.
    """
    n = hyp_off.shape[0] - 1
    out = np.empty(n, dtype=np.int64)
    cells = 1
    for p in range(n):
        size = (hyp_off[p + 1] - hyp_off[p] + 2) * (ref_off[p + 1] - ref_off[p] + 2)
        if size > cells:
            cells = size
    rec_buf = np.empty(cells, dtype=np.int64)
    a_buf = np.empty(2 * cells, dtype=np.int64)
    sfx_buf = np.empty(cells, dtype=np.int64)
    cand_buf = np.empty((256, 4), dtype=np.int64)
    for p in range(n):
        h = hyp_flat[hyp_off[p]:hyp_off[p + 1]]
        r = ref_flat[ref_off[p]:ref_off[p + 1]]
        if h.shape[0] == 0 or r.shape[0] == 0:
            # tercom's TERnullstr: an empty side costs the other side's length
            out[p] = h.shape[0] + r.shape[0]
        else:
            out[p] = _pair_edits(h, r, rec_buf, a_buf, sfx_buf, cand_buf, stop)
    return out


def _flatten(seqs: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    lengths = np.fromiter((len(s) for s in seqs), dtype=np.int64, count=len(seqs))
    offsets = np.zeros(len(seqs) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    flat = np.concatenate(seqs).astype(np.int64, copy=False) if len(seqs) else np.zeros(0, np.int64)
    return flat, offsets


#: Cells (hypothesis x reference length, summed over pairs) given to one kernel call.
BATCH_CELLS = 200_000


def _batches(hyp_off: np.ndarray, ref_off: np.ndarray) -> list[tuple[int, int]]:
    """``(first, end)`` pair ranges of about :data:`BATCH_CELLS` cells each, in order."""
    cells = (np.diff(hyp_off) + 1) * (np.diff(ref_off) + 1)
    out, first, total = [], 0, 0
    for p, size in enumerate(cells.tolist()):
        if total and total + size > BATCH_CELLS:
            out.append((first, p))
            first, total = p, 0
        total += size
    out.append((first, len(cells)))
    return out


def pair_edits(hyps: Sequence[np.ndarray], refs: Sequence[np.ndarray]) -> np.ndarray:
    """tercom 0.7.25 edits of each ``hyps[p]`` against ``refs[p]``, as an int64 array.

    Tokens are integer ids (equal ids are equal tokens). An empty side costs the length of
    the other side, as tercom's ``TERnullstr``. An interrupt (Ctrl-C, SIGTERM) stops the
    computation within one round of shifts (:func:`_edits_flat`).
    """
    if len(hyps) != len(refs):
        raise ValueError(f"pair_edits: got {len(hyps)} hypotheses and {len(refs)} references")
    if not hyps:
        return np.zeros(0, dtype=np.int64)
    hyp_flat, hyp_off = _flatten(hyps)
    ref_flat, ref_off = _flatten(refs)
    return _edits_flat(hyp_flat, hyp_off, ref_flat, ref_off)


def _edits_flat(hyp_flat: np.ndarray, hyp_off: np.ndarray, ref_flat: np.ndarray, ref_off: np.ndarray) -> np.ndarray:
    """Edits of every flat pair, computed in a helper thread so that an interrupt is never held up.

    Compiled code runs no Python signal handler, so the kernel runs without the GIL in a thread
    while this thread waits, ready to take Ctrl-C or SIGTERM (``KeyboardInterrupt``); it then
    sets the stop flag, which the kernel checks before each round of shifts, waits for it to
    return (well under a second) and raises. Pairs go to the kernel in batches of about
    :data:`BATCH_CELLS` cells.
    """
    out = np.empty(len(hyp_off) - 1, dtype=np.int64)
    stop = np.zeros(1, dtype=np.int64)
    failed: list[BaseException] = []

    def work() -> None:
        try:
            for first, end in _batches(hyp_off, ref_off):
                if stop[0]:
                    return
                out[first:end] = _batch_edits(hyp_flat, hyp_off[first:end + 1], ref_flat, ref_off[first:end + 1], stop)
        except BaseException as exc:  # noqa: BLE001 - raised again in the calling thread
            failed.append(exc)

    thread = threading.Thread(target=work, name="tercom", daemon=True)
    thread.start()
    try:
        thread.join()
    except BaseException:
        stop[0] = 1
        thread.join()
        raise
    if failed:
        raise failed[0]
    return out


def best_edits(hyps: Sequence[np.ndarray], refs: Sequence[Sequence[np.ndarray]]) -> np.ndarray:
    """Per segment ``(edits, average reference length)`` as tercom 0.7.25 reports them.

    ``refs`` is ``[n_refs][n_segments]``. The edits are the fewest over the references (tercom
    keeps the first best); the length is the mean of the reference lengths.
    """
    hyp_flat, hyp_off = _flatten([h for _ in refs for h in hyps])
    ref_flat, ref_off = _flatten([r for ref_set in refs for r in ref_set])
    return best_edits_flat(hyp_flat, hyp_off, ref_flat, ref_off, len(refs))


def best_edits_flat(hyp_flat: np.ndarray, hyp_off: np.ndarray, ref_flat: np.ndarray, ref_off: np.ndarray,
                    n_refs: int) -> np.ndarray:
    """:func:`best_edits` of pairs already laid out flat, reference set by reference set.

    Pair ``k = r * n_segments + s`` is ``hyp_flat[hyp_off[k]:hyp_off[k + 1]]`` against
    ``ref_flat[ref_off[k]:ref_off[k + 1]]`` (int64 ids; offsets of ``n_refs * n_segments + 1``).
    """
    n_pairs = len(hyp_off) - 1
    if len(ref_off) != len(hyp_off) or n_refs < 1 or n_pairs % n_refs:
        raise ValueError(f"best_edits_flat: {n_pairs} hypotheses and {len(ref_off) - 1} references "
                         f"do not form {n_refs} reference sets")
    n_seg = n_pairs // n_refs
    if n_pairs:
        edits = _edits_flat(hyp_flat, hyp_off, ref_flat, ref_off).reshape(n_refs, n_seg)
    else:
        edits = np.zeros((n_refs, 0), dtype=np.int64)
    lengths = np.diff(ref_off).astype(np.float64).reshape(n_refs, n_seg)
    out = np.empty((n_seg, 2), dtype=np.float64)
    out[:, 0] = edits.min(axis=0)
    out[:, 1] = lengths.mean(axis=0)
    return out
