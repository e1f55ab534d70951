"""chrF (Popović 2015) and chrF++ (Popović 2017) through sacrebleu's ``CHRF``.

Each segment's tokens are joined with single spaces and passed to sacrebleu, so chrF
(which ignores spaces) does not depend on the segmentation, while chrF++'s word n-grams
do. Statistics are sacrebleu's per-segment ``[hyp, ref, match]`` counts for every
character order then every word order, taken from the best reference of each segment
(the one with the highest sentence chrF, as sacrebleu chooses it). The score is
sacrebleu's F-beta score with its effective-order averaging (``eps_smoothing=False``),
**divided by 100**: 0..1 like the other metrics.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Sequence

import numpy as np

import metaeval
from metaeval.errors import MissingDependencyError
from metaeval.metrics.base import Metric, Refs, Tokens


def _sacrebleu_chrf():
    try:
        import sacrebleu
        from sacrebleu.metrics.chrf import CHRF
    except ImportError:  # pragma: no cover - sacrebleu is a dependency
        raise MissingDependencyError("chrF needs sacrebleu: pip install 'sacrebleu>=2.4,<3'") from None
    return sacrebleu.__version__, CHRF


def _join(segments: Sequence[Tokens]) -> list[str]:
    return [" ".join(tokens) for tokens in segments]


@dataclass(frozen=True)
class ChrF(Metric):
    """chrF with ``char_order`` character and ``word_order`` word n-grams (chrF++: 6, 2) and ``beta``."""

    char_order: int = 6
    word_order: int = 0
    beta: int = 2

    name: ClassVar[str] = "chrf"
    higher_is_better: ClassVar[bool] = True

    def __post_init__(self) -> None:
        for field, low in (("char_order", 1), ("word_order", 0), ("beta", 0)):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
                raise ValueError(f"chrf: {field} must be an integer >= {low}, got {field}={value!r}")
            object.__setattr__(self, field, int(value))

    @property
    def order(self) -> int:
        return self.char_order + self.word_order

    @property
    def stat_names(self) -> tuple[str, ...]:
        kinds = [f"char{i}" for i in range(1, self.char_order + 1)] + [f"word{i}" for i in range(1, self.word_order + 1)]
        return tuple(f"{kind}_{part}" for kind in kinds for part in ("hyp", "ref", "match"))

    def reuse_key(self) -> str | None:
        """chrF sees characters only (spaces ignored); chrF++ also sees the words."""
        return "chars" if self.word_order == 0 else "tokens"

    def signature(self) -> str:
        version, _ = _sacrebleu_chrf()
        return (
            f"chrf|nc:{self.char_order}|nw:{self.word_order}|beta:{self.beta}|case:mixed|space:no"
            f"|sacrebleu:{version}|version:{metaeval.__version__}"
        )

    def _sacrebleu(self, refs: Refs | None = None):
        _, chrf_cls = _sacrebleu_chrf()
        joined = None if refs is None else [_join(ref) for ref in refs]
        return chrf_cls(char_order=self.char_order, word_order=self.word_order, beta=self.beta, references=joined)

    def prepare(self, refs: Refs):
        """A sacrebleu ``CHRF`` holding the n-grams of the joined references."""
        if not refs:
            raise ValueError("at least one reference is required")
        return self._sacrebleu(refs)

    def segment_stats(self, hyps: Sequence[Tokens], prepared) -> np.ndarray:
        n_seg = len(prepared._ref_cache)
        if len(hyps) != n_seg:
            raise ValueError(f"hyps and refs must have the same number of segments, got {[len(hyps), n_seg]}")
        stats = prepared._extract_corpus_statistics(_join(hyps), None)
        return np.asarray(stats, dtype=np.float64).reshape(len(hyps), 3 * self.order)

    def score(self, stats: np.ndarray) -> np.ndarray:
        """sacrebleu's ``CHRF._compute_f_score`` / 100, vectorised over leading axes."""
        stats = np.asarray(stats, dtype=np.float64)
        if stats.shape[-1] != 3 * self.order:
            raise ValueError(f"chrf: expected {3 * self.order} statistics, got {stats.shape[-1]}")
        factor = float(self.beta**2)
        lead = stats.shape[:-1]
        avg_prec, avg_rec, effective = np.zeros(lead), np.zeros(lead), np.zeros(lead)
        # orders summed one at a time, in sacrebleu's order, so that sums round identically
        with np.errstate(divide="ignore", invalid="ignore"):
            for i in range(self.order):
                n_hyp, n_ref, n_match = stats[..., 3 * i], stats[..., 3 * i + 1], stats[..., 3 * i + 2]
                used = (n_hyp > 0) & (n_ref > 0)
                avg_prec = avg_prec + np.where(used, n_match / np.where(used, n_hyp, 1.0), 0.0)
                avg_rec = avg_rec + np.where(used, n_match / np.where(used, n_ref, 1.0), 0.0)
                effective = effective + used
            avg_prec = np.where(effective > 0, avg_prec / np.maximum(effective, 1), 0.0)
            avg_rec = np.where(effective > 0, avg_rec / np.maximum(effective, 1), 0.0)
            denom = factor * avg_prec + avg_rec
            f = (1 + factor) * avg_prec * avg_rec / np.where(denom > 0, denom, 1.0)
        return np.where(avg_prec + avg_rec > 0, f, 0.0)
