"""The metric protocol: per-segment sufficient statistics, and scores from statistics.

Every metric turns token sequences into an array of shape ``(n_segments, n_stats)``.
The score of a segment is ``score(stats[i])``, of a document or a system
``score(stats[rows].sum(0))``, of a bootstrap sample ``score(stats[idx].sum(0))``.
``score`` is vectorised over leading axes: ``(..., n_stats) -> (...)``.

Reference-side work (n-gram counts, NIST information weights) is done once by
``prepare(refs)`` and shared by every system scored against the same references.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from itertools import chain, repeat
from typing import Any, Callable, ClassVar, Sequence

import numpy as np

from metaeval.errors import UsageError

#: One segment's tokens.
Tokens = Sequence[str]
#: References as ``[n_refs][n_segments]`` token lists (docs/style.md: ``hyps, refs`` order).
Refs = Sequence[Sequence[Tokens]]


class Metric(ABC):
    """Base class for metrics. Subclasses are frozen dataclasses of their options."""

    #: Registry name, e.g. ``"bleu"``.
    name: ClassVar[str]
    #: Whether a higher score means a better translation.
    higher_is_better: ClassVar[bool] = True
    #: Whether scoring runs compiled kernels (numba, loaded from its cache on first use: about
    #: 130 MB of a process's memory, see :meth:`preload`).
    compiled_kernels: ClassVar[bool] = False
    #: Whether scoring one system costs far more than preparing the references (TER's shift
    #: search, METEOR's alignment). A run with workers then spreads the systems of one
    #: segmenter over several tasks; otherwise (the default) they all go to one task, which
    #: prepares the references once, as a run in one process does.
    split_systems: ClassVar[bool] = False

    @property
    @abstractmethod
    def stat_names(self) -> tuple[str, ...]:
        """Names of the columns of :meth:`segment_stats`."""

    @abstractmethod
    def signature(self) -> str:
        """Every option that changes a number, e.g. ``bleu|n:4|smooth:mteval|version:...``."""

    def reuse_key(self) -> str | None:
        """What one segment's statistics depend on, so they can be reused across segmenters.

        ``"tokens"``: only that segment's hypothesis and reference tokens (BLEU, TER, GTM,
        METEOR); ``"chars"``: only their characters, spaces aside (chrF); ``None``: also
        other segments (NIST's corpus-wide information weights), so nothing is reused.
        """
        return None

    def combine_references(self, per_reference: Sequence[np.ndarray]) -> np.ndarray | None:
        """Statistics against several references from the statistics against each alone
        (``[n_segments, n_stats]`` each, in reference order), or None when they are not a
        function of those (default). A run keeps each reference's statistics, so a later run on
        several references reads them instead of scoring again (TER: the fewest edits and the
        mean reference length; METEOR, chrF: the first reference with the best sentence score).
        BLEU and NIST clip each n-gram by its largest count over the references and GTM
        matches against the references joined: theirs are not such a function."""
        return None

    def max_tokens(self) -> int | None:
        """Longest segment, in tokens on either side, the metric scores (None: no limit).

        Callers that know where a segment comes from check it first, so the error can name the
        file, system and segment (:func:`metaeval.scoring.check_lengths`).
        """
        return None

    def preload(self) -> None:
        """Load what scoring needs now. A run calls it before it forks worker processes, so
        that they share those pages with this process instead of each loading its own copy.
        Default: with :attr:`compiled_kernels`, score one small pair, which loads them."""
        if self.compiled_kernels:
            self.stats([["a", "b", "c"]], [[["c", "a", "b"]]])

    def prepare(self, refs: Refs) -> Any:
        """Reference-side statistics shared by all systems. Default: the references as given."""
        return refs

    @abstractmethod
    def segment_stats(self, hyps: Sequence[Tokens], prepared: Any) -> np.ndarray:
        """Sufficient statistics, float64 array ``(len(hyps), n_stats)``."""

    @abstractmethod
    def score(self, stats: np.ndarray) -> np.ndarray:
        """Scores from statistics, vectorised over leading axes ``(..., n_stats) -> (...)``."""

    # Convenience -----------------------------------------------------------------
    def stats(self, hyps: Sequence[Tokens], refs: Refs) -> np.ndarray:
        """``segment_stats(hyps, prepare(refs))``."""
        _check_lengths(hyps, refs)
        return self.segment_stats(hyps, self.prepare(refs))

    def sentence_scores(self, hyps: Sequence[Tokens], refs: Refs) -> np.ndarray:
        return self.score(self.stats(hyps, refs))

    def corpus_score(self, hyps: Sequence[Tokens], refs: Refs) -> float:
        return float(self.score(self.stats(hyps, refs).sum(0)))


def segment_offsets(segments: Sequence[Tokens]) -> np.ndarray:
    """Where each segment's tokens start in their concatenation: segment ``s`` is
    ``flat[offsets[s]:offsets[s + 1]]`` (int64, ``len(segments) + 1`` values)."""
    offsets = np.zeros(len(segments) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, segments), dtype=np.int64, count=len(segments)), out=offsets[1:])
    return offsets


def known_token_ids(segments: Sequence[Tokens], vocab: dict[str, int], unknown: int, count: int) -> np.ndarray:
    """The ``vocab`` id of every token of ``segments``, in order (``unknown`` for a token not in
    it), as one int64 array of the ``count`` tokens, mapped in one pass."""
    return np.fromiter(map(vocab.get, chain.from_iterable(segments), repeat(unknown)), dtype=np.int64, count=count)


def first_best_reference(per_reference: Sequence[np.ndarray], scores: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Per segment, the statistics of the first reference with the highest score: ``per_reference``
    holds ``[n_segments, n_stats]`` statistics per reference, ``scores`` maps their stack
    ``[n_refs, n_segments, n_stats]`` to ``[n_refs, n_segments]`` (equal maxima keep the first,
    as METEOR and sacrebleu's chrF replace only on a strictly greater score)."""
    stacked = np.stack([np.asarray(stats, dtype=np.float64) for stats in per_reference])
    best = np.argmax(scores(stacked), axis=0)
    return stacked[best, np.arange(stacked.shape[1])]


def _check_lengths(hyps: Sequence[Tokens], refs: Refs) -> None:
    lengths = [len(hyps)] + [len(r) for r in refs]
    if len(set(lengths)) != 1:
        raise ValueError(f"hyps and refs must have the same number of segments, got {lengths}")
    if not refs:
        raise ValueError("at least one reference is required")


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"bleu:n=18,smooth=none"`` into ``("bleu", {"n": "18", "smooth": "none"})``."""
    name, _, rest = spec.strip().partition(":")
    options: dict[str, str] = {}
    if rest:
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            if not eq or not key.strip():
                raise UsageError(f"metric spec {spec!r}: expected key=value options, got {item!r}")
            options[key.strip()] = value.strip()
    return name.strip().lower(), options


def coerce_options(cls: type, spec: str, options: dict[str, str], aliases: dict[str, str] | None = None) -> dict[str, Any]:
    """Convert string options to the types of ``cls``'s dataclass fields, with clear errors."""
    aliases = aliases or {}
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    out: dict[str, Any] = {}
    for key, raw in options.items():
        fname = aliases.get(key, key)
        if fname not in fields:
            known = sorted(set(fields) | set(aliases))
            raise UsageError(f"metric spec {spec!r}: unknown option {key!r}; known options: {', '.join(known)}")
        default = fields[fname].default
        kind = type(default) if default is not dataclasses.MISSING and default is not None else str
        try:
            if kind is bool:
                if raw.lower() not in ("1", "0", "true", "false", "yes", "no"):
                    raise ValueError(raw)
                out[fname] = raw.lower() in ("1", "true", "yes")
            else:
                out[fname] = kind(raw)
        except ValueError:
            raise UsageError(f"metric spec {spec!r}: option {key}={raw!r} is not a valid {kind.__name__}") from None
    return out
