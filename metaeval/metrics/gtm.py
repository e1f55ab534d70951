"""GTM: the General Text Matcher F-measure (Melamed, Green & Turian 2003), as in GTM 1.4.

This reproduces GTM 1.4 run with ``-t +s +d -e E`` on pre-tokenized text:

- a *hit* is a pair (hypothesis position, reference position) with identical tokens;
- all references of a segment are joined into one sequence, so that a run never crosses
  from one reference into the next;
- candidate runs are maximal contiguous diagonals of hits. They are taken longest
  first; on equal length the later hypothesis position wins, then the later reference
  position. A run that overlaps a hypothesis or reference position already used is cut
  down to its unused stretches, which compete again. Runs are taken until their total
  length reaches the budget ``min(|hyp|, mean reference length)``; the last run is cut
  to the budget;
- ``MMS = (sum of len(run) ** e) ** (1 / e)``, ``P = MMS / |hyp|``,
  ``R = MMS / mean reference length`` and ``F = 2PR / (P + R)``.

Statistics per segment are ``(mms, hyp_len, ref_len)``, with ``ref_len`` the mean
reference length, so the system level is ``P = sum MMS / sum |hyp|`` and
``R = sum MMS / sum ref_len``. An empty hypothesis scores 0.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import numpy as np
from metaeval.lazyjit import njit

import metaeval
from metaeval.metrics.base import Metric, Refs, Tokens, known_token_ids, segment_offsets

#: Token id for a hypothesis token that no reference contains (it matches nothing).
_UNKNOWN = -2
#: Token id of the separator placed between joined references (it matches nothing).
_SEPARATOR = -1
#: Bits per field of a packed run key ``(length, hyp start, ref start)``.
_BITS = 21
_MASK = (1 << _BITS) - 1


@njit(cache=True, nogil=True)
def _run_key(length: int, i: int, j: int) -> int:
    return (length << (2 * _BITS)) | (i << _BITS) | j


@njit(cache=True, nogil=True)
def _push_free_stretches(heap, length, i, j, used_h, used_r):  # noqa: ANN001, ANN202
    """Push the maximal unused stretches of the run ``(length, i, j)`` onto ``heap``."""
    start = -1
    for t in range(length + 1):
        free = t < length and not used_h[i + t] and not used_r[j + t]
        if free and start < 0:
            start = t
        elif not free and start >= 0:
            heapq.heappush(heap, -_run_key(t - start, i + start, j + start))
            start = -1


@njit(cache=True, nogil=True)
def _mms(hyp: np.ndarray, ref: np.ndarray, budget: float, e: float, buffer: np.ndarray) -> float:
    """Maximum match size of ``hyp`` against the joined references ``ref`` (GTM 1.4);
    ``buffer``: at least ``(len(hyp) + 1) * (len(ref) + 1)`` booleans to work in."""
    n1 = hyp.shape[0]
    n2 = ref.shape[0]
    if n1 == 0 or n2 == 0 or budget <= 0.0:
        return 0.0
    hit = buffer[: (n1 + 1) * (n2 + 1)].reshape((n1 + 1, n2 + 1))
    for i in range(n1):
        for j in range(n2):
            hit[i, j] = hyp[i] == ref[j]
        hit[i, n2] = False
    hit[n1, :] = False
    heap = [np.int64(0)]
    heap.pop()
    for i in range(n1):
        for j in range(n2):
            if hit[i, j] and not (i > 0 and j > 0 and hit[i - 1, j - 1]):
                length = 1
                while hit[i + length, j + length]:
                    length += 1
                heapq.heappush(heap, -_run_key(length, i, j))
    used_h = np.zeros(n1, dtype=np.bool_)
    used_r = np.zeros(n2, dtype=np.bool_)
    total = 0.0
    acc = 0.0
    while len(heap) > 0 and total < budget:
        key = -heapq.heappop(heap)
        length = key >> (2 * _BITS)
        i = (key >> _BITS) & _MASK
        j = key & _MASK
        blocked = False
        for t in range(length):
            if used_h[i + t] or used_r[j + t]:
                blocked = True
                break
        if blocked:
            _push_free_stretches(heap, length, i, j, used_h, used_r)
            continue
        for t in range(length):
            used_h[i + t] = True
            used_r[j + t] = True
        take = min(float(length), budget - total)
        acc += take**e
        total += take
    return acc ** (1.0 / e)


@njit(cache=True, nogil=True)
def _mms_all(hyp_flat, hyp_off, ref_flat, ref_off, budgets, e):  # noqa: ANN001, ANN202
    """:func:`_mms` of every segment ``s``: ``hyp_flat[hyp_off[s]:hyp_off[s + 1]]`` against
    the matching slice of ``ref_flat``, with budget ``budgets[s]``: one call for all of them."""
    n = hyp_off.shape[0] - 1
    out = np.empty(n, dtype=np.float64)
    cells = 1
    for s in range(n):
        cells = max(cells, (hyp_off[s + 1] - hyp_off[s] + 1) * (ref_off[s + 1] - ref_off[s] + 1))
    buffer = np.empty(cells, dtype=np.bool_)
    for s in range(n):
        out[s] = _mms(hyp_flat[hyp_off[s] : hyp_off[s + 1]], ref_flat[ref_off[s] : ref_off[s + 1]], budgets[s], e, buffer)
    return out


@dataclass(frozen=True)
class GTMReferences:
    """References prepared once: a shared vocabulary, each segment's joined references as ids
    (``flat[offsets[s]:offsets[s + 1]]``) and mean lengths."""

    vocab: dict[str, int]
    flat: np.ndarray
    offsets: np.ndarray
    mean_len: np.ndarray


@dataclass(frozen=True)
class GTM(Metric):
    """GTM 1.4 F-measure with run-length exponent ``e`` (``gtm:e=2``); higher is better."""

    e: float = 1.0

    name: ClassVar[str] = "gtm"
    compiled_kernels: ClassVar[bool] = True
    higher_is_better: ClassVar[bool] = True

    def __post_init__(self) -> None:
        if isinstance(self.e, bool) or not isinstance(self.e, (int, float)):
            raise ValueError(f"gtm: e must be a number, got {self.e!r}")
        if not math.isfinite(self.e) or self.e < 1.0:
            raise ValueError(f"gtm: e must be a finite number >= 1, got {self.e!r}")
        object.__setattr__(self, "e", float(self.e))

    @property
    def stat_names(self) -> tuple[str, ...]:
        return ("mms", "hyp_len", "ref_len")

    def reuse_key(self) -> str | None:
        """Segment statistics depend on that segment's tokens only."""
        return "tokens"

    def signature(self) -> str:
        return f"gtm|e:{self.e:g}|version:{metaeval.__version__}"

    def prepare(self, refs: Refs) -> GTMReferences:
        vocab: dict[str, int] = {}
        ids: list[int] = []
        n_refs = len(refs)
        n_seg = len(refs[0]) if n_refs else 0
        offsets = np.zeros(n_seg + 1, dtype=np.int64)
        mean_len = np.zeros(n_seg, dtype=np.float64)
        for s in range(n_seg):
            for r in range(n_refs):
                if r:
                    ids.append(_SEPARATOR)
                ids.extend(vocab.setdefault(tok, len(vocab)) for tok in refs[r][s])
            offsets[s + 1] = len(ids)
            mean_len[s] = sum(len(refs[r][s]) for r in range(n_refs)) / n_refs
        return GTMReferences(vocab, np.asarray(ids, dtype=np.int64), offsets, mean_len)

    def segment_stats(self, hyps: Sequence[Tokens], prepared: Any) -> np.ndarray:
        refs: GTMReferences = prepared
        if len(hyps) != len(refs.mean_len):
            raise ValueError(f"gtm: {len(hyps)} hypotheses for {len(refs.mean_len)} reference segments")
        offsets = segment_offsets(hyps)
        ids = known_token_ids(hyps, refs.vocab, _UNKNOWN, int(offsets[-1]))
        stats = np.zeros((len(hyps), 3), dtype=np.float64)
        stats[:, 1] = np.diff(offsets)
        stats[:, 2] = refs.mean_len
        if len(hyps):
            stats[:, 0] = _mms_all(ids, offsets, refs.flat, refs.offsets, np.minimum(stats[:, 1], refs.mean_len), self.e)
        return stats

    def score(self, stats: np.ndarray) -> np.ndarray:
        stats = np.asarray(stats, dtype=np.float64)
        mms, hyp_len, ref_len = stats[..., 0], stats[..., 1], stats[..., 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(hyp_len > 0, mms / hyp_len, 0.0)
            r = np.where(ref_len > 0, mms / ref_len, 0.0)
            f = np.where(p + r > 0, 2 * p * r / (p + r), 0.0)
        return f
