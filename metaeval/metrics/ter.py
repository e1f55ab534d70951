"""TER (Snover et al. 2006) as tercom 0.7.25 computes it, and 1 - TER (Li et al. 2011).

Definition (DESIGN.md, "Metrics"): the fewest edits over the references, counting
insertions, deletions, substitutions and shifts of contiguous blocks, found by tercom's
beam search and greedy shift search (:mod:`metaeval.metrics.tercom`), run as ``tercom -s``:
case kept, no normalisation, no punctuation removal. Tokens are the given segments.

Statistics per segment: ``[edits, ref_len]`` where ``edits`` is the fewest edits over the
references and ``ref_len`` the average reference length. ``TER = edits / ref_len``; as in
tercom, a zero length scores 1 when there are edits and 0 otherwise. A corpus or document
scores its summed statistics. ``invert=True`` gives ``1 - TER`` (higher is better).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Sequence

import numpy as np

import metaeval
from metaeval.metrics.base import Metric, Refs, Tokens

#: The tool and version whose numbers :mod:`metaeval.metrics.tercom` reproduces (imported
#: on first use: it compiles its kernels with numba).
TOOL, TOOL_VERSION = "tercom", "0.7.25"

#: Id given to every hypothesis token that occurs in no reference. Such tokens never match,
#: so one shared id gives the same edits as distinct ones.
_UNSEEN = -1


@dataclass(frozen=True)
class PreparedRefs:
    """References as integer ids, ``ids[r][s]``, with the token-to-id map."""

    vocab: dict[str, int]
    ids: tuple[tuple[np.ndarray, ...], ...]


@dataclass(frozen=True)
class TER(Metric):
    """TER as tercom 0.7.25 ``-s``; ``case_sensitive=False`` lowercases first (tercom without ``-s``).

    ``invert=True`` scores ``1 - TER`` and is higher-better (spec ``1-ter``).
    """

    case_sensitive: bool = True
    invert: bool = False

    name: ClassVar[str] = "ter"

    def __post_init__(self) -> None:
        for field in ("case_sensitive", "invert"):
            value = getattr(self, field)
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"ter: {field} must be true or false, got {field}={value!r}")
            object.__setattr__(self, field, bool(value))

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

    def signature(self) -> str:
        name = "1-ter" if self.invert else "ter"
        case = "mixed" if self.case_sensitive else "lc"
        return (
            f"{name}|case:{case}|norm:no|punct:yes|impl:{TOOL}-{TOOL_VERSION}"
            f"|version:{metaeval.__version__}"
        )

    def _tokens(self, tokens: Tokens) -> Sequence[str]:
        return tokens if self.case_sensitive else [t.lower() for t in tokens]

    def prepare(self, refs: Refs) -> PreparedRefs:
        """Map reference tokens to integer ids once; every system reuses them."""
        vocab: dict[str, int] = {}
        ids = tuple(
            tuple(
                np.fromiter((vocab.setdefault(t, len(vocab)) for t in self._tokens(seg)), dtype=np.int64)
                for seg in ref_set
            )
            for ref_set in refs
        )
        return PreparedRefs(vocab, ids)

    def segment_stats(self, hyps: Sequence[Tokens], prepared: PreparedRefs) -> np.ndarray:
        """``[edits, average reference length]`` per segment, float64 ``(len(hyps), 2)``."""
        if not isinstance(prepared, PreparedRefs):
            prepared = self.prepare(prepared)
        lengths = sorted({len(hyps)} | {len(r) for r in prepared.ids})
        if len(lengths) != 1:
            raise ValueError(f"ter: hyps and refs must have the same number of segments, got {lengths}")
        vocab = prepared.vocab
        hyp_ids = [
            np.fromiter((vocab.get(t, _UNSEEN) for t in self._tokens(seg)), dtype=np.int64) for seg in hyps
        ]
        from metaeval.metrics import tercom

        return tercom.best_edits(hyp_ids, prepared.ids)

    def score(self, stats: np.ndarray) -> np.ndarray:
        """``edits / ref_len`` (1 if ``ref_len`` is 0 with edits, 0 with none); ``1 -`` that if inverted."""
        stats = np.asarray(stats, dtype=np.float64)
        edits = stats[..., 0]
        length = stats[..., 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            ter = np.where(length > 0, edits / np.where(length > 0, length, 1.0), np.where(edits > 0, 1.0, 0.0))
        return 1.0 - ter if self.invert else ter
