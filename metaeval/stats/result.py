"""What every statistic returns: a value with its interval, its counts and, when undefined, why.

An undefined statistic (constant scores, too few items, one system, no comparable pair) is NaN
with a reason, never 0 and never an exception (docs/design.md, "Meta-evaluation").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np


@dataclass(frozen=True, eq=False)
class Correlation:
    """One meta-evaluation statistic with its uncertainty.

    Attributes:
        value: the point estimate; NaN when undefined.
        ci_low, ci_high: percentile bootstrap interval (NaN without bootstrap).
        n: items used: pairs ``C + D`` (pairwise), (system, segment) cells (``none``),
            segments or systems averaged over (``item``/``sys``), systems (system level).
        p_value: scipy's p-value of the point estimate (NaN where it has none).
        counts: pair counts for pairwise statistics, or ``{"skipped": k}`` for groupings
            that skip undefined groups.
        undefined_reason: why ``value`` is NaN (None when defined).
        samples: the bootstrap values ``[n_samples]`` (NaN for undefined samples).
        epsilon: the metric tie threshold of tie-calibrated statistics (NaN elsewhere).
    """

    value: float
    ci_low: float = math.nan
    ci_high: float = math.nan
    n: int = 0
    p_value: float = math.nan
    counts: Mapping[str, float] | None = None
    undefined_reason: str | None = None
    samples: np.ndarray | None = field(default=None, repr=False)
    epsilon: float = math.nan

    @property
    def defined(self) -> bool:
        return not math.isnan(self.value)


@dataclass(frozen=True)
class ChanceBand:
    """The chance level of one statistic for one configuration (:mod:`metaeval.stats.chance`):
    ``value``, the mean of the statistic over permutations of the metric's scores, and ``low``,
    ``high``, the central band of those values (NaN when not estimated or undefined)."""

    value: float = math.nan
    low: float = math.nan
    high: float = math.nan


def undefined(reason: str, n: int = 0, counts: Mapping[str, float] | None = None) -> Correlation:
    """An undefined statistic: NaN value with ``reason``."""
    return Correlation(math.nan, n=n, counts=counts, undefined_reason=reason)


__all__ = ["ChanceBand", "Correlation", "undefined"]
