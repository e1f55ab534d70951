"""The public Python API: read, score, correlate and run the whole study.

    >>> import metaeval
    >>> table = metaeval.score("wmt24-esa/en-zh", segmenters=["char", "jieba"], metrics=["bleu", "ter"])
    >>> study = metaeval.run("wmt24-esa/en-zh")          # results + signature
"""

from __future__ import annotations

import concurrent.futures as cf
import platform
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from corpora.model import Corpus, Judgments
from metaeval import __version__
from metaeval.errors import DataError
from metaeval.metrics import DEFAULT_METRICS, higher_is_better
from metaeval.scoretable import ConfigScores
from metaeval.scoring import LEVELS, ScoreResult, score_corpus

#: Segmenters suited to each target language (DESIGN.md; Li et al. 2011's rows).
DEFAULT_SEGMENTERS = {
    "zh": ("char", "cjk-char", "jieba", "pkuseg"),
    "ja": ("char", "cjk-char", "mecab"),
}
FALLBACK_SEGMENTERS = ("char", "13a")
DEFAULT_SEED = 12345
DEFAULT_BOOTSTRAP = 1000

#: Packages whose versions go into every signature.
SIGNATURE_PACKAGES = ("numpy", "scipy", "pandas", "sacrebleu", "jieba", "pkuseg", "fugashi", "unidic-lite", "numba")


def default_segmenters(target_lang: str) -> tuple[str, ...]:
    """The segmenters ``metaeval run`` uses for a target language."""
    return DEFAULT_SEGMENTERS.get(target_lang.split("-")[0].lower(), FALLBACK_SEGMENTERS)


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version(), "metaeval": __version__}
    for name in SIGNATURE_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def read_corpus(path: "str | Path", **options: Any) -> tuple[Corpus, Judgments | None]:
    """Read a corpus (plain folder, mt-metrics-eval folder or NIST SGML) and its judgments."""
    import corpora

    return corpora.read(Path(path), **options)


def _as_corpus(corpus: "Corpus | str | Path", **options: Any) -> tuple[Corpus, Judgments | None]:
    if isinstance(corpus, Corpus):
        return corpus, None
    return read_corpus(corpus, **options)


def score(
    corpus: "Corpus | str | Path",
    segmenters: Sequence[Any] = ("char",),
    metrics: Sequence[Any] = ("bleu",),
    *,
    levels: Sequence[str] = LEVELS,
    executor: cf.Executor | None = None,
    jobs: int = 1,
    missing: str = "error",
    progress: Callable[[str, int, int], None] | None = None,
    cache_dir: "str | Path | None" = None,
) -> pd.DataFrame:
    """Scores of every system for every (segmenter, metric), as a long DataFrame.

    Columns: ``metric, segmenter, system, level, doc_id, seg_id, score, config``; ``seg_id``
    is empty at system and document level. ``metric`` echoes the spec as given. ``jobs``
    local processes (or a cluster ``executor``) share the work; ``cache_dir`` keeps
    segmentations and per-segment statistics across runs.
    """
    corpus_obj, _ = _as_corpus(corpus, missing=missing)
    result = score_corpus(corpus_obj, segmenters, metrics, executor=executor, jobs=jobs, progress=progress,
                          cache=cache_dir, store=cache_dir)
    return result.table(levels)


def configs_from_table(table: pd.DataFrame, source: str = "scores") -> list[ConfigScores]:
    """Turn a ScoreTable (as written by ``metaeval score``) back into :class:`ConfigScores`.

    Needs segment-level rows; system-level rows are used when present, else system scores
    are the mean of segment scores. Without statistics, bootstrap samples of system scores
    are means of resampled segment scores (recorded in the results' ``note``).
    """
    required = ("metric", "segmenter", "system", "seg_id", "score")
    missing = [c for c in required if c not in table.columns]
    if missing:
        raise DataError(f"{source}: missing column(s) {', '.join(missing)}; expected {', '.join(required)}")
    table = table.copy()
    table["seg_id"] = table["seg_id"].fillna("").astype(str)
    table["score"] = pd.to_numeric(table["score"], errors="coerce")
    if table["score"].isna().any() or not np.isfinite(table["score"].to_numpy(float)).all():
        bad = table[~np.isfinite(table["score"].to_numpy(float, na_value=np.nan))].iloc[0]
        raise DataError(
            f"{source}: non-numeric or non-finite score for metric {bad['metric']!r}, "
            f"segmenter {bad['segmenter']!r}, system {bad['system']!r}, segment {bad['seg_id'] or '(system)'}"
        )
    if "level" in table.columns:
        seg_rows = table[table["level"].astype(str) == "seg"]
        sys_rows = table[table["level"].astype(str) == "sys"]
    else:
        seg_rows = table[table["seg_id"] != ""]
        sys_rows = table[table["seg_id"] == ""]
    if seg_rows.empty:
        raise DataError(f"{source}: no segment-level rows (run `metaeval score` with --level seg,sys)")
    configs = []
    for (metric, segmenter), rows in seg_rows.groupby(["metric", "segmenter"], sort=False):
        dup = rows.duplicated(["system", "seg_id"])
        if dup.any():
            bad = rows[dup].iloc[0]
            raise DataError(f"{source}: duplicate score for {metric}/{segmenter}, system {bad['system']!r}, segment {bad['seg_id']}")
        matrix = rows.pivot(index="system", columns="seg_id", values="score")
        systems = list(dict.fromkeys(rows["system"]))
        seg_ids = list(dict.fromkeys(rows["seg_id"]))
        matrix = matrix.loc[systems, seg_ids]
        if matrix.isna().any().any():
            system, seg = next((s, g) for s in systems for g in seg_ids if pd.isna(matrix.at[s, g]))
            raise DataError(f"{source}: {metric}/{segmenter}: no score for system {system!r}, segment {seg}")
        seg_scores = matrix.to_numpy(float)
        given = sys_rows[(sys_rows["metric"] == metric) & (sys_rows["segmenter"] == segmenter)]
        given = given.set_index("system")["score"]
        sys_scores = np.array([given.get(s, np.nan) for s in systems], dtype=float)
        sys_scores = np.where(np.isnan(sys_scores), seg_scores.mean(axis=1), sys_scores)
        config = str(rows["config"].iloc[0]) if "config" in rows.columns else f"{metric}+{segmenter}"
        configs.append(
            ConfigScores(
                metric=str(metric),
                segmenter=str(segmenter),
                config=config,
                systems=systems,
                seg_ids=seg_ids,
                seg_scores=seg_scores,
                sys_scores=sys_scores,
                higher_is_better=higher_is_better(str(metric)),
            )
        )
    return configs


def correlate(
    scores: "pd.DataFrame | ScoreResult | Sequence[ConfigScores]",
    judgments: Judgments,
    kinds: Sequence[str] | None = None,
    **options: Any,
) -> pd.DataFrame:
    """Meta-evaluate scores against human judgments; returns the ResultTable."""
    from metaeval.evaluate import evaluate

    if isinstance(scores, ScoreResult):
        configs = scores.configs
    elif isinstance(scores, pd.DataFrame):
        configs = configs_from_table(scores)
    else:
        configs = list(scores)
    return evaluate(configs, judgments, kinds, **options)


@dataclass(eq=False)
class Study:
    """The outcome of :func:`run`: results, the scores behind them and the signature."""

    results: pd.DataFrame
    scores: ScoreResult
    signature: dict[str, Any] = field(default_factory=dict)
    judgments: Judgments | None = None


def run(
    corpus: "Corpus | str | Path",
    segmenters: Sequence[Any] | None = None,
    metrics: Sequence[Any] | None = None,
    *,
    judgments: Judgments | None = None,
    kinds: Sequence[str] | None = None,
    n_bootstrap: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
    tie_policy: str = "exclude",
    threshold: float | None = None,
    executor: cf.Executor | None = None,
    jobs: int = 1,
    missing: str = "error",
    progress: Callable[[str, int, int], None] | None = None,
    cache_dir: "str | Path | None" = None,
    **statistics_options: Any,
) -> Study:
    """The whole study: read, segment, score, correlate. Returns a :class:`Study`.

    Defaults follow Li et al. 2011: segmenters suited to the target language, metrics
    BLEU, NIST, METEOR-exact, GTM, 1-TER and chrF; 1000 bootstrap samples; the statistics
    of :data:`metaeval.evaluate.DEFAULT_STATISTICS`. ``statistics_options`` go to
    :func:`metaeval.evaluate.evaluate` (``statistics``, ``groupings``, ``average``,
    ``undefined``, ``refit_epsilon``, ``permutations``, ``permutation_seed``) and into the
    signature.
    ``jobs`` local processes or a cluster ``executor`` (Dask's ``Client.get_executor()``) share
    segmentation and scoring; ``cache_dir`` keeps segmentations and per-segment statistics by
    content hash, so a rerun computes only what changed. The numbers do not depend on either.
    """
    from metaeval.evaluate import statistics_signature

    corpus_obj, found = _as_corpus(corpus, missing=missing)
    judgments = judgments if judgments is not None else found
    if judgments is None:
        raise DataError(
            f"{corpus_obj.name or 'corpus'}: no human judgments found (no judgments.tsv or human_sys.tsv); "
            "pass --judgments FILE and/or --human-sys FILE (judgments=, human_sys= in Python)"
        )
    judgments.validate_against(corpus_obj)
    segs = list(segmenters) if segmenters else list(default_segmenters(corpus_obj.target_lang))
    mets = list(metrics) if metrics else list(DEFAULT_METRICS)
    scored = score_corpus(corpus_obj, segs, mets, executor=executor, jobs=jobs, progress=progress,
                          cache=cache_dir, store=cache_dir)
    results = correlate(
        scored,
        judgments,
        kinds,
        tie_policy=tie_policy,
        threshold=threshold,
        n_bootstrap=n_bootstrap,
        seed=seed,
        clusters=n_bootstrap > 0,
        dataset=corpus_obj.name,
        progress=progress,
        store=cache_dir,
        **statistics_options,
    )
    signature = {
        "dataset": corpus_obj.name,
        "target_lang": corpus_obj.target_lang,
        "systems": len(corpus_obj.systems),
        "segments": corpus_obj.n_segments,
        "references": corpus_obj.reference_names,
        "segmenters": scored.segmenter_signatures,
        "metrics": scored.metric_signatures,
        "tie_policy": tie_policy,
        "threshold": threshold,
        "n_bootstrap": n_bootstrap,
        "seed": seed,
        "statistics": statistics_signature(**statistics_options),
        "versions": package_versions(),
    }
    return Study(results=results, scores=scored, signature=signature, judgments=judgments)


__all__ = [
    "DEFAULT_SEGMENTERS",
    "Study",
    "configs_from_table",
    "correlate",
    "default_segmenters",
    "package_versions",
    "read_corpus",
    "run",
    "score",
]
