"""The scores of every configuration over one corpus, as the long score table at any level."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from metaeval.corpora.model import Corpus
from metaeval.errors import MetaevalError
from metaeval.scoretable import SCORE_COLUMNS, ConfigScores

LEVELS = ("seg", "doc", "sys")


@dataclass(eq=False)
class ScoreResult:
    """All configurations scored over one corpus, with their signatures."""

    corpus: Corpus
    configs: list[ConfigScores]
    segmenter_signatures: dict[str, str] = field(default_factory=dict)
    metric_signatures: dict[str, str] = field(default_factory=dict)
    #: mean characters per token of the references under each segmenter this run segmented
    #: (the sweep's measure; segmenters whose statistics all came from the store are absent)
    reference_chars_per_token: dict[str, float] = field(default_factory=dict)

    def table(self, levels: Sequence[str] = LEVELS) -> pd.DataFrame:
        """The long ScoreTable: ``metric, segmenter, system, level, doc_id, seg_id, score, config``.

        ``seg_id`` (and ``doc_id``) are empty at system level; ``doc_id`` is set and
        ``seg_id`` empty at document level.
        """
        frames = list(self.frames(levels))
        if not frames:
            return pd.DataFrame(columns=list(SCORE_COLUMNS))
        return pd.concat(frames, ignore_index=True).loc[:, list(SCORE_COLUMNS)]

    def frames(self, levels: Sequence[str] = LEVELS) -> Iterable[pd.DataFrame]:
        """The rows of :meth:`table`, one configuration and level at a time, in its order."""
        unknown = [lv for lv in levels if lv not in LEVELS]
        if unknown:
            raise ValueError(f"unknown level(s) {unknown}; known: {', '.join(LEVELS)}")
        for cfg in self.configs:
            for level in LEVELS:
                if level in levels:
                    yield _level_frame(cfg, level, self.corpus).loc[:, list(SCORE_COLUMNS)]


def _level_frame(cfg: ConfigScores, level: str, corpus: Corpus) -> pd.DataFrame:
    n_sys = len(cfg.systems)
    if level == "seg":
        n_seg = len(cfg.seg_ids)
        return pd.DataFrame(
            {
                "metric": cfg.metric,
                "segmenter": cfg.segmenter,
                "system": np.repeat(cfg.systems, n_seg),
                "level": "seg",
                "doc_id": np.tile(corpus.doc_ids, n_sys),
                "seg_id": np.tile(cfg.seg_ids, n_sys),
                "score": cfg.seg_scores.reshape(-1),
                "config": cfg.config,
            }
        )
    if level == "sys":
        return pd.DataFrame(
            {
                "metric": cfg.metric,
                "segmenter": cfg.segmenter,
                "system": cfg.systems,
                "level": "sys",
                "doc_id": "",
                "seg_id": "",
                "score": cfg.sys_scores,
                "config": cfg.config,
            }
        )
    docs = list(dict.fromkeys(corpus.doc_ids))
    doc_index = _index_of(corpus.doc_ids, docs)
    if cfg.stats is None or cfg.score_fn is None:
        raise MetaevalError("document-level scores need the metric's statistics")
    rows = []
    for d, doc in enumerate(docs):
        mask = doc_index == d
        scores = cfg.score_fn(cfg.stats[:, mask, :].sum(axis=1))
        rows.append(scores)
    scores = np.stack(rows, axis=1)  # [n_sys, n_docs]
    return pd.DataFrame(
        {
            "metric": cfg.metric,
            "segmenter": cfg.segmenter,
            "system": np.repeat(cfg.systems, len(docs)),
            "level": "doc",
            "doc_id": np.tile(docs, n_sys),
            "seg_id": "",
            "score": scores.reshape(-1),
            "config": cfg.config,
        }
    )


def _index_of(values: Sequence[str], order: Sequence[str]) -> np.ndarray:
    lookup = {v: i for i, v in enumerate(order)}
    return np.array([lookup[v] for v in values])


__all__ = ["LEVELS", "ScoreResult"]
