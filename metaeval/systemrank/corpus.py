"""The system leaderboard of a corpus folder (``metaeval systems``) or of a finished run
(``metaeval run --out``): read, score as ``run`` does, order the granularities, build the board.
"""

from __future__ import annotations

import concurrent.futures as cf
from pathlib import Path
from typing import Any, Callable, Sequence

from metaeval.corpora.model import Corpus, Judgments
from metaeval.errors import DataError
from metaeval.systemrank.board import SystemBoard, build_board, check_options, resolve_kinds
from metaeval.systemrank.granularity import granularity_order


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
    missing: str = "error",
    jobs: int = 1,
    executor: cf.Executor | None = None,
    cache_dir: "str | Path | None" = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> SystemBoard:
    """Score ``corpus`` with every (segmenter, metric), as :func:`metaeval.api.run` does with
    the same names and defaults, and rank its systems (:func:`.board.build_board`)."""
    from metaeval.api import default_segmenters, package_versions, read_corpus, read_judgments
    from metaeval.metrics import DEFAULT_METRICS
    from metaeval.scoring import score_corpus

    check_options(human_test, alpha, bootstrap)
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
                        human_test=human_test, granularities=order, dataset=corpus_obj.name, progress=progress)  # fmt: skip
    board.signature.update(
        target_lang=corpus_obj.target_lang, references=corpus_obj.reference_names, segmenters=scored.segmenter_signatures,
        metrics=scored.metric_signatures, versions=package_versions(),
    )  # fmt: skip
    return board


def study_board(study: Any, alpha: float = 0.05, human_test: str = "wilcoxon") -> SystemBoard:
    """The board of a finished :class:`metaeval.api.Study` (``run --out``): its scored
    configurations, judgments, human scores, resamples and seed."""
    scored = study.score_result
    signature = study.signature
    kinds = list(dict.fromkeys(k for k in study.results["judgment_kind"] if k)) or None
    order = granularity_order(scored.corpus, [c.segmenter for c in scored.configs], scored.reference_chars_per_token)
    board = build_board(scored.configs, study.judgments, kinds=kinds, n_bootstrap=int(signature.get("n_bootstrap", 1000)),
                        seed=int(signature.get("seed", 12345)), alpha=alpha, human_test=human_test, granularities=order,
                        dataset=str(signature.get("dataset", "")))  # fmt: skip
    board.signature.update({k: signature[k] for k in ("target_lang", "references", "segmenters", "metrics", "versions") if k in signature})
    return board


__all__ = ["corpus_board", "study_board"]
