"""Document-level meta-evaluation: the segment-level statistics over documents.

A document's metric score is the metric of its summed sufficient statistics (as a system
score is, docs/design.md "Metrics"); a document's human score is the mean, over its judged
segments, of each segment's judgment averaged over judges (WMT's document-level DA and
mt-metrics-eval's ``doc`` level aggregate the same way). Every segment-level statistic,
grouping and tie policy then applies with documents in place of segments; bootstrap
resamples documents. Rows carry ``level = "doc"``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from metaeval.errors import DataError, UsageError
from metaeval.scoretable import ConfigScores
from metaeval.stats.evaluate import evaluate
from metaeval.stats.registry import REGISTRY, parse_statistic
from metaeval.stats.settings import Settings

from metaeval.corpora.model import Judgments


def document_index(seg_ids: Sequence[str], doc_of: Mapping[str, str]) -> tuple[list[str], np.ndarray]:
    """Documents in order of first appearance and the document column of each segment."""
    missing = [s for s in seg_ids if s not in doc_of]
    if missing:
        raise UsageError(f"document level: segment {missing[0]} has no document id ({len(missing)} segments lack one)")
    docs = list(dict.fromkeys(doc_of[s] for s in seg_ids))
    column = {d: i for i, d in enumerate(docs)}
    return docs, np.array([column[doc_of[s]] for s in seg_ids], dtype=int)


def document_config(config: ConfigScores, doc_of: Mapping[str, str]) -> ConfigScores:
    """``config`` with one column per document: summed statistics scored, else mean segment score."""
    docs, column = document_index(config.seg_ids, doc_of)
    membership = np.zeros((len(config.seg_ids), len(docs)))
    membership[np.arange(len(column)), column] = 1.0
    if config.stats is not None and config.score_fn is not None:
        stats = np.einsum("ysk,sd->ydk", config.stats, membership)
        scores = np.asarray(config.score_fn(stats), dtype=float)
        return replace(config, seg_ids=docs, seg_scores=scores, stats=stats)
    scores = (config.seg_scores @ membership) / membership.sum(0)
    return replace(config, seg_ids=docs, seg_scores=scores, stats=None, score_fn=None)


def document_judgments(judgments: Judgments, doc_of: Mapping[str, str]) -> Judgments:
    """Segment judgments averaged over judges, then over the judged segments of each document."""
    table = judgments.table
    table = table[table["seg_id"].isin(doc_of.keys())]
    cells = table.groupby(["kind", "system", "seg_id"], sort=False)["value"].mean().reset_index()
    cells["seg_id"] = cells["seg_id"].map(doc_of)
    docs = cells.groupby(["kind", "system", "seg_id"], sort=False)["value"].mean().reset_index()
    docs["judge"] = "doc-mean"
    return Judgments(docs, None, judgments.directions, judgments.source)


def _segment_statistics(statistics: Sequence[str]) -> list[str]:
    """``doc:NAME`` and bare names as the segment-level statistics they are computed with."""
    wanted = []
    for spec in statistics:
        level, name, grouping = parse_statistic(spec)
        if level not in ("", "seg", "doc"):
            continue
        entry = REGISTRY.get(name)
        if entry is None or "seg" not in entry.levels:
            if level == "doc":
                raise UsageError(f"statistic doc:{name} does not exist; document level takes the segment-level statistics")
            continue
        wanted.append(f"seg:{name}" + (f"@{grouping}" if grouping else ""))
    return list(dict.fromkeys(wanted))


def evaluate_documents(
    configs: Sequence[ConfigScores],
    judgments: Judgments,
    doc_of: Mapping[str, str],
    kinds: Sequence[str] | None = None,
    settings: Settings | None = None,
    **options: Any,
) -> "pd.DataFrame | tuple[pd.DataFrame, np.ndarray]":
    """The ResultTable at document level (``level == "doc"``): the segment-level statistics of
    ``settings`` (or their ``doc:`` and bare names) over documents; ``options`` as
    :func:`~metaeval.stats.evaluate.evaluate` takes them (settings fields, ``clusters``,
    ``dataset``...; a ``store`` is not used).

    ``doc_of`` maps each segment id to its document id (``docs.tsv``, or the corpus's
    document ids). Kinds given only as system scores have no document-level rows.
    """
    fields = {f for f in Settings.__dataclass_fields__} - {"statistics"}
    settings = Settings.build(settings, **{k: v for k, v in options.items() if k in fields})
    rest = {k: v for k, v in options.items() if k not in fields and k not in ("statistics", "store")}
    asked = options.get("statistics", settings.statistics)  # doc:NAME names a segment-level statistic here
    doc_settings = Settings.build(settings, statistics=_segment_statistics(asked), levels=("seg",))
    doc_configs = [document_config(c, doc_of) for c in configs]
    doc_judgments = document_judgments(judgments, doc_of)
    seg_kinds = doc_judgments.kinds if kinds is None else [k for k in kinds if k in doc_judgments.kinds]
    if not seg_kinds:
        raise DataError(f"{judgments.source or 'judgments'}: document level needs segment judgments, and there are none of the kinds asked for")
    found = evaluate(doc_configs, doc_judgments, seg_kinds, doc_settings, **rest)
    table = found[0] if isinstance(found, tuple) else found
    table["level"] = "doc"
    return found
