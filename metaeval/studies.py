"""Run a declared study (:mod:`metaeval.studyspec`): ``metaeval study SPEC.toml``.

For each ``[[dataset]]`` of the spec, in order:

- ``correlations`` (the default analysis): :func:`metaeval.api.run` on the corpus (restricted
  to the dataset's references and systems), with the spec's segmenters, metrics, statistics,
  judgment kinds, bootstrap and seed: the ResultTable and the answer, as ``metaeval run``;
- ``equivalence``: the Denoual-Lepage analysis (:func:`metaeval.equivalence.analyse`) of each
  word segmenter against the character segmenter.

Resumable: every computed piece is kept by content hash in a :class:`metaeval.store.Store`
(``<out>/store``, or ``cache_dir``): segmentations, per-segment statistics, each
configuration's correlations with their bootstrap samples, BLEU scores by order. A study that
was interrupted continues where it stopped, and a rerun with one more metric computes only
that metric; the outputs are the same bytes as those of an uninterrupted run.

Outputs, in the output folder (each written atomically, only once everything is computed):

- ``results.tsv``: every row of every dataset's ResultTable (``dataset`` = the dataset's name);
- ``answer.tsv``: per dataset, the answer (best configuration, character vs best word level);
- ``equivalence.tsv``: per dataset and word segmenter, the equivalent character order M per N;
- ``study.json``: the datasets as declared and the signature of every run.
"""

from __future__ import annotations

import concurrent.futures as cf
import io
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import pandas as pd

from metaeval.errors import DataError, UsageError
from metaeval.studyspec import DatasetSpec, StudySpec, load_spec

#: The files of a study's output folder (besides the store).
STUDY_OUTPUTS = ("results.tsv", "answer.tsv", "equivalence.tsv", "study.json")
#: Folder of the store inside the output folder.
STORE = "store"


@dataclass(eq=False)
class StudyResult:
    """What :func:`run_study` computed.

    Attributes:
        spec: the study file as read.
        runs: ``(dataset, metaeval.api.Study)`` for the correlations analysis.
        equivalence: ``(dataset, word segmenter, EquivalenceResult)`` for the equivalence analysis.
        store: the folder the computed pieces are kept in.
        files: the output files :func:`run_study` wrote.
    """

    spec: StudySpec
    runs: list[tuple[DatasetSpec, Any]] = field(default_factory=list)
    equivalence: list[tuple[DatasetSpec, str, Any]] = field(default_factory=list)
    store: Path | None = None
    files: list[Path] = field(default_factory=list)

    @property
    def results(self) -> pd.DataFrame:
        """Every dataset's ResultTable, one after the other; ``dataset`` is the dataset's name."""
        frames = []
        for dataset, study in self.runs:
            frame = study.results.copy()
            frame["dataset"] = dataset.name
            frames.append(frame)
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    @property
    def answer(self) -> pd.DataFrame:
        frames = []
        for dataset, study in self.runs:
            if study.answer is None or study.answer.empty:
                continue
            frame = study.answer.copy()
            if "dataset" in frame.columns:
                frame["dataset"] = dataset.name
            else:
                frame.insert(0, "dataset", dataset.name)
            frames.append(frame)
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    @property
    def orders(self) -> pd.DataFrame:
        """Table 1 of the equivalence analysis for every (dataset, word segmenter)."""
        frames = []
        for dataset, name, result in self.equivalence:
            frame = result.table("orders").copy()
            frame.insert(0, "word_segmenter", name)
            frame.insert(0, "dataset", dataset.name)
            frames.append(frame)
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def signature(self) -> dict[str, Any]:
        """The datasets as declared and the signature of each run."""
        spec = self.spec
        declared = []
        for d in spec.datasets:
            entry: dict[str, Any] = {"name": d.name, "path": d.path}
            for key in ("references", "systems", "segmenters", "metrics", "statistics", "groupings", "kinds", "levels", "word_segmenters"):
                value = spec.choice(d, key) if key not in ("references", "systems") else getattr(d, key)
                if value is not None:
                    entry[key] = list(value)
            if spec.by_for(d) is not None:
                entry["by"] = spec.by_for(d)
            declared.append(entry)
        out: dict[str, Any] = {
            "study": spec.name, "spec": spec.source.name, "analyses": list(spec.analyses), "datasets": declared,
            "settings": {**spec.settings, **spec.statistics_options},
        }  # fmt: skip
        if self.runs:
            out["correlations"] = {d.name: study.signature for d, study in self.runs}
        if self.equivalence:
            out["equivalence"] = {f"{d.name} {name}": r.signature for d, name, r in self.equivalence}
        return out


def _table(frame: pd.DataFrame, float_format: str = "%.6g") -> str:
    buffer = io.StringIO()
    frame.to_csv(buffer, sep="\t", index=False, float_format=float_format, lineterminator="\n")
    return buffer.getvalue()


def study_files(result: StudyResult) -> dict[str, str]:
    """The text of every output file of the study."""
    files = {}
    if result.runs:
        files["results.tsv"] = _table(result.results)
        files["answer.tsv"] = _table(result.answer, "%.10g")
    if result.equivalence:
        files["equivalence.tsv"] = _table(result.orders)
    files["study.json"] = json.dumps(result.signature(), indent=1, sort_keys=True, ensure_ascii=False, default=str) + "\n"
    return files


def write_study(result: StudyResult, out: "str | Path") -> list[Path]:
    """Write the study's files into ``out`` (replacing earlier ones); returns their paths."""
    from metaeval.paths import make_folders
    from metaeval.report.files import write_atomic

    out = Path(out)
    make_folders(out)
    written = []
    for name, text in study_files(result).items():
        written.append(write_atomic(out / name, text, overwrite=True))
    return written


def output_folder(spec: StudySpec, out: "str | Path | None") -> Path:
    """``out`` (``--out``) or the spec's ``out`` key; one of them is needed."""
    if out is not None:
        return Path(out).expanduser()
    if spec.out is None:
        raise UsageError(f"{spec.source}: study.out: missing: name the output folder here or with --out")
    return spec.out


def run_study(
    spec: "StudySpec | str | Path",
    *,
    out: "str | Path | None" = None,
    data: "str | Path | None" = None,
    datasets: Sequence[str] | None = None,
    jobs: int = 1,
    executor: cf.Executor | None = None,
    cache_dir: "str | Path | None" = None,
    progress: Callable[[str, int, int], None] | None = None,
    log: Callable[[str], None] | None = None,
    options: Mapping[str, Any] | None = None,
) -> StudyResult:
    """Run a study and write its outputs: ``metaeval study`` in Python.

    Args:
        spec: the study file (or a :class:`~metaeval.studyspec.StudySpec` already read).
        out: output folder (``--out``; default: the spec's ``out``).
        data: folder the dataset paths are relative to (``--data``; see :mod:`metaeval.studyspec`).
        datasets: names of the datasets to run (default: all of the spec).
        jobs: local worker processes (``--jobs``; 1 works in this process).
        executor: a cluster executor (``--scheduler``); the numbers do not depend on it.
        cache_dir: where computed pieces are kept (``--cache-dir``; default ``<out>/store``).
        progress: called as ``progress(stage, done, total)``.
        log: called with one line per dataset as it starts.
        options: statistics options by their study-file keys (``tie_policy``, ``statistics``...;
            the command line's ``--tie-policy``, ``--statistic``...) in place of the file's own
            (:meth:`~metaeval.studyspec.StudySpec.with_options`), recorded in ``study.json``.

    Returns:
        a :class:`StudyResult`; its files are in the output folder.
    """
    from metaeval.paths import check_writable_folder

    if not isinstance(spec, StudySpec):
        spec = load_spec(spec, data)
    if options:
        from metaeval.studyspec import check_spec

        spec = spec.with_options(options)
        check_spec(spec)
    if datasets is not None:
        known = [d.name for d in spec.datasets]
        unknown = [n for n in datasets if n not in known]
        if unknown:
            raise UsageError(f"{spec.source}: no dataset named {unknown[0]!r}; datasets: {', '.join(known)}")
        spec = replace(spec, datasets=tuple(d for d in spec.datasets if d.name in datasets))
    check_subsets(spec)
    folder = output_folder(spec, out)
    check_writable_folder(folder, "--out")
    store = Path(cache_dir).expanduser() if cache_dir is not None else folder / STORE
    check_writable_folder(store, "store")
    result = compute_study(spec, store, jobs=jobs, executor=executor, progress=progress, log=log)
    result.files = write_study(result, folder)
    return result


def check_subsets(spec: StudySpec) -> None:
    """Before any work: each dataset evaluated per a column (``by``) has a ``docs.tsv`` with it;
    the error names the spec, the dataset, the file and the columns it has."""
    from metaeval.corpora.folder import check_segment_column

    for i, dataset in enumerate(spec.datasets):
        column = spec.by_for(dataset)
        if column is None or "correlations" not in spec.analyses:
            continue
        docs = dataset.folder / "docs.tsv"
        where = f"dataset[{i}].by" if dataset.by is not None else "study.by"
        if not docs.is_file():
            raise UsageError(f"{spec.source}: {where}: dataset {dataset.name!r} has no {docs} to take the column {column!r} from")
        try:
            check_segment_column(docs, column)
        except UsageError as exc:
            raise UsageError(f"{spec.source}: {where}: {exc}") from None


def compute_study(
    spec: StudySpec,
    store: Path,
    *,
    jobs: int = 1,
    executor: cf.Executor | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    log: Callable[[str], None] | None = None,
) -> StudyResult:
    """Every analysis of every dataset, with computed pieces kept in (and read from) ``store``."""
    from metaeval.api import read_corpus
    from metaeval.segmenters.cache import SegmentationCache

    result = StudyResult(spec=spec, store=store)
    corpora: dict[str, Any] = {}
    # One segmentation cache for every dataset (each file is read once, entries held joined);
    # with several datasets, the pool's workers keep the segmentation models they load.
    segmentations = SegmentationCache(store)
    for i, dataset in enumerate(spec.datasets):
        if log:
            log(f"[{i + 1}/{len(spec.datasets)}] {dataset.name}")
        key = str(dataset.folder)
        if key not in corpora:
            if not dataset.folder.is_dir():
                raise DataError(f"{dataset.folder}: corpus folder of dataset {dataset.name!r} not found "
                                f"({spec.source}; set the data folder with --data or METAEVAL_DATA)")
            corpora = {key: read_corpus(dataset.folder, missing=spec.settings["missing"])}  # keep one corpus in memory
        corpus, found = corpora[key]
        if dataset.references is not None or dataset.systems is not None:
            corpus = corpus.subset(systems=dataset.systems, references=dataset.references)
        if "correlations" in spec.analyses:
            result.runs.append((dataset, _correlations(spec, dataset, corpus, found, store, jobs, executor, progress,
                                                       segmentations)))
        if "equivalence" in spec.analyses:
            result.equivalence += _equivalence(spec, dataset, corpus, store)
    return result


def _correlations(spec, dataset, corpus, found, store, jobs, executor, progress, segmentations=None):  # noqa: ANN001, ANN202
    from metaeval.api import read_judgments, run

    human = found
    if dataset.judgments is not None or dataset.human_sys is not None:
        human = read_judgments(dataset.judgments, dataset.human_sys, dataset.judgments_format)
    s = spec.settings
    segs = spec.choice(dataset, "segmenters")
    metrics = spec.choice(dataset, "metrics")
    kinds = spec.choice(dataset, "kinds")
    return run(
        corpus, list(segs) if segs else None, list(metrics) if metrics else None, judgments=human,
        kinds=list(kinds) if kinds else None, settings=spec.settings_for(dataset), missing=s["missing"], jobs=jobs,
        executor=executor, cache_dir=store, progress=progress, doc_level=s["doc_level"], segmentation_cache=segmentations,
        keep_models=len(spec.datasets) > 1, by=spec.by_for(dataset), docs=dataset.folder / "docs.tsv",
    )  # fmt: skip


def _equivalence(spec: StudySpec, dataset: DatasetSpec, corpus, store: Path) -> list[tuple[DatasetSpec, str, Any]]:  # noqa: ANN001
    from metaeval.equivalence import analyse

    settings = spec.equivalence
    char = stored_order_scores(corpus, spec.char_segmenter, settings.max_char_order, store)
    out = []
    for name in spec.choice(dataset, "word_segmenters") or ():
        word = stored_order_scores(corpus, name, settings.max_word_order, store)
        out.append((dataset, name, analyse(word, char, settings, corpus_name=dataset.name)))
    return out


def stored_order_scores(corpus, segmenter: str, max_order: int, store: Path):  # noqa: ANN001, ANN201
    """:func:`metaeval.equivalence.order_scores`, kept in the store by content hash (the
    segmenter and metric signatures, the SHA-256 of the reference and hypothesis texts)."""
    from metaeval.equivalence import OrderScores, order_scores
    from metaeval.metrics.bleu import BLEU
    from metaeval.scoring import get_segmenter
    from metaeval.segmenters.cache import SegmentationCache
    from metaeval.store import Store, references_digest, text_digest

    seg = get_segmenter(segmenter, corpus, store)
    refs = references_digest(corpus)
    hyps = text_digest(t for name, texts in corpus.systems.items() for t in ["\x1e", name] + list(texts))
    key = f"order-scores\n{BLEU(n=max_order, smooth='none').signature()}\n{seg.signature()}\nrefs:{refs}\nhyps:{hyps}"
    kept = Store(store)
    entry = kept.get("orders", key)
    if entry is not None:
        meta = entry["meta"]
        return OrderScores(
            segmenter=meta["segmenter"], segmenter_signature=meta["segmenter_signature"], metric_signature=meta["metric_signature"],
            systems=tuple(meta["systems"]), seg_ids=tuple(meta["seg_ids"]), seg=entry["seg"], sys=entry["sys"],
            ref_lengths=entry["ref_lengths"], hyp_lengths=entry["hyp_lengths"],
        )  # fmt: skip
    scores = order_scores(corpus, seg, max_order, cache=SegmentationCache(store))
    kept.put("orders", key, {"seg": scores.seg, "sys": scores.sys, "ref_lengths": scores.ref_lengths, "hyp_lengths": scores.hyp_lengths}, {
        "segmenter": scores.segmenter, "segmenter_signature": scores.segmenter_signature, "metric_signature": scores.metric_signature,
        "systems": list(scores.systems), "seg_ids": list(scores.seg_ids),
    })  # fmt: skip
    return scores


__all__ = ["STUDY_OUTPUTS", "StudyResult", "check_subsets", "compute_study", "run_study", "stored_order_scores", "study_files", "write_study"]
