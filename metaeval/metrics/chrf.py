"""chrF (Popović 2015) and chrF++ (Popović 2017) as sacrebleu's ``CHRF`` computes them.

Statistics are sacrebleu's per-segment ``[hyp, ref, match]`` counts for every character
order then every word order, taken from the best reference of each segment (the first with
the highest sentence chrF, as sacrebleu chooses it). Character n-grams are those of the
segment with its spaces removed, so chrF does not depend on the segmentation, while chrF++'s
word n-grams do. The score is sacrebleu's F-beta score with its effective-order averaging
(``eps_smoothing=False``), **divided by 100**: 0..1 like the other metrics.

chrF++ passes each segment's tokens, joined with single spaces, to sacrebleu. chrF counts
its character n-grams with :mod:`metaeval.metrics.ngrams` over one reference at a time:
``match_n = sum_g min(c_hyp(g), c_ref(g))``, ``ref_n = max(len_ref - n + 1, 0)`` and
``hyp_n = max(len_hyp - n + 1, 0)``, or 0 when the reference has no n-gram of that order, as
in sacrebleu's ``_get_match_statistics``. The statistics are identical to sacrebleu's
(``tests/metrics/test_chrf.py`` compares them on real data with two references) and computed
faster (``python -m benchmarks.chrf_stats`` times both). The signature keeps naming the
sacrebleu version whose definition this is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Sequence

import numpy as np

import metaeval
from metaeval.errors import MissingDependencyError
from metaeval.metrics.base import Metric, Refs, Tokens, first_best_reference
from metaeval.metrics.ngrams import clipped_matches, index_references, ngram_totals


def _sacrebleu_chrf():
    try:
        import sacrebleu
        from sacrebleu.metrics.chrf import CHRF
    except ImportError:  # pragma: no cover - sacrebleu is a dependency
        raise MissingDependencyError("chrF needs sacrebleu: pip install 'sacrebleu>=2.4,<3'") from None
    return sacrebleu.__version__, CHRF


def _join(segments: Sequence[Tokens]) -> list[str]:
    return [" ".join(tokens) for tokens in segments]


def _characters(segments: Sequence[Tokens]) -> list[list[str]]:
    """The characters of each segment with its spaces removed (sacrebleu: ``"".join(line.split())``)."""
    return [list("".join("".join(tokens).split())) for tokens in segments]


@dataclass(frozen=True)
class ChrF(Metric):
    """chrF with ``char_order`` character and ``word_order`` word n-grams (chrF++: 6, 2) and ``beta``."""

    char_order: int = 6
    word_order: int = 0
    beta: int = 2

    name: ClassVar[str] = "chrf"
    higher_is_better: ClassVar[bool] = True
    compiled_kernels: ClassVar[bool] = True

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
        """chrF: per reference, the character n-gram index and lengths of its segments;
        chrF++: a sacrebleu ``CHRF`` holding the n-grams of the joined references."""
        if not refs:
            raise ValueError("at least one reference is required")
        if self.word_order:
            return self._sacrebleu(refs)
        prepared = []
        for ref in refs:
            chars = _characters(ref)
            lengths = np.fromiter(map(len, chars), dtype=np.int64, count=len(chars))
            prepared.append((index_references([chars], self.char_order), lengths))
        return prepared

    def segment_stats(self, hyps: Sequence[Tokens], prepared) -> np.ndarray:
        if self.word_order:
            n_seg = len(prepared._ref_cache)
            if len(hyps) != n_seg:
                raise ValueError(f"hyps and refs must have the same number of segments, got {[len(hyps), n_seg]}")
            stats = prepared._extract_corpus_statistics(_join(hyps), None)
            return np.asarray(stats, dtype=np.float64).reshape(len(hyps), 3 * self.order)
        chars = _characters(hyps)
        hyp_totals = ngram_totals(np.fromiter(map(len, chars), dtype=np.int64, count=len(chars)), self.char_order)
        per_ref = []
        for index, ref_lengths in prepared:
            matches = clipped_matches(chars, index, self.char_order)
            ref_totals = ngram_totals(ref_lengths, self.char_order)
            counted = np.where(ref_totals > 0, hyp_totals, 0)
            per_ref.append(np.stack([counted, ref_totals, matches], axis=-1).reshape(len(hyps), 3 * self.order).astype(np.float64))
        if len(per_ref) == 1:
            return per_ref[0]
        return self._best_reference(per_ref)

    def combine_references(self, per_reference: Sequence[np.ndarray]) -> np.ndarray | None:
        """chrF: :meth:`_best_reference`. chrF++ (word n-grams) is scored by sacrebleu itself,
        against the references together: None."""
        return None if self.word_order else self._best_reference(per_reference)

    def _best_reference(self, per_reference: Sequence[np.ndarray]) -> np.ndarray:
        """The statistics of the first reference with the highest sentence chrF (sacrebleu:
        f > best, from -1)."""
        return first_best_reference(per_reference, lambda stacked: np.stack([self._percent(stats) for stats in stacked]))

    def score(self, stats: np.ndarray) -> np.ndarray:
        """sacrebleu's ``CHRF._compute_f_score`` / 100, vectorised over leading axes."""
        return self._percent(stats, percent=False)

    def _percent(self, stats: np.ndarray, percent: bool = True) -> np.ndarray:
        """sacrebleu's ``CHRF._compute_f_score``, on its 0..100 scale with ``percent``
        (the value that picks the best reference, rounded as sacrebleu rounds it)."""
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
        return np.where(avg_prec + avg_rec > 0, 100 * f if percent else f, 0.0)
