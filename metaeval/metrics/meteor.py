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
from pathlib import Path
from typing import Any, ClassVar, Sequence

import numpy as np
from numba import njit

import metaeval
from metaeval.errors import UsageError
from metaeval.metrics.base import Metric, Refs, Tokens

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
def _sorted_paths(matches: np.ndarray, chunks: np.ndarray, dist: np.ndarray, n: int) -> np.ndarray:
    """Indices of paths ``0..n-1``: more matches, fewer chunks, smaller distance, then insertion order."""
    order = np.argsort(dist[:n], kind="mergesort")
    primary = -matches[:n] * (1 << 32) + chunks[:n]
    return order[np.argsort(primary[order], kind="mergesort")]


@njit(cache=True, nogil=True)
def _align(hyp: np.ndarray, ref: np.ndarray, hyp_func: np.ndarray, ref_func: np.ndarray, beam: int) -> np.ndarray:
    """METEOR 1.5 exact alignment of ``hyp`` (line 1) to ``ref`` (line 2).

    Returns ``(matches, chunks, hyp_func_matches, ref_func_matches)``.
    """
    n1 = hyp.shape[0]
    n2 = ref.shape[0]
    # Candidates per reference position, hypothesis positions ascending (CSR layout).
    count2 = np.zeros(n2, dtype=np.int64)
    count1 = np.zeros(n1, dtype=np.int64)
    for j in range(n2):
        for i in range(n1):
            if hyp[i] == ref[j]:
                count2[j] += 1
                count1[i] += 1
    start = np.zeros(n2 + 1, dtype=np.int64)
    for j in range(n2):
        start[j + 1] = start[j] + count2[j]
    cand = np.empty(start[n2], dtype=np.int64)
    k = 0
    for j in range(n2):
        for i in range(n1):
            if hyp[i] == ref[j]:
                cand[k] = i
                k += 1
    # One-to-one matches are fixed before the search.
    fixed = np.full(n2, -1, dtype=np.int64)
    words = (n1 + 63) // 64 + 1
    max_cand = 0
    for j in range(n2):
        max_cand = max(max_cand, count2[j])
        if count2[j] == 1 and count1[cand[start[j]]] == 1:
            fixed[j] = cand[start[j]]
    cap = beam * (max_cand + 1) + 1
    used = np.zeros((2, cap, words), dtype=np.uint64)
    n_match = np.zeros((2, cap), dtype=np.int64)
    n_chunk = np.zeros((2, cap), dtype=np.int64)
    last_end = np.full((2, cap), -1, dtype=np.int64)
    dist = np.zeros((2, cap), dtype=np.int64)
    hfm = np.zeros((2, cap), dtype=np.int64)
    rfm = np.zeros((2, cap), dtype=np.int64)
    for j in range(n2):
        i = fixed[j]
        if i >= 0:
            used[0, 0, i >> 6] |= np.uint64(1) << np.uint64(i & 63)
    cur = 0
    n_paths = 1
    for current in range(n2):
        order = _sorted_paths(n_match[cur], n_chunk[cur], dist[cur], n_paths)
        nxt = 1 - cur
        n_next = 0
        for rank in range(min(beam, n_paths)):
            p = order[rank]
            i_fixed = fixed[current]
            if i_fixed >= 0:
                # Reference position already taken by a fixed match: extend along it.
                q = n_next
                n_next += 1
                used[nxt, q] = used[cur, p]
                n_match[nxt, q] = n_match[cur, p] + 1
                chunk_break = last_end[cur, p] != -1 and i_fixed != last_end[cur, p]
                n_chunk[nxt, q] = n_chunk[cur, p] + (1 if chunk_break else 0)
                last_end[nxt, q] = i_fixed + 1
                dist[nxt, q] = dist[cur, p] + abs(current - i_fixed)
                hfm[nxt, q] = hfm[cur, p] + (1 if hyp_func[i_fixed] else 0)
                rfm[nxt, q] = rfm[cur, p] + (1 if ref_func[current] else 0)
                continue
            parent_dist = dist[cur, p]
            for c in range(start[current], start[current + 1]):
                i = cand[c]
                bit = np.uint64(1) << np.uint64(i & 63)
                if used[cur, p, i >> 6] & bit:
                    continue
                q = n_next
                n_next += 1
                used[nxt, q] = used[cur, p]
                used[nxt, q, i >> 6] |= bit
                n_match[nxt, q] = n_match[cur, p] + 1
                chunk_break = last_end[cur, p] != -1 and i != last_end[cur, p]
                n_chunk[nxt, q] = n_chunk[cur, p] + (1 if chunk_break else 0)
                last_end[nxt, q] = i + 1
                dist[nxt, q] = parent_dist
                hfm[nxt, q] = hfm[cur, p] + (1 if hyp_func[i] else 0)
                rfm[nxt, q] = rfm[cur, p] + (1 if ref_func[current] else 0)
                parent_dist += abs(current - i)
            # Skip this reference position.
            q = n_next
            n_next += 1
            used[nxt, q] = used[cur, p]
            n_match[nxt, q] = n_match[cur, p]
            n_chunk[nxt, q] = n_chunk[cur, p] + (1 if last_end[cur, p] != -1 else 0)
            last_end[nxt, q] = -1
            dist[nxt, q] = parent_dist
            hfm[nxt, q] = hfm[cur, p]
            rfm[nxt, q] = rfm[cur, p]
        cur = nxt
        n_paths = n_next
    # Close the open chunk of the paths within the beam, then take the best.
    order = _sorted_paths(n_match[cur], n_chunk[cur], dist[cur], n_paths)
    kept = order[: min(beam, n_paths)]
    for p in kept:
        if last_end[cur, p] != -1:
            n_chunk[cur, p] += 1
    sub = _sorted_paths(n_match[cur][kept], n_chunk[cur][kept], dist[cur][kept], kept.shape[0])
    best = kept[sub[0]]
    out = np.empty(4, dtype=np.int64)
    out[0] = n_match[cur, best]
    out[1] = n_chunk[cur, best]
    out[2] = hfm[cur, best]
    out[3] = rfm[cur, best]
    return out


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
    """References prepared once: a shared vocabulary, id arrays and function-word flags."""

    vocab: dict[str, int]
    ids: list[list[np.ndarray]]
    func: list[list[np.ndarray]]


@dataclass(frozen=True)
class METEOR(Metric):
    """METEOR 1.5, exact module (``meteor:params=other`` or ``meteor:params=en,function_words=PATH``)."""

    params: str = "other"
    function_words: str = ""
    beam: int = field(default=BEAM_SIZE, repr=False)

    name: ClassVar[str] = "meteor"
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

    def signature(self) -> str:
        words = _read_function_words(self.function_words)[1] if self.function_words else "none"
        beam = f"|beam:{self.beam}" if self.beam != BEAM_SIZE else ""
        return f"meteor|params:{self.params}|mod:exact|case:mixed|fw:{words}{beam}|version:{metaeval.__version__}"

    def prepare(self, refs: Refs) -> MeteorReferences:
        vocab: dict[str, int] = {}
        words = self._words()
        ids = [[_ids(seg, vocab, grow=True) for seg in ref] for ref in refs]
        func = [[_function_flags(seg, words) for seg in ref] for ref in refs]
        return MeteorReferences(vocab, ids, func)

    def segment_stats(self, hyps: Sequence[Tokens], prepared: Any) -> np.ndarray:
        refs: MeteorReferences = prepared
        n_seg = len(refs.ids[0]) if refs.ids else 0
        if len(hyps) != n_seg:
            raise ValueError(f"meteor: {len(hyps)} hypotheses for {n_seg} reference segments")
        words = self._words()
        n_refs = len(refs.ids)
        per_ref = np.zeros((n_refs, len(hyps), len(STAT_NAMES)), dtype=np.float64)
        for s, hyp in enumerate(hyps):
            hyp_ids = _ids(hyp, refs.vocab, grow=False)
            hyp_func = _function_flags(hyp, words)
            for r in range(n_refs):
                matches, chunks, hyp_fm, ref_fm = _align(hyp_ids, refs.ids[r][s], hyp_func, refs.func[r][s], self.beam)
                ref_len = len(refs.ids[r][s])
                if matches == len(hyp) == ref_len and chunks == 1:
                    chunks = 0  # an identical segment adds no chunk to the system sums
                per_ref[r, s] = (len(hyp), ref_len, hyp_func.sum(), refs.func[r][s].sum(), matches, hyp_fm, ref_fm, chunks)
        # The first reference with the best score, as METEOR keeps it (strictly greater replaces).
        best = np.argmax(self.score(per_ref), axis=0)
        return per_ref[best, np.arange(len(hyps))]

    def score(self, stats: np.ndarray) -> np.ndarray:
        return meteor_score(stats, *PARAMETERS[self.params])


def _ids(tokens: Tokens, vocab: dict[str, int], grow: bool) -> np.ndarray:
    if grow:
        return np.fromiter((vocab.setdefault(t, len(vocab)) for t in tokens), dtype=np.int64, count=len(tokens))
    return np.fromiter((vocab.get(t, _UNKNOWN) for t in tokens), dtype=np.int64, count=len(tokens))


def _function_flags(tokens: Tokens, words: frozenset[str]) -> np.ndarray:
    return np.fromiter((t.lower() in words for t in tokens), dtype=np.bool_, count=len(tokens))
