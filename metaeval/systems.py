"""System leaderboards of a corpus folder in Python (``metaeval systems``): read, score as
:func:`metaeval.api.run` does, order the granularities (:mod:`metaeval.systemrank.granularity`)
and rank the systems (:func:`metaeval.systemrank.board.build_board`)."""

from __future__ import annotations

import concurrent.futures as cf
from pathlib import Path
from typing import Any, Callable, Sequence

import pandas as pd

from metaeval.api import default_segmenters, read_corpus, read_judgments
from metaeval.corpora.model import Corpus, Judgments
from metaeval.errors import DataError
from metaeval.metrics import DEFAULT_METRICS
from metaeval.scoring import score_corpus
from metaeval.stats.defaults import ADJUST
from metaeval.systemrank.board import SystemBoard, build_board, check_options, resolve_kinds
from metaeval.systemrank.granularity import granularity_order
from metaeval.versions import package_versions


def system_leaderboard(
    corpus: "Corpus | str | Path",
    segmenters: Sequence[Any] | None = None,
    metrics: Sequence[Any] | None = None,
    **options: Any,
) -> pd.DataFrame:
    """Systems ranked by the humans and by every configuration: ``metaeval systems`` in Python.

    ``options`` are :func:`corpus_board`'s: :func:`metaeval.api.run`'s under the same names and
    defaults (``judgments``, ``human_sys``, ``judgments_format``, ``kinds``, ``bootstrap``,
    ``seed``, ``adjust``, ``missing``, ``jobs``, ``executor``, ``cache_dir``, ``progress``), and
    ``alpha`` (``--alpha``, 0.05) and ``human_test`` (``--human-test``: ``wilcoxon``, WMT24's
    signed-rank tests, or ``bootstrap``); ``kinds`` defaults to the first human score present.
    ``adjust`` (``holm``, ``bh`` or ``none``) adjusts each ranking's p-values over its pairs of
    systems before clusters and significant pairs are formed.

    Returns:
        one row per (human score, system) and per (human score, configuration, system):
        ``score``, ``rank``, the WMT24 rank range ``rank_low``-``rank_high`` and ``cluster``,
        ``human_rank`` and ``displacement`` (metric rank - human rank). The pairs ordered
        against the humans and every p-value: :func:`corpus_board`.
    """
    return corpus_board(corpus, segmenters, metrics, **options).table


def corpus_board(
    corpus: "Corpus | str | Path",
    segmenters: Sequence[Any] | None = None,
    metrics: Sequence[Any] | None = None,
    *,
    judgments: "Judgments | str | Path | None" = None,
    human_sys: "str | Path | None" = None,
    judgments_format: str | None = None,
    kinds: Sequence[str] | None = None,
    bootstrap: int = 1000,
    seed: int = 12345,
    alpha: float = 0.05,
    human_test: str = "wilcoxon",
    adjust: str = ADJUST,
    missing: str = "error",
    jobs: int = 1,
    executor: cf.Executor | None = None,
    cache_dir: "str | Path | None" = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> SystemBoard:
    """Score ``corpus`` with every (segmenter, metric), as :func:`metaeval.api.run` does with
    the same names and defaults, and rank its systems (:func:`.board.build_board`)."""
    check_options(human_test, alpha, bootstrap, adjust)
    corpus_obj, found = (corpus, None) if isinstance(corpus, Corpus) else read_corpus(corpus, missing=missing)
    human = read_judgments(judgments, human_sys, judgments_format) if judgments is not None or human_sys is not None else found
    if human is None:
        raise DataError(
            f"{corpus_obj.name or 'corpus'}: no human judgments to rank systems by (no judgments.tsv or human_sys.tsv); "
            "pass --judgments FILE and/or --human-sys FILE (judgments=, human_sys= in Python)"
        )
    human.validate_against(corpus_obj)
    kinds = resolve_kinds(human, kinds)  # a wrong --kind fails before any scoring
    segs = list(segmenters) if segmenters else list(default_segmenters(corpus_obj.target_lang))
    scored = score_corpus(corpus_obj, segs, list(metrics) if metrics else list(DEFAULT_METRICS), executor=executor,
                          jobs=jobs, progress=progress, cache=cache_dir, store=cache_dir)  # fmt: skip
    order = granularity_order(corpus_obj, [c.segmenter for c in scored.configs], scored.reference_chars_per_token, cache_dir)
    board = build_board(scored.configs, human, kinds=kinds, n_bootstrap=bootstrap, seed=seed, alpha=alpha,
                        human_test=human_test, adjust=adjust, granularities=order, dataset=corpus_obj.name, progress=progress)  # fmt: skip
    board.signature.update(
        target_lang=corpus_obj.target_lang, references=corpus_obj.reference_names, segmenters=scored.segmenter_signatures,
        metrics=scored.metric_signatures, versions=package_versions(),
    )  # fmt: skip
    return board


__all__ = ["corpus_board", "system_leaderboard"]
