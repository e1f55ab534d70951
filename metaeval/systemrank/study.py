"""The system leaderboard of a finished run (``metaeval run --out``): its scored configurations,
judgments and resamples, the granularities in the sweep's order, the board."""

from __future__ import annotations

from typing import Any

from metaeval.systemrank.board import SystemBoard, build_board
from metaeval.systemrank.granularity import granularity_order


def study_board(study: Any, alpha: float = 0.05, human_test: str = "wilcoxon") -> SystemBoard:
    """The board of a finished :class:`metaeval.api.Study` (``run --out``): its scored
    configurations, judgments, human scores, resamples, seed and p-value adjustment (a signature
    without one, from before adjustments existed: ``none``)."""
    scored = study.score_result
    signature = study.signature
    adjust = str((signature.get("statistics") or {}).get("adjust", "none"))
    kinds = list(dict.fromkeys(k for k in study.results["judgment_kind"] if k)) or None
    order = granularity_order(scored.corpus, [c.segmenter for c in scored.configs], scored.reference_chars_per_token)
    board = build_board(scored.configs, study.judgments, kinds=kinds, n_bootstrap=int(signature.get("n_bootstrap", 1000)),
                        seed=int(signature.get("seed", 12345)), alpha=alpha, human_test=human_test, adjust=adjust, granularities=order,
                        dataset=str(signature.get("dataset", "")))  # fmt: skip
    board.signature.update({k: signature[k] for k in ("target_lang", "references", "segmenters", "metrics", "versions") if k in signature})
    return board


__all__ = ["study_board"]
