"""chrF (Popović 2015) and chrF++ (Popović 2017) as sacrebleu's ``CHRF`` computes them.

Statistics are sacrebleu's per-segment ``[hyp, ref, match]`` counts for every character
order then every word order, taken from the best reference of each segment (the first with
the highest sentence chrF, as sacrebleu chooses it). Character n-grams are those of the
segment with its spaces removed, so chrF does not depend on the segmentation, while chrF++'s
word n-grams do. The score is sacrebleu's F-beta score with its effective-order averaging
(``eps_smoothing=False``), **divided by 100**: 0..1 like the other metrics.

Two options of sacrebleu's ``CHRF``, both off by default as there:

- ``eps_smoothing=true``: the original chrF++.py's (and Moses', NLTK's) score: per order,
  ``P = match/hyp`` and ``R = match/ref`` (``1e-16`` when the count is 0), the F-beta of each
  order (``1e-16`` when ``P`` and ``R`` are 0), averaged over all ``char_order + word_order``
  orders. The best of several references is chosen by that score, as sacrebleu chooses it.
  sacrebleu's signature says ``eff:no`` for it; metaeval's says ``eps:yes``.
- ``whitespace=true``: character n-grams keep spaces. The text of a segment is its tokens
  joined with single spaces (as chrF++ is given them), so the character n-grams then depend on
  the segmentation too. The signature says ``space:yes``.

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


def _characters(segments: Sequence[Tokens], whitespace: bool = False) -> list[list[str]]:
    """The characters of each segment with its spaces removed (sacrebleu: ``"".join(line.split())``),
    or with ``whitespace`` those of its tokens joined with single spaces (sacrebleu's
    ``whitespace=True`` on that text)."""
    if whitespace:
        return [list(text) for text in _join(segments)]
    return [list("".join("".join(tokens).split())) for tokens in segments]


#: sacrebleu's ``eps`` of ``eps_smoothing``.
EPS = 1e-16


@dataclass(frozen=True)
class ChrF(Metric):
    """chrF with ``char_order`` character and ``word_order`` word n-grams (chrF++: 6, 2) and
    ``beta``; ``eps_smoothing`` and ``whitespace`` as sacrebleu's (module docstring)."""

    char_order: int = 6
    word_order: int = 0
    beta: int = 2
    eps_smoothing: bool = False
    whitespace: bool = False

    name: ClassVar[str] = "chrf"
    higher_is_better: ClassVar[bool] = True
    compiled_kernels: ClassVar[bool] = True

    def __post_init__(self) -> None:
        for field, low in (("char_order", 1), ("word_order", 0), ("beta", 0)):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
                raise ValueError(f"chrf: {field} must be an integer >= {low}, got {field}={value!r}")
            object.__setattr__(self, field, int(value))
        for field in ("eps_smoothing", "whitespace"):
            value = getattr(self, field)
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"chrf: {field} must be true or false, got {field}={value!r}")
            object.__setattr__(self, field, bool(value))

    @property
    def order(self) -> int:
        return self.char_order + self.word_order

    @property
    def stat_names(self) -> tuple[str, ...]:
        kinds = [f"char{i}" for i in range(1, self.char_order + 1)] + [f"word{i}" for i in range(1, self.word_order + 1)]
        return tuple(f"{kind}_{part}" for kind in kinds for part in ("hyp", "ref", "match"))

    def reuse_key(self) -> str | None:
        """chrF sees characters only (spaces ignored); chrF++ and chrF with ``whitespace`` also
        see where the tokens end."""
        return "chars" if self.word_order == 0 and not self.whitespace else "tokens"

    def signature(self) -> str:
        """``chrf|nc:6|nw:0|beta:2|case:mixed|space:no|sacrebleu:...|version:...``; ``space:yes``
        with ``whitespace``, ``|eps:yes`` after it with ``eps_smoothing`` (sacrebleu's ``eff:no``;
        without it the signature is the one written before the option existed)."""
        version, _ = _sacrebleu_chrf()
        space = "yes" if self.whitespace else "no"
        eps = "|eps:yes" if self.eps_smoothing else ""
        return (
            f"chrf|nc:{self.char_order}|nw:{self.word_order}|beta:{self.beta}|case:mixed|space:{space}{eps}"
            f"|sacrebleu:{version}|version:{metaeval.__version__}"
        )

    def _sacrebleu(self, refs: Refs | None = None):
        _, chrf_cls = _sacrebleu_chrf()
        joined = None if refs is None else [_join(ref) for ref in refs]
        return chrf_cls(char_order=self.char_order, word_order=self.word_order, beta=self.beta,
                        whitespace=self.whitespace, eps_smoothing=self.eps_smoothing, references=joined)

    def prepare(self, refs: Refs):
        """chrF: per reference, the character n-gram index and lengths of its segments;
        chrF++: a sacrebleu ``CHRF`` holding the n-grams of the joined references."""
        if not refs:
            raise ValueError("at least one reference is required")
        if self.word_order:
            return self._sacrebleu(refs)
        prepared = []
        for ref in refs:
            chars = _characters(ref, self.whitespace)
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
        chars = _characters(hyps, self.whitespace)
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
        f > best, from -1; with ``eps_smoothing``, the smoothed score)."""
        return first_best_reference(per_reference, lambda stacked: np.stack([self._percent(stats) for stats in stacked]))

    def score(self, stats: np.ndarray) -> np.ndarray:
        """sacrebleu's ``CHRF._compute_f_score`` / 100, vectorised over leading axes."""
        return self._percent(stats, percent=False)

    def _counts(self, stats: np.ndarray) -> np.ndarray:
        stats = np.asarray(stats, dtype=np.float64)
        if stats.shape[-1] != 3 * self.order:
            raise ValueError(f"chrf: expected {3 * self.order} statistics, got {stats.shape[-1]}")
        return stats

    def _eps_smoothed(self, stats: np.ndarray, percent: bool) -> np.ndarray:
        """sacrebleu's ``eps_smoothing=True`` score: the mean over all orders of each order's
        F-beta, with ``EPS`` for a precision or recall without n-grams and for an F of 0/0."""
        factor = float(self.beta**2)
        score = np.zeros(stats.shape[:-1])
        with np.errstate(divide="ignore", invalid="ignore"):
            for i in range(self.order):
                n_hyp, n_ref, n_match = stats[..., 3 * i], stats[..., 3 * i + 1], stats[..., 3 * i + 2]
                prec = np.where(n_hyp > 0, n_match / np.where(n_hyp > 0, n_hyp, 1.0), EPS)
                rec = np.where(n_ref > 0, n_match / np.where(n_ref > 0, n_ref, 1.0), EPS)
                denom = factor * prec + rec
                score = score + np.where(denom > 0, (1 + factor) * prec * rec / np.where(denom > 0, denom, 1.0), EPS)
        return 100 * score / self.order if percent else score / self.order

    def _percent(self, stats: np.ndarray, percent: bool = True) -> np.ndarray:
        """sacrebleu's ``CHRF._compute_f_score``, on its 0..100 scale with ``percent``
        (the value that picks the best reference, rounded as sacrebleu rounds it)."""
        stats = self._counts(stats)
        if self.eps_smoothing:
            return self._eps_smoothed(stats, percent)
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
