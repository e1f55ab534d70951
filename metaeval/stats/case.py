"""The data model of one statistic's computation: what it is computed from (:class:`Case`, with
the human side of one judgment kind, :class:`HumanSide`) and what it gives before it becomes a
row of the ResultTable (:class:`Item`). docs/design.md, "Meta-evaluation", describes both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, TypeVar

import numpy as np

from metaeval.stats.result import ChanceBand, Correlation

if TYPE_CHECKING:
    from metaeval.scoretable import ConfigScores
    from metaeval.stats.settings import Settings

_T = TypeVar("_T")


@dataclass(eq=False)
class HumanSide:
    """Human scores of one judgment kind for one ordered list of systems
    (:func:`metaeval.stats.human.human_side` builds it).

    ``seg`` ``[n_sys, n_seg]``: each (system, segment) judgment averaged over judges (NaN =
    unjudged); ``groups`` ``[n_sys, n_groups]`` and ``group_segments``: the comparison groups of
    pairwise consistency (a segment, or a (segment, judge)), labelled ``pair_label``; ``sys``
    over ``sys_systems``: the system-level scores, ``given`` (fixed under resampling) or
    ``derived`` from the segment judgments (``sys_samples`` per resample). ``cache`` keeps
    human-side work shared by every configuration (ranks, p-values, permutation signs).
    """

    kind: str
    direction: int
    systems: list[str]
    dropped: list[str]
    seg: np.ndarray | None
    groups: np.ndarray | None
    group_segments: np.ndarray | None
    pair_label: str
    sys_systems: list[str]
    sys: np.ndarray | None
    sys_human: str  # given | derived | ""
    sys_samples: np.ndarray | None = field(default=None, repr=False)
    cache: dict = field(default_factory=dict, repr=False)

    def shared(self, key: Any, build: Callable[[], _T]) -> _T:
        """``build()``, computed once for this human side and kept under ``key``."""
        if key not in self.cache:
            self.cache[key] = build()
        return self.cache[key]


@dataclass(frozen=True, eq=False)
class Case:
    """What one statistic is computed from: one configuration's scores against one human side,
    at one level and grouping, under the run's settings.

    ``seg_scores`` ``[len(human.systems), n_seg]`` and ``sys_scores``
    ``[len(human.sys_systems)]`` are the metric's scores (higher-better after
    ``metric_direction``); ``metric_samples`` the resampled system scores; ``weights``
    ``[n_samples, n_seg]`` the bootstrap resamples (None: none). ``options`` holds the values of
    the settings the statistic takes (its registry entry's ``options``), by name; ``memo`` keeps
    work shared by the statistics of one configuration (the pair counts of consistency and the
    Kendall-like tau).
    """

    human: HumanSide
    settings: Settings
    level: str
    grouping: str
    metric_direction: int = 1
    seg_scores: np.ndarray | None = None
    sys_scores: np.ndarray | None = None
    metric_samples: np.ndarray | None = None
    weights: np.ndarray | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    memo: dict = field(default_factory=dict, repr=False)

    @property
    def human_samples(self) -> np.ndarray | None:
        """Resampled human system scores: those derived from segment judgments; None for given ones (fixed)."""
        return self.human.sys_samples if self.human.sys_human == "derived" else None

    def remembered(self, key: Any, build: Callable[[], _T]) -> _T:
        """``build()``, computed once for this configuration and kept under ``key``."""
        if key not in self.memo:
            self.memo[key] = build()
        return self.memo[key]


@dataclass(eq=False)
class Item:
    """One result before it becomes a row: its keys, the statistic with its samples, and its
    chance level."""

    config: ConfigScores
    kind: str
    level: str
    statistic: str
    grouping: str
    result: Correlation
    sys_human: str
    note: str
    chance: ChanceBand = field(default_factory=ChanceBand)


__all__ = ["Case", "HumanSide", "Item"]
