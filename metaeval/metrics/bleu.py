"""BLEU (Papineni et al. 2002) as in mteval-v13a, with sacrebleu 2.6.0's smoothing methods.

Statistics per segment: ``[hyp_len, ref_len, m_1..m_N, T_1..T_N]`` where ``m_n`` are the
clipped n-gram matches (``min(c_hyp, max_r c_r)``), ``T_n = max(hyp_len - n + 1, 0)`` and
``ref_len`` is the reference length closest to ``hyp_len`` (on a tie, the shorter).
``BP = exp(min(0, 1 - R/C))``, and 0 when ``C = 0``. Scores are on a 0..1 scale.

Smoothing (``smooth``):

- ``mteval``: mteval-v13a's own. ``p_n = m_n / T_n``; for each order with ``m_n = 0`` the
  factor k (starting at 1) doubles and ``p_n = 1 / (k T_n)``; ``T_n = 0`` gives ``p_n = 1``.
  The same rule applies to segment and system (summed) statistics.
- ``none``, ``exp``, ``floor``, ``add-k``: as sacrebleu 2.6.0 ``BLEU.compute_bleu`` with
  ``effective_order=False``: the score is 0 when no n-gram of any order matches or when some
  ``T_n`` (after add-k) is 0; ``none`` gives 0 when some ``m_n = 0``; ``exp`` is the doubling
  rule above; ``floor`` uses ``p_n = k / T_n`` for ``m_n = 0``; ``add-k`` uses
  ``(m_n + k) / (T_n + k)`` for n >= 2. ``k`` defaults to sacrebleu's values: 0.1 for
  ``floor`` and 1 for ``add-k``; giving ``k`` to another method is an error.

Effective order (``effective_order=true``, sacrebleu's ``effective_order``): the geometric
mean runs over the orders ``1..E`` only, where ``E`` is the number of leading orders with
``T_n > 0`` (after add-k), i.e. ``min(N, hyp_len)`` for a segment: a segment shorter than
``N`` is not scored 0 (or, with ``mteval``, pulled down by the orders it cannot have) for the
orders it cannot have. With ``mteval`` those orders have ``p_n = 1`` already, so only the
divisor changes from ``N`` to ``E``; with ``add-k``, ``T_n + k > 0`` for every ``n >= 2`` and the
option changes nothing (as in sacrebleu). It applies to summed statistics the same way, as
sacrebleu's ``corpus_score`` does, where ``E = N`` unless the whole system has fewer than ``N``
tokens. Off by default, so that ``bleu`` stays mteval-v13a's; sacrebleu's ``BLEU`` class has it
off by default too, but its ``sentence_bleu`` function turns it on (``use_effective_order=True``):
``bleu:smooth=exp,effective_order=true`` gives ``sacrebleu.sentence_bleu``'s numbers.

Statistics of order N contain those of every order M <= N as a prefix of their match and
total columns (:meth:`BLEU.order_stats`), and :meth:`BLEU.scores_by_order` scores every
order 1..N at once.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar, Sequence

import numpy as np

import metaeval
from metaeval.metrics.base import Metric, Refs, Tokens
from metaeval.metrics.ngrams import (
    NgramIndex,
    check_order,
    clipped_matches,
    closest_ref_length,
    hypothesis_lengths,
    index_references,
    length_match_stats,
    split_length_match_stats,
)

SMOOTH_METHODS = ("none", "mteval", "exp", "floor", "add-k")
#: sacrebleu 2.6.0 defaults (Chen & Cherry 2014) for the methods that take a value.
DEFAULT_K = {"floor": 0.1, "add-k": 1.0}


@dataclass(frozen=True)
class BLEU(Metric):
    """BLEU of order ``n`` with smoothing ``smooth`` (see the module docstring).

    ``k`` is the floor value (``floor``) or the added count (``add-k``); ``None`` means
    sacrebleu's default for the method (0.1, 1); other methods take no ``k``. A string
    (from a metric spec) is parsed. ``effective_order`` averages over the orders the segment
    (or the summed statistics) has n-grams of.
    """

    n: int = 4
    smooth: str = "mteval"
    k: float | None = None
    effective_order: bool = False

    name: ClassVar[str] = "bleu"
    higher_is_better: ClassVar[bool] = True
    compiled_kernels: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", check_order("bleu", self.n))
        if self.smooth not in SMOOTH_METHODS:
            raise ValueError(f"bleu: unknown smooth={self.smooth!r}; known: {', '.join(SMOOTH_METHODS)}")
        k = self.k
        if isinstance(k, str):
            try:
                k = float(k)
            except ValueError:
                raise ValueError(f"bleu: k must be a number, got k={self.k!r}") from None
        if k is not None and self.smooth not in DEFAULT_K:
            raise ValueError(f"bleu: k applies only to smooth=floor or smooth=add-k, not smooth={self.smooth!r}")
        if k is None:
            k = DEFAULT_K.get(self.smooth)
        elif not np.isfinite(k) or k <= 0:
            raise ValueError(f"bleu: k must be a positive number, got k={self.k!r}")
        object.__setattr__(self, "k", None if k is None else float(k))
        if not isinstance(self.effective_order, (bool, np.bool_)):
            raise ValueError(f"bleu: effective_order must be true or false, got {self.effective_order!r}")
        object.__setattr__(self, "effective_order", bool(self.effective_order))

    # Metric protocol ------------------------------------------------------------------
    @property
    def stat_names(self) -> tuple[str, ...]:
        orders = range(1, self.n + 1)
        return ("hyp_len", "ref_len", *(f"match_{i}" for i in orders), *(f"total_{i}" for i in orders))

    def reuse_key(self) -> str | None:
        """Segment statistics depend on that segment's tokens only."""
        return "tokens"

    def signature(self) -> str:
        """``bleu|n:4|smooth:mteval|version:...``; ``|eff:yes`` after the smoothing with
        ``effective_order`` (a signature without ``eff:`` has it off, as sacrebleu's ``eff:no``,
        so the signatures of earlier results, which are also their store keys, stay valid)."""
        smooth = self.smooth if self.k is None else f"{self.smooth}|k:{self.k:g}"
        eff = "|eff:yes" if self.effective_order else ""
        return f"bleu|n:{self.n}|smooth:{smooth}{eff}|version:{metaeval.__version__}"

    def prepare(self, refs: Refs) -> NgramIndex:
        """Reference n-gram counts of orders 1..n (max over references per segment) and lengths."""
        return index_references(refs, self.n)

    def segment_stats(self, hyps: Sequence[Tokens], prepared: NgramIndex) -> np.ndarray:
        lengths = hypothesis_lengths(hyps)
        matches = clipped_matches(hyps, prepared, self.n)
        ref_len = closest_ref_length(lengths, prepared.ref_lens)
        return length_match_stats(lengths, ref_len, matches)

    def score(self, stats: np.ndarray) -> np.ndarray:
        return self.scores_by_order(stats)[..., -1]

    # Orders ------------------------------------------------------------------------
    def with_order(self, m: int) -> "BLEU":
        """The same BLEU at order ``m``; score :meth:`order_stats` ``(stats, m)`` with it."""
        return dataclasses.replace(self, n=m)

    def order_stats(self, stats: np.ndarray, m: int) -> np.ndarray:
        """Order-``m`` statistics from this metric's order-``n`` statistics (a column prefix)."""
        if not 1 <= m <= self.n:
            raise ValueError(f"bleu: order must be in 1..{self.n}, got {m}")
        stats = np.asarray(stats)
        n = self.n
        cols = np.r_[0, 1, 2 : 2 + m, 2 + n : 2 + n + m]
        return stats[..., cols]

    def scores_by_order(self, stats: np.ndarray) -> np.ndarray:
        """BLEU for every order M = 1..n at once: ``(..., n_stats) -> (..., n)``."""
        n = self.n
        hyp_len, ref_len, m, t = split_length_match_stats("bleu", stats, n)
        orders = np.arange(1, n + 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.smooth == "mteval":
                bp = np.where(hyp_len > 0, np.exp(np.minimum(0.0, 1.0 - ref_len / hyp_len)), 0.0)
                log_p = _log_precisions_doubling(m, t, zero_total=0.0)
                return bp[..., None] * np.exp(self._mean_log_precisions(log_p, t, orders))
            bp = np.where(hyp_len >= ref_len, 1.0, np.where(hyp_len > 0, np.exp(1.0 - ref_len / hyp_len), 0.0))
            if self.smooth == "add-k":
                m = m.copy()
                t = t.copy()
                m[..., 1:] += self.k
                t[..., 1:] += self.k
            if self.smooth == "exp":
                log_p = _log_precisions_doubling(m, t, zero_total=-np.inf)
            else:
                zero_match = self.k / t if self.smooth == "floor" else np.zeros_like(t)
                p = np.where(m > 0, m / t, zero_match)
                log_p = np.where(t > 0, np.log(p), -np.inf)
            scores = bp[..., None] * np.exp(self._mean_log_precisions(log_p, t, orders))
            # sacrebleu: 0 when no n-gram of orders 1..M matches
            any_match = np.logical_or.accumulate(np.asarray(stats)[..., 2 : 2 + n] > 0, axis=-1)
            return np.where(any_match, scores, 0.0)

    def _mean_log_precisions(self, log_p: np.ndarray, t: np.ndarray, orders: np.ndarray) -> np.ndarray:
        """For every order M = 1..n, the mean of ``log p_1..log p_M``: over all M orders, or with
        :attr:`effective_order` over the leading orders with ``T_n > 0`` among them (sacrebleu
        stops at the first order without n-grams); their number, at least 1, is the divisor."""
        if not self.effective_order:
            return np.cumsum(log_p, axis=-1) / orders
        leading = np.logical_and.accumulate(t > 0, axis=-1)
        effective = np.cumsum(leading, axis=-1)
        return np.cumsum(np.where(leading, log_p, 0.0), axis=-1) / np.maximum(effective, 1)


def _log_precisions_doubling(m: np.ndarray, t: np.ndarray, zero_total: float) -> np.ndarray:
    """``log p_n`` with mteval's smoothing: ``1/(2^z T_n)`` for the z-th order with no match.

    Orders with ``T_n = 0`` get ``zero_total`` (0 in mteval-v13a, -inf as sacrebleu's break).
    """
    unmatched = (m == 0) & (t > 0)
    doublings = np.cumsum(unmatched, axis=-1)
    log_t = np.log(np.where(t > 0, t, 1.0))
    log_p = np.where(m > 0, np.log(np.where(m > 0, m, 1.0)) - log_t, -(doublings * np.log(2.0) + log_t))
    return np.where(t > 0, log_p, zero_total)
