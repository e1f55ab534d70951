"""NIST (Doddington 2002) as in mteval-v13a.

Information weights come from all references of the corpus, counted once in ``prepare``:
``info(w1..wn) = log2(count(w1..wn-1) / count(w1..wn))``, where the empty prefix counts
all reference words. As in mteval-v13a, whose test of the prefix is Perl truthiness, a
bigram whose first token is the string ``"0"`` is weighted as if its prefix were empty.

Statistics per segment: ``[hyp_len, ref_len, M_1..M_N, T_1..T_N]``, with
``M_n = sum_g info(g) * min(c_hyp(g), max_r c_r(g))``, ``T_n = max(hyp_len - n + 1, 0)`` and
``ref_len`` the **average** reference length ``L``. The score is
``sum_n M_n / max(T_n, 1) * BP``, ``BP = exp(-beta * ln^2(min(1, C / L)))`` with
``beta = -ln 0.5 / ln^2 1.5`` and ``C = hyp_len`` (``BP = 0`` when ``C = 0``, 1 when ``L = 0``).
Scores are on mteval's scale (not 0..1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Sequence

import numpy as np

import metaeval
from metaeval.metrics.base import Metric, Refs, Tokens
from metaeval.metrics.ngrams import (
    NgramIndex,
    check_order,
    clipped_matches,
    hypothesis_lengths,
    index_references,
    length_match_stats,
    split_length_match_stats,
)

#: mteval-v13a: the penalty is 0.5 when the hypothesis is 1.5 times shorter than L.
BETA = -np.log(0.5) / np.log(1.5) ** 2


@dataclass(frozen=True)
class NistReferences:
    """Reference n-gram index plus the information weight of every n-gram code, per order."""

    index: NgramIndex
    info: tuple[np.ndarray, ...]


def information_weights(index: NgramIndex) -> tuple[np.ndarray, ...]:
    """``info(g)`` for every n-gram code of ``index``, orders 1..index.order (mteval-v13a)."""
    total_words = float(index.ref_lens.sum())
    zero = index.vocab.get("0")
    weights = []
    for n in range(1, index.order + 1):
        count = index.corpus_counts[n - 1].astype(np.float64)
        if n == 1:
            prefix = np.full(len(count), total_words)
        else:
            parents = index.prefix_codes(n)
            prefix = index.corpus_counts[n - 2][parents].astype(np.float64)
            if n == 2 and zero is not None:
                prefix = np.where(parents == zero, total_words, prefix)
        weights.append(np.log2(prefix / count) if len(count) else np.zeros(0))
    return tuple(weights)


@dataclass(frozen=True)
class NIST(Metric):
    """NIST of order ``n`` (mteval-v13a: 5)."""

    n: int = 5

    name: ClassVar[str] = "nist"
    higher_is_better: ClassVar[bool] = True
    compiled_kernels: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", check_order("nist", self.n))

    @property
    def stat_names(self) -> tuple[str, ...]:
        orders = range(1, self.n + 1)
        return ("hyp_len", "ref_len", *(f"info_{i}" for i in orders), *(f"total_{i}" for i in orders))

    def signature(self) -> str:
        return f"nist|n:{self.n}|version:{metaeval.__version__}"

    def prepare(self, refs: Refs) -> NistReferences:
        """Reference n-grams of orders 1..n and their information weights over the whole corpus."""
        index = index_references(refs, self.n)
        return NistReferences(index, information_weights(index))

    def segment_stats(self, hyps: Sequence[Tokens], prepared: NistReferences) -> np.ndarray:
        lengths = hypothesis_lengths(hyps)
        info = clipped_matches(hyps, prepared.index, self.n, weights=prepared.info)
        ref_len = prepared.index.ref_lens.mean(axis=0)
        return length_match_stats(lengths, ref_len, info)

    def score(self, stats: np.ndarray) -> np.ndarray:
        hyp_len, ref_len, info, totals = split_length_match_stats("nist", stats, self.n)
        gain = (info / np.maximum(totals, 1.0)).sum(axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(ref_len > 0, hyp_len / np.where(ref_len > 0, ref_len, 1.0), np.inf)
            log_ratio = np.log(np.clip(ratio, 1e-300, 1.0))
            bp = np.where(hyp_len > 0, np.where(ratio >= 1.0, 1.0, np.exp(-BETA * log_ratio**2)), 0.0)
        return gain * bp
