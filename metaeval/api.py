"""The public Python API: read, score, correlate and run the whole study.

    >>> import metaeval
    >>> table = metaeval.score("wmt24-esa/en-zh", segmenters=["char", "jieba"], metrics=["bleu", "ter"])
    >>> study = metaeval.run("wmt24-esa/en-zh")          # results, answer, signature
    >>> print(study.leaderboard())                        # what ``metaeval run`` prints

Every function takes what the matching command takes, under the same names (``bootstrap``
for ``--bootstrap``, ``judgments`` for ``--judgments``...); repeatable options are plural
(``segmenters`` for ``--segmenter``).
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import warnings
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from metaeval.corpora.detect import UnrecognisedJudgmentFormat
from metaeval.corpora.model import Corpus, Judgments
from metaeval.errors import DataError, UsageError
from metaeval.paths import check_input_file
from metaeval.metrics import DEFAULT_METRICS, higher_is_better
from metaeval.scoretable import ConfigScores
from metaeval.scoring import LEVELS, ScoreResult, score_corpus
from metaeval.segmenting import DEFAULT_SEGMENTERS, default_segmenters
from metaeval.stats.settings import PORTED_OPTIONS, Settings
from metaeval.subsets import evaluate_by, read_subsets
from metaeval.versions import package_versions

#: The fields of :class:`~metaeval.stats.settings.Settings`, which every meta-evaluating function takes as keywords.
SETTINGS_FIELDS = frozenset(f.name for f in fields(Settings)) | frozenset(PORTED_OPTIONS)


def check_names(segmenters: Sequence[Any], metrics: Sequence[Any]) -> None:
    """Fail on an unknown or repeated segmenter or metric before any file is read (segmenters
    that learn from text are checked by name; they are built once the references are read)."""
    from metaeval import segmenters as registry
    from metaeval.scoring import MetricChoice, check_distinct

    names = [s for s in segmenters if isinstance(s, str)]
    learning = [name for name in names if registry.learns_from_text(name)]
    for name in learning:
        registry.check(name)
    built = [registry.get(name) if isinstance(name, str) else name for name in segmenters if name not in learning]
    check_distinct(built, [MetricChoice.of(spec) if isinstance(spec, str) else spec for spec in metrics])


def settings_of(
    settings: Settings | None = None, *, tie_policy: str | None = None, threshold: float | None = None,
    bootstrap: int | None = None, seed: int | None = None, n_bootstrap: int | None = None, **options: Any,
) -> tuple[Settings, dict[str, Any]]:
    """The :class:`~metaeval.stats.settings.Settings` of a request, built and checked once:
    ``settings`` (default: every default) with the options given as keywords (``bootstrap``,
    ``seed``... and any settings field, such as ``statistics``); and the remaining keywords.
    ``n_bootstrap`` is the former name of ``bootstrap`` (deprecated)."""
    if n_bootstrap is not None:
        warnings.warn("n_bootstrap= is deprecated; use bootstrap= (as --bootstrap)", DeprecationWarning, stacklevel=3)
        bootstrap = n_bootstrap if bootstrap is None else bootstrap
    named: dict[str, Any] = {"tie_policy": tie_policy, "seed": seed, "n_bootstrap": bootstrap}
    given = {k: v for k, v in named.items() if v is not None}
    if threshold is not None:
        given["threshold"] = threshold
    given.update({k: v for k, v in options.items() if k in SETTINGS_FIELDS})
    return Settings.build(settings, **given), {k: v for k, v in options.items() if k not in SETTINGS_FIELDS}


def read_corpus(path: "str | Path", missing: str = "error", **options: Any) -> tuple[Corpus, Judgments | None]:
    """Read a corpus and the judgments stored with it.

    Args:
        path: a plain corpus folder (``src.<lang>``, ``ref.<name>.<lang>``, ``systems/``), an
            mt-metrics-eval folder, or a folder of NIST SGML files (README, "Bring your own data").
        missing: what to do when a system lacks a segment: ``error`` (default), ``skip`` or
            ``empty`` (CLI ``--missing``).
        options: reader options, e.g. ``systems=[...]``/``references=[...]`` for a plain folder.

    Returns:
        ``(corpus, judgments)``; ``judgments`` is None when the folder holds none.
    """
    from metaeval import corpora

    return corpora.read(Path(path), missing=missing, **options)


def read_judgments(
    judgments: "Judgments | str | Path | None" = None,
    human_sys: "str | Path | None" = None,
    judgments_format: str | None = None,
) -> Judgments:
    """Human judgments from files, as ``--judgments``, ``--human-sys`` and ``--judgments-format`` read them.

    Args:
        judgments: a judgment file (format detected from its header unless
            ``judgments_format`` is given; ``metaeval list`` names the formats), or a
            :class:`~corpora.model.Judgments` already read.
        human_sys: a TSV of system-level human scores: ``system`` plus one numeric column per kind.
        judgments_format: force the format of ``judgments`` (e.g. ``long``, ``appraise``).

    Returns:
        one :class:`~corpora.model.Judgments` holding both.
    """
    from metaeval import corpora
    from metaeval.corpora.model import JUDGMENT_COLUMNS

    if judgments is None and human_sys is None:
        raise UsageError("give judgments (--judgments FILE) and/or human_sys (--human-sys FILE)")
    if isinstance(judgments, Judgments):
        found = judgments
    elif judgments is not None:
        try:
            found = corpora.read_judgments(Path(judgments), format=judgments_format)
        except UnrecognisedJudgmentFormat as exc:
            raise exc.naming("judgments_format=") from None
    else:
        found = Judgments(pd.DataFrame(columns=list(JUDGMENT_COLUMNS)), source=str(human_sys))
    if human_sys is not None:
        extra = corpora.read_judgments(Path(human_sys), format="human-sys")
        found = Judgments(found.table, extra.system_scores, found.directions, found.source)
    return found


def _as_corpus(corpus: "Corpus | str | Path", **options: Any) -> tuple[Corpus, Judgments | None]:
    if isinstance(corpus, Corpus):
        return corpus, None
    return read_corpus(corpus, **options)


def segment(texts: "str | Sequence[str]", segmenters: Sequence[Any] = ("char",)) -> dict[str, list[list[str]]]:
    """How each segmenter splits each text: ``metaeval segment`` in Python.

    Args:
        texts: one text or several.
        segmenters: segmenter names (``--segmenter``/``-s``), e.g. ``["char", "jieba"]``, or objects.

    Returns:
        segmenter name -> one token list per text.
    """
    from metaeval.scoring import get_segmenter

    items = [texts] if isinstance(texts, str) else list(texts)
    out = {}
    for spec in segmenters:
        seg = get_segmenter(spec)
        out[seg.name] = [list(tokens) for tokens in seg.segment_many(items)]
    return out


def leaderboard(
    results: "pd.DataFrame | str | Path",
    format: str = "text",  # noqa: A002 - the CLI's --format
    layout: str = "ranked",
    *,
    signature: "dict[str, Any] | None" = None,
    answer: pd.DataFrame | None = None,
) -> str:
    """Render results: ``metaeval leaderboard`` in Python.

    Args:
        results: a ResultTable, or the path of one written by ``run``/``correlate`` (tsv, csv, json).
        format: ``text``, ``markdown``, ``html``, ``csv``, ``tsv`` or ``json`` (``--format``).
        layout: ``ranked`` or ``table`` (``--layout``).
        signature: the signature to show (default: the one stored with a results file).
        answer: the answer with intervals and p-values (default: the one stored in a results
            JSON file, else derived from ``results`` without them).

    Returns:
        the report as text.
    """
    from metaeval.report import load_results
    from metaeval.report.data import load_answer
    from metaeval.report.leaderboard import render

    if isinstance(results, (str, Path)):
        table, stored = load_results(results)
        answer = answer if answer is not None else load_answer(results)
        signature = signature if signature is not None else stored
    else:
        table = results
    return render(table, signature, format, layout=layout, answer=answer)


def score(
    corpus: "Corpus | str | Path",
    segmenters: Sequence[Any] = ("char",),
    metrics: Sequence[Any] = ("bleu",),
    *,
    levels: Sequence[str] = LEVELS,
    missing: str = "error",
    jobs: int = 1,
    executor: cf.Executor | None = None,
    cache_dir: "str | Path | None" = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> pd.DataFrame:
    """Scores of every system for every (segmenter, metric): ``metaeval score`` in Python.

    Args:
        corpus: a corpus folder (see :func:`read_corpus`) or a :class:`~corpora.model.Corpus`.
        segmenters: segmenter names (``--segmenter``/``-s``), e.g. ``["char", "jieba"]``, or objects.
        metrics: metric specs (``--metric``/``-m``), e.g. ``["bleu", "bleu:n=18,smooth=none", "1-ter"]``.
        levels: any of ``seg``, ``doc``, ``sys`` (``--level``).
        missing: ``error``, ``skip`` or ``empty`` for segments a system lacks (``--missing``).
        jobs: worker processes (``--jobs``; 1, the default here, scores in this process;
            0 uses one per CPU but one).
        executor: any ``concurrent.futures.Executor`` (e.g. Dask's ``client.get_executor()``);
            overrides ``jobs``.
        cache_dir: folder to keep segmentations and per-segment statistics in across runs (``--cache-dir``).
        progress: called as ``progress(stage, done, total)`` (see :data:`metaeval.scoring.STAGE_UNITS`).

    Returns:
        a long DataFrame ``metric, segmenter, system, level, doc_id, seg_id, score, config``;
        ``seg_id`` is empty at system and document level, ``metric`` echoes the spec as given.
    """
    check_names(segmenters, metrics)
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
    scores: "pd.DataFrame | str | Path | ScoreResult | Sequence[ConfigScores]",
    judgments: "Judgments | str | Path | None" = None,
    kinds: Sequence[str] | None = None,
    *,
    human_sys: "str | Path | None" = None,
    judgments_format: str | None = None,
    tie_policy: str | None = None,
    threshold: float | None = None,
    bootstrap: int | None = None,
    seed: int | None = None,
    n_bootstrap: int | None = None,
    settings: Settings | None = None,
    by: str | None = None,
    docs: "str | Path | None" = None,
    subsets: Any = None,
    **options: Any,
) -> pd.DataFrame:
    """Meta-evaluate scores against human judgments: ``metaeval correlate`` in Python.

    Args:
        scores: a scores table as :func:`score` returns or ``metaeval score`` writes (a
            DataFrame, or the path of its TSV/CSV), or scored configurations.
        judgments: a judgment file path (``--judgments``) or :class:`~corpora.model.Judgments`.
        kinds: judgment kinds to evaluate (``--kind``; default: every kind present).
        human_sys: system-level human scores TSV (``--human-sys``).
        judgments_format: force the judgment file format (``--judgments-format``).
        tie_policy: metric ties in pairwise consistency: ``exclude`` (default), ``discordant``
            or ``half`` (``--tie-policy``).
        threshold: skip pairs whose human difference is at most this (``--threshold``).
        bootstrap: bootstrap samples (``--bootstrap``, default 1000; 0 for none).
        seed: random seed of the resamples (``--seed``, default 12345).
        n_bootstrap: former name of ``bootstrap`` (deprecated).
        settings: a :class:`~metaeval.stats.settings.Settings`; the options above and any of
            its fields given in ``options`` replace its values (default: every default).
        by: a column of ``docs`` (``--by``): every statistic also per value of it (:mod:`metaeval.subsets`).
        docs: the file of segments that holds it (``--docs``). subsets: or :func:`read_subsets`'s result.
        options: further settings (``statistics``, ``groupings``, ``levels``, ``average``,
            ``undefined``, ``refit_epsilon``, ``permutations``, ``permutation_seed``, ``ci``,
            ``pair_groups``) and options of :func:`metaeval.stats.evaluate.evaluate`
            (``clusters``, ``return_samples``, ``dataset``...).

    Returns:
        the ResultTable (README, "Meta-evaluation"); with ``return_samples=True``,
        ``(table, samples)``.
    """
    from metaeval.stats.evaluate import evaluate

    chosen, rest = settings_of(settings, tie_policy=tie_policy, threshold=threshold, bootstrap=bootstrap, seed=seed,
                               n_bootstrap=n_bootstrap, **options)
    human = judgments if isinstance(judgments, Judgments) and human_sys is None else read_judgments(judgments, human_sys, judgments_format)
    if isinstance(scores, ScoreResult):
        configs = scores.configs
    elif isinstance(scores, (str, Path)):
        configs = configs_from_table(read_scores(scores), source=str(scores))
    elif isinstance(scores, pd.DataFrame):
        configs = configs_from_table(scores)
    else:
        configs = list(scores)
    if subsets is None and by is not None:
        if docs is None:
            raise UsageError(f"correlate: --by {by} needs the file of segments that holds the column: --docs FILE (docs= in Python)")
        subsets = read_subsets(docs, by, list(configs[0].seg_ids) if configs else [])
    if subsets is None:
        return evaluate(configs, human, kinds, chosen, **rest)
    return evaluate_by(subsets, configs, human, kinds, chosen, **rest)


def read_scores(path: "str | Path") -> pd.DataFrame:
    """A scores table written by ``metaeval score`` (TSV, CSV, or either compressed as ``.gz``)."""
    source = Path(path)
    suffixes = [s.lower() for s in source.suffixes]
    sep = "," if ".csv" in suffixes else "\t"
    check_input_file(source)  # a FIFO or device is refused before it is opened
    try:
        return pd.read_csv(source, sep=sep, dtype={"seg_id": str, "doc_id": str}, keep_default_na=False)
    except FileNotFoundError:
        raise DataError(f"{source}: no such file") from None
    except (UnicodeDecodeError, OSError, EOFError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise DataError(f"{source}: cannot read scores table ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})") from None


@dataclass(eq=False)
class Study:
    """The outcome of :func:`run`, as DataFrames.

    Attributes:
        results: the ResultTable, one row per (metric, segmenter, judgment kind, level,
            statistic, grouping), with ``rank`` and significance ``cluster``.
        answer: per ranking, the best configuration and character vs best word level with
            delta, 95% interval and p-value (:mod:`metaeval.answer`).
        signature: segmenter versions and dictionaries, metric options, seed, package versions.
        scores: (property) the scores table, as :func:`score` returns it, at segment and system level.
        configs: (property) the scored configurations (:class:`~metaeval.scoretable.ConfigScores`).
        judgments: the human judgments used.
        tie_free: the tie-free reference of each ranking (judgment kind, level, statistic,
            grouping; :func:`metaeval.stats.evaluate.tie_free_references`), which reports give
            beside the chance levels of the results' ``chance`` columns.
        subsets: with ``by``, the segments of each value of the column (:class:`metaeval.subsets.Subsets`).
    """

    results: pd.DataFrame
    answer: pd.DataFrame
    signature: dict[str, Any]
    score_result: ScoreResult = field(repr=False)
    judgments: Judgments | None = field(default=None, repr=False)
    tie_free: pd.DataFrame | None = field(default=None, repr=False)
    subsets: Any = field(default=None, repr=False)
    _scores: pd.DataFrame | None = field(default=None, init=False, repr=False)

    @property
    def scores(self) -> pd.DataFrame:
        if self._scores is None:
            self._scores = self.score_result.table(["seg", "sys"])
        return self._scores

    @property
    def configs(self) -> list[ConfigScores]:
        return self.score_result.configs

    def leaderboard(self, format: str = "text", layout: str = "table") -> str:  # noqa: A002 - the CLI's --format
        """The report ``metaeval run`` prints, as text: ``format`` text, markdown, html, csv,
        tsv or json (``--format``); ``layout`` table or ranked (``--layout``)."""
        from metaeval.report.leaderboard import render

        return render(self.results, self.signature, format, layout=layout, answer=self.answer, tie_free=self.tie_free)

    def write(self, out: "str | Path", overwrite: bool = False) -> Path:
        """Write every output of ``metaeval run --out`` into the folder ``out``; returns it."""
        from metaeval.report.outputs import write_run_folder

        return write_run_folder(Path(out), self, overwrite)


def run(
    corpus: "Corpus | str | Path",
    segmenters: Sequence[Any] | None = None,
    metrics: Sequence[Any] | None = None,
    *,
    judgments: "Judgments | str | Path | None" = None,
    human_sys: "str | Path | None" = None,
    judgments_format: str | None = None,
    kinds: Sequence[str] | None = None,
    tie_policy: str | None = None,
    threshold: float | None = None,
    bootstrap: int | None = None,
    seed: int | None = None,
    missing: str = "error",
    jobs: int = 1,
    executor: cf.Executor | None = None,
    cache_dir: "str | Path | None" = None,
    progress: Callable[[str, int, int], None] | None = None,
    n_bootstrap: int | None = None,
    doc_level: bool = False,
    segmentation_cache: Any = None,
    keep_models: bool = False,
    settings: Settings | None = None,
    by: str | None = None,
    docs: "str | Path | None" = None,
    name: str | None = None,
    **statistics_options: Any,
) -> Study:
    """The whole study: read, segment, score, correlate, answer: ``metaeval run`` in Python.

    Defaults follow Li et al. 2011: segmenters suited to the target language
    (:data:`DEFAULT_SEGMENTERS`), metrics BLEU, NIST, METEOR-exact, GTM, 1-TER and chrF,
    1000 bootstrap samples.

    Args:
        corpus: a corpus folder (see :func:`read_corpus`) or a :class:`~corpora.model.Corpus`.
        segmenters: segmenter names (``--segmenter``/``-s``); default per target language.
        metrics: metric specs (``--metric``/``-m``); default :data:`metaeval.metrics.DEFAULT_METRICS`.
        judgments: a judgment file path (``--judgments``) or :class:`~corpora.model.Judgments`;
            default: ``judgments.tsv``/``human_sys.tsv`` of the corpus folder.
        human_sys: system-level human scores TSV (``--human-sys``).
        judgments_format: force the judgment file format (``--judgments-format``).
        kinds: judgment kinds to evaluate (``--kind``; default: every kind present).
        tie_policy: metric ties in pairwise consistency (``--tie-policy``, default ``exclude``).
        threshold: skip pairs whose human difference is at most this (``--threshold``).
        bootstrap: bootstrap samples (``--bootstrap``, default 1000).
        seed: random seed (``--seed``, default 12345).
        missing: ``error``, ``skip`` or ``empty`` for segments a system lacks (``--missing``).
        jobs: local worker processes for segmentation and scoring (``--jobs``; 1, the default here,
            works in this process).
        name: the dataset's label in tables and files (``--name``; default: the corpus folder's
            parent and own name, e.g. ``wmt24-esa/en-zh``, or the Corpus's own name).
        executor: a process pool or a cluster executor (Dask's ``Client.get_executor()``,
            ``--scheduler``) that shares segmentation, scoring and the bootstrap; the numbers do
            not depend on it.
        cache_dir: keep segmentations and per-segment statistics by content hash across runs,
            so a rerun computes only what changed (``--cache-dir``).
        progress: called as ``progress(stage, done, total)``.
        segmentation_cache: a :class:`~metaeval.segmenters.cache.SegmentationCache` shared by
            several runs (a study's datasets), so its files are read once; by default each run
            reads the one in ``cache_dir``.
        keep_models: the workers of the ``executor``'s local pool keep the segmentation models
            they load, for the next run on the same pool (a study's datasets); by default they
            drop them and go on scoring with less memory.
        n_bootstrap: former name of ``bootstrap`` (deprecated).
        doc_level: also the segment-level statistics over documents (``--doc-level``): the
            corpus's ``docs.tsv`` gives the documents (:mod:`metaeval.doclevel`).
        by: a column of ``docs`` (``--by``), e.g. ``domain``: every statistic and the answer also per
            value, on its segments alone (:mod:`metaeval.subsets`; rows labelled in the column ``subset``).
        docs: the file of segments ``by`` reads (``--docs``; default: the corpus's ``docs.tsv``).
        settings: a :class:`~metaeval.stats.settings.Settings` (the command line builds one); the
            options above and those in ``statistics_options`` replace its values.
        statistics_options: further settings (``statistics``, ``groupings``, ``levels``,
            ``average``, ``undefined``, ``refit_epsilon``, ``permutations``,
            ``permutation_seed``, ``ci``, ``pair_groups``; CLI ``--statistic``,
            ``--grouping``...), recorded in the signature.

    Returns:
        a :class:`Study`; ``study.leaderboard()`` is what ``metaeval run`` prints and
        ``study.write(folder)`` what ``--out`` writes.
    """
    from metaeval.answer import answer, granularity_free
    from metaeval.stats.evaluate import tie_free_references
    from metaeval.stats.human import resolve_kinds
    from metaeval.subsets import corpus_subsets, unit_sizes, with_subsets

    chosen, rest = settings_of(settings, tie_policy=tie_policy, threshold=threshold, bootstrap=bootstrap, seed=seed,
                               n_bootstrap=n_bootstrap, **statistics_options)
    if rest:
        raise UsageError(f"run: unknown option {next(iter(rest))!r}")
    check_names(segmenters or [], metrics or [])
    if name is not None and not name.strip():
        raise UsageError("run: --name must not be empty (it labels the dataset in every table)")
    corpus_obj, found = _as_corpus(corpus, missing=missing)
    if name is not None:
        corpus_obj = dataclasses.replace(corpus_obj, name=name)
    if judgments is not None or human_sys is not None:
        human = read_judgments(judgments, human_sys, judgments_format)
    elif found is not None:
        human = found
    else:
        raise DataError(
            f"{corpus_obj.name or 'corpus'}: no human judgments found (no judgments.tsv or human_sys.tsv); "
            "pass --judgments FILE and/or --human-sys FILE (judgments=, human_sys= in Python)"
        )
    human.validate_against(corpus_obj)
    kinds = resolve_kinds(human, kinds)  # a wrong kind fails here, before any segmentation
    if doc_level and not any(corpus_obj.doc_ids):
        raise DataError(f"{corpus_obj.name or 'corpus'}: --doc-level needs documents, and the corpus has no docs.tsv")
    subsets = corpus_subsets(corpus, corpus_obj, by, docs)  # a wrong column fails here, before any segmentation
    segs = list(segmenters) if segmenters else list(default_segmenters(corpus_obj.target_lang))
    mets = list(metrics) if metrics else list(DEFAULT_METRICS)
    scored = score_corpus(corpus_obj, segs, mets, executor=executor, jobs=jobs, progress=progress,
                          cache=segmentation_cache if segmentation_cache is not None else cache_dir, store=cache_dir,
                          keep_models=keep_models)
    n = chosen.n_bootstrap
    options: dict[str, Any] = dict(clusters=n > 0, dataset=corpus_obj.name, progress=progress, executor=executor, return_samples=True)
    doc_of = dict(zip(corpus_obj.seg_ids, corpus_obj.doc_ids)) if doc_level else None

    def evaluate_one(configs, judged, present):  # noqa: ANN001, ANN202
        found, found_samples = correlate(configs, judged, present, settings=chosen, store=cache_dir, **options)
        if doc_of is None:
            return found, found_samples
        from metaeval.doclevel import evaluate_documents  # the document-level rows follow the segment-level ones

        docs_found, docs_samples = evaluate_documents(configs, judged, doc_of, present, chosen, **options)
        return pd.concat([found, docs_found], ignore_index=True), np.concatenate([found_samples, docs_samples])

    results, samples = evaluate_one(scored.configs, human, kinds)
    if subsets is not None:
        results, samples = with_subsets(subsets, scored.configs, human, kinds, evaluate_one, results, samples)
    signature = {
        "dataset": corpus_obj.name,
        "target_lang": corpus_obj.target_lang,
        "systems": len(corpus_obj.systems),
        "segments": corpus_obj.n_segments,
        "references": corpus_obj.reference_names,
        "segmenters": scored.segmenter_signatures,
        "metrics": scored.metric_signatures,
        "tie_policy": chosen.tie_policy,
        "threshold": chosen.threshold,
        "n_bootstrap": n,
        "seed": chosen.seed,
        "doc_level": doc_level,
        "statistics": chosen.signature(),
        "versions": package_versions(),
    }
    if subsets is not None:
        signature["by"] = subsets.signature()
    summary = answer(results, samples, left_out=granularity_free(scored.configs), adjust=chosen.adjust,
                     sizes=unit_sizes(subsets, corpus_obj.seg_ids, doc_of), resample=chosen.resample)  # fmt: skip
    tie_free = tie_free_references(scored.configs, human, kinds, chosen)
    return Study(results=results, answer=summary, signature=signature, score_result=scored, judgments=human, tie_free=tie_free,
                 subsets=subsets)  # fmt: skip


__all__ = [
    "DEFAULT_SEGMENTERS",
    "Settings",
    "check_names",
    "Study",
    "configs_from_table",
    "correlate",
    "default_segmenters",
    "leaderboard",
    "package_versions",
    "read_corpus",
    "read_judgments",
    "read_scores",
    "read_subsets",
    "run",
    "score",
    "segment",
    "settings_of",
]

