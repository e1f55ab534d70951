"""TER (Snover et al. 2006) as tercom 0.7.25 computes it, and 1 - TER (Li et al. 2011).

Definition (docs/design.md, "Metrics"): the fewest edits over the references, counting
insertions, deletions, substitutions and shifts of contiguous blocks, found by tercom's
beam search and greedy shift search (:mod:`metaeval.metrics.tercom`), run as ``tercom -s``:
case kept, no normalisation, no punctuation removal. Tokens are the given segments.

Statistics per segment: ``[edits, ref_len]`` where ``edits`` is the fewest edits over the
references and ``ref_len`` the average reference length. ``TER = edits / ref_len``; as in
tercom, a zero length scores 1 when there are edits and 0 otherwise. A corpus or document
scores its summed statistics. ``invert=True`` gives ``1 - TER`` (higher is better).

Length guard: tercom's search costs grow faster than the square of the segment length (on
real paragraphs about 0.1 s for a 500-token pair, 0.3-0.8 s for 1000, 0.9-2.6 s for 2000,
about ten minutes for 4000; 25 s for 1000 tokens whose 7-token blocks are shuffled;
``benchmarks/ter_lengths.json``), so a segment longer than ``max_len`` tokens
(default :data:`DEFAULT_MAX_LEN`, at most :data:`MAX_LEN_BOUND`) on either side is an
error that names it, never an approximation: every number TER reports is tercom's. The
longest segment of the shared evaluation data is 753 ``char`` tokens
(``benchmarks/ter_lengths.py`` measures both). ``max_len`` changes no number, so it is not
part of the signature.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from itertools import chain, repeat
from typing import ClassVar, Iterable, Iterator, Sequence

import numpy as np

import metaeval
from metaeval.errors import MetaevalError
from metaeval.metrics.base import Metric, Refs, Tokens

#: The tool and version whose numbers :mod:`metaeval.metrics.tercom` reproduces (imported
#: on first use: it compiles its kernels with numba).
TOOL, TOOL_VERSION = "tercom", "0.7.25"

#: Longest segment, in tokens, that TER scores by default (``ter:max_len=N`` changes it).
DEFAULT_MAX_LEN = 1000
#: Upper bound of ``max_len``: a pair of 2000-token paragraphs takes up to about 3 s, of 4000
#: about ten minutes (``benchmarks/ter_lengths.py``).
MAX_LEN_BOUND = 2000

#: Id given to every hypothesis token that occurs in no reference. Such tokens never match,
#: so one shared id gives the same edits as distinct ones.
_UNSEEN = -1


class SegmentTooLong(MetaevalError):
    """A segment above TER's ``max_len``: ``side`` (``hypothesis``/``reference N``), its 0-based
    ``index`` among the segments scored, its ``length`` and the ``limit``."""

    def __init__(self, side: str, index: int, length: int, limit: int) -> None:
        self.side, self.index, self.length, self.limit = side, index, length, limit
        super().__init__(
            f"ter: the {side} of segment {index + 1} has {length} tokens, above the limit of {limit} "
            f"(tercom's search time grows faster than the square of the length); raise it with the "
            f"option max_len (up to {MAX_LEN_BOUND}) or use a coarser segmenter"
        )


class _LowercaseIds(dict):
    """Token -> id of its lowercased form in ``vocab`` (:data:`_UNSEEN` if none); each distinct
    token is lowercased once, on first sight."""

    def __init__(self, vocab: dict[str, int]) -> None:
        super().__init__()
        self.vocab = vocab

    def __missing__(self, token: str) -> int:
        value = self[token] = self.vocab.get(token.lower(), _UNSEEN)
        return value


@dataclass(frozen=True)
class PreparedRefs:
    """References as integer ids in one flat array, with the token-to-id map.

    Segment ``s`` of reference set ``r`` is ``flat[offsets[k]:offsets[k + 1]]`` with
    ``k = r * n_segments + s``; ``counts`` holds each reference set's number of segments.
    ``vocab`` maps the (lowercased, if ``lowercase``) reference tokens to ids.
    """

    vocab: dict[str, int]
    flat: np.ndarray
    offsets: np.ndarray
    counts: tuple[int, ...]
    lowercase: bool = False
    _lowercase_ids: dict[str, int] = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_lowercase_ids", _LowercaseIds(self.vocab))

    def ids(self, tokens: Iterable[str], count: int) -> np.ndarray:
        """Ids of ``count`` hypothesis tokens, :data:`_UNSEEN` for those in no reference.

        One pass over all tokens, one dictionary lookup each, without a Python frame per token.
        """
        if self.lowercase:
            found: Iterator[int] = map(self._lowercase_ids.__getitem__, tokens)
        else:
            found = map(self.vocab.get, tokens, repeat(_UNSEEN))
        return np.fromiter(found, dtype=np.int64, count=count)


@dataclass(frozen=True)
class TER(Metric):
    """TER as tercom 0.7.25 ``-s``; ``case_sensitive=False`` lowercases first (tercom without ``-s``).

    ``invert=True`` scores ``1 - TER`` and is higher-better (spec ``1-ter``). A hypothesis or
    reference longer than ``max_len`` tokens raises :class:`SegmentTooLong`.
    """

    case_sensitive: bool = True
    invert: bool = False
    max_len: int = DEFAULT_MAX_LEN

    name: ClassVar[str] = "ter"
    compiled_kernels: ClassVar[bool] = True
    split_systems: ClassVar[bool] = True  # the shift search dwarfs mapping references to ids

    def __post_init__(self) -> None:
        for field in ("case_sensitive", "invert"):
            value = getattr(self, field)
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"ter: {field} must be true or false, got {field}={value!r}")
            object.__setattr__(self, field, bool(value))
        if isinstance(self.max_len, bool) or not isinstance(self.max_len, (int, np.integer)) or not (
            1 <= self.max_len <= MAX_LEN_BOUND
        ):
            raise ValueError(f"ter: max_len must be an integer from 1 to {MAX_LEN_BOUND}, got max_len={self.max_len!r}")
        object.__setattr__(self, "max_len", int(self.max_len))

    @property
    def higher_is_better(self) -> bool:  # type: ignore[override]
        """``1 - TER`` is higher-better, TER lower-better."""
        return self.invert

    @property
    def stat_names(self) -> tuple[str, ...]:
        return ("edits", "ref_len")

    def reuse_key(self) -> str | None:
        """Edits depend on that segment's tokens only."""
        return "tokens"

    def max_tokens(self) -> int:
        """Longest segment (in tokens, either side) this metric scores; see :class:`SegmentTooLong`."""
        return self.max_len

    def signature(self) -> str:
        name = "1-ter" if self.invert else "ter"
        case = "mixed" if self.case_sensitive else "lc"
        return (
            f"{name}|case:{case}|norm:no|punct:yes|impl:{TOOL}-{TOOL_VERSION}"
            f"|version:{metaeval.__version__}"
        )

    def prepare(self, refs: Refs) -> PreparedRefs:
        """Map reference tokens to integer ids once (first occurrence order), in one flat array;
        every system reuses it."""
        segments = [seg for ref_set in refs for seg in ref_set]
        lengths = _lengths(segments)
        tokens = list(chain.from_iterable(segments))
        if not self.case_sensitive:
            tokens = list(map(str.lower, tokens))
        vocab = {t: i for i, t in enumerate(dict.fromkeys(tokens))}
        flat = np.fromiter(map(vocab.__getitem__, tokens), dtype=np.int64, count=len(tokens))
        counts = tuple(len(ref_set) for ref_set in refs)
        return PreparedRefs(vocab, flat, _offsets(lengths), counts, not self.case_sensitive)

    def kernel_pairs(self, hyps: Sequence[Tokens], prepared: PreparedRefs,
                     lengths: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(hyp_flat, hyp_offsets, ref_flat, ref_offsets)`` of every (reference set, segment) pair.

        The hypothesis tokens of all segments are mapped to reference ids in one pass; with
        several references the hypotheses repeat once per reference set, as the pairs are
        ordered reference set by reference set. ``lengths``: the hypotheses' token counts, if
        the caller has them.
        """
        if lengths is None:
            lengths = _lengths(hyps)
        ids = prepared.ids(chain.from_iterable(hyps), int(lengths.sum()))
        n_refs = len(prepared.counts)
        return np.tile(ids, n_refs), _offsets(np.tile(lengths, n_refs)), prepared.flat, prepared.offsets

    def segment_stats(self, hyps: Sequence[Tokens], prepared: PreparedRefs) -> np.ndarray:
        """``[edits, average reference length]`` per segment, float64 ``(len(hyps), 2)``."""
        if not isinstance(prepared, PreparedRefs):
            prepared = self.prepare(prepared)
        lengths = sorted({len(hyps)} | set(prepared.counts))
        if len(lengths) != 1:
            raise ValueError(f"ter: hyps and refs must have the same number of segments, got {lengths}")
        n_seg = len(hyps)
        hyp_lengths = _lengths(hyps)
        ref_lengths = np.diff(prepared.offsets)
        for side, lengths_of in [("hypothesis", hyp_lengths)] + [
            (f"reference {r + 1}", ref_lengths[r * n_seg:(r + 1) * n_seg]) for r in range(len(prepared.counts))
        ]:
            over = np.flatnonzero(lengths_of > self.max_len)
            if over.size:
                raise SegmentTooLong(side, int(over[0]), int(lengths_of[over[0]]), self.max_len)
        from metaeval.metrics import tercom

        return tercom.best_edits_flat(*self.kernel_pairs(hyps, prepared, hyp_lengths), len(prepared.counts))

    def combine_references(self, per_reference: Sequence[np.ndarray]) -> np.ndarray:
        """tercom over several references: the fewest edits, and the mean reference length
        (as :func:`~metaeval.metrics.tercom.best_edits_flat` forms them)."""
        stacked = np.stack([np.asarray(stats, dtype=np.float64) for stats in per_reference])
        out = np.empty(stacked.shape[1:], dtype=np.float64)
        out[:, 0] = stacked[:, :, 0].min(axis=0)
        out[:, 1] = stacked[:, :, 1].mean(axis=0)
        return out

    def score(self, stats: np.ndarray) -> np.ndarray:
        """``edits / ref_len`` (1 if ``ref_len`` is 0 with edits, 0 with none); ``1 -`` that if inverted."""
        stats = np.asarray(stats, dtype=np.float64)
        edits = stats[..., 0]
        length = stats[..., 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            ter = np.where(length > 0, edits / np.where(length > 0, length, 1.0), np.where(edits > 0, 1.0, 0.0))
        return 1.0 - ter if self.invert else ter


def _lengths(segments: Sequence[Tokens]) -> np.ndarray:
    """Token count of each segment, int64."""
    return np.fromiter(map(len, segments), dtype=np.int64, count=len(segments))


def _offsets(lengths: np.ndarray) -> np.ndarray:
    """Start of each segment in a flat array, and the total at the end."""
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets
