"""Scores of one (metric, segmenter) configuration over a corpus, in memory.

:class:`ConfigScores` is what the scoring layer hands to the meta-evaluation layer: the
segment scores as a matrix ``[n_systems, n_segments]``, the system scores, and the
per-segment sufficient statistics so that a bootstrap sample of segments gives the exact
system score ``score(stats[idx].sum(0))``. Scores read back from a TSV (computed
elsewhere) have no statistics; then a resampled system score is the mean of the resampled
segment scores, and ``sys_resampling`` says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

SCORE_COLUMNS = ("metric", "segmenter", "system", "level", "doc_id", "seg_id", "score", "config")


@dataclass(eq=False)
class ConfigScores:
    """Scores of one configuration (metric spec x segmenter) for every system.

    Attributes:
        metric: the metric spec as the user gave it (``"bleu:n=18,smooth=none"``).
        segmenter: segmenter name.
        config: full signature (metric and segmenter signatures).
        systems: system names, the rows of ``seg_scores``.
        seg_ids: segment ids, the columns of ``seg_scores``.
        seg_scores: float array ``[n_systems, n_segments]``.
        sys_scores: float array ``[n_systems]``.
        higher_is_better: the metric's direction.
        stats: optional ``[n_systems, n_segments, n_stats]`` sufficient statistics.
        score_fn: ``stats -> scores`` (vectorised over leading axes), with ``stats``.
    """

    metric: str
    segmenter: str
    config: str
    systems: list[str]
    seg_ids: list[str]
    seg_scores: np.ndarray
    sys_scores: np.ndarray
    higher_is_better: bool = True
    stats: np.ndarray | None = None
    score_fn: Callable[[np.ndarray], np.ndarray] | None = field(default=None, repr=False)

    @property
    def sys_resampling(self) -> str:
        """How :meth:`resampled_sys_scores` recomputes system scores: ``stats`` or ``mean``."""
        return "stats" if self.stats is not None and self.score_fn is not None else "mean"

    def resampled_sys_scores(self, indices: np.ndarray) -> np.ndarray:
        """System scores for each bootstrap sample of segment columns.

        ``indices`` has shape ``[n_samples, k]`` (column indices into ``seg_ids``); the result
        has shape ``[n_samples, n_systems]``. With statistics this is exact
        (``score(stats[:, idx].sum)``); otherwise the mean of the sampled segment scores.
        """
        indices = np.asarray(indices)
        if self.stats is not None and self.score_fn is not None:
            # counts[b, j]: how often segment j is drawn in sample b; summed statistics of
            # every sample and system in one product, then scored in one vectorised call
            n_samples, n_seg = indices.shape[0], self.stats.shape[1]
            flat = (np.arange(n_samples)[:, None] * n_seg + indices).ravel()
            counts = np.bincount(flat, minlength=n_samples * n_seg).reshape(n_samples, n_seg).astype(float)
            n_sys, _, n_stats = self.stats.shape
            by_segment = self.stats.transpose(1, 0, 2).reshape(n_seg, n_sys * n_stats)
            summed = (counts @ by_segment).reshape(n_samples, n_sys, n_stats)
            return np.asarray(self.score_fn(summed), dtype=float)
        return self.seg_scores[:, indices].mean(axis=2).T

    def subset_segments(self, seg_ids: Sequence[str]) -> "ConfigScores":
        """The same configuration over ``seg_ids`` only (in that order): each system's score is
        the metric of its summed statistics over them (docs/design.md, "Metrics"), or without
        statistics the mean of its segment scores."""
        index = {s: j for j, s in enumerate(self.seg_ids)}
        columns = [index[s] for s in seg_ids]
        seg_scores = self.seg_scores[:, columns]
        stats = None if self.stats is None else self.stats[:, columns]
        if stats is not None and self.score_fn is not None:
            sys_scores = np.asarray(self.score_fn(stats.sum(axis=1)), dtype=float)
        else:
            sys_scores = seg_scores.mean(axis=1)
        return ConfigScores(
            metric=self.metric, segmenter=self.segmenter, config=self.config, systems=list(self.systems),
            seg_ids=list(seg_ids), seg_scores=seg_scores, sys_scores=sys_scores, higher_is_better=self.higher_is_better,
            stats=stats, score_fn=self.score_fn,
        )  # fmt: skip

    def subset_systems(self, systems: Sequence[str]) -> "ConfigScores":
        """The same configuration restricted to ``systems`` (in that order)."""
        index = {s: i for i, s in enumerate(self.systems)}
        rows = [index[s] for s in systems]
        return ConfigScores(
            metric=self.metric,
            segmenter=self.segmenter,
            config=self.config,
            systems=list(systems),
            seg_ids=list(self.seg_ids),
            seg_scores=self.seg_scores[rows],
            sys_scores=self.sys_scores[rows],
            higher_is_better=self.higher_is_better,
            stats=None if self.stats is None else self.stats[rows],
            score_fn=self.score_fn,
        )
