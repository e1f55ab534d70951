"""Segmenters x metrics over a corpus: per-segment statistics, then scores at every level.

Each unique text is segmented once per segmenter. Each metric prepares its reference
statistics once per segmenter and shares them with every system. Work is split into
(segmenter, group of systems) chunks that run on any ``concurrent.futures.Executor``
(a process pool, or a cluster executor such as Dask's ``Client.get_executor()``);
without one, everything runs in this process. The numbers do not depend on the executor.
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import os
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from metaeval.corpora.model import Corpus
from metaeval import segmenting
from metaeval.errors import MetaevalError
from metaeval.forms import warn_form_differences
from metaeval.metrics import get_metric
from metaeval.metrics.base import Metric
from metaeval.scoretable import SCORE_COLUMNS, ConfigScores
from metaeval.segmenting import Pending

LEVELS = ("seg", "doc", "sys")

#: Called as ``progress(stage, done, total)``; each stage starts with ``done = 0``. Stages:
#: ``segmenting <name>`` (unique texts), ``scoring`` (segment scores: one metric on one
#: segment of one system under one segmenter) and, in evaluation, ``correlating``
#: (configurations), in a system leaderboard ``ranking`` (configurations). :data:`STAGE_UNITS`
#: names the unit of each.
ProgressCallback = Callable[[str, int, int], None]
STAGE_UNITS = {"segmenting": "texts", "scoring": "segment scores", "correlating": "configurations", "ranking": "configurations"}
#: Texts segmented between two progress reports.
SEGMENT_BATCH = 500


@dataclass(frozen=True)
class MetricChoice:
    """A metric as the user named it (``spec``) and the metric object built from it."""

    spec: str
    metric: Metric

    @classmethod
    def of(cls, item: "str | Metric | MetricChoice") -> "MetricChoice":
        if isinstance(item, MetricChoice):
            return item
        if isinstance(item, str):
            return cls(item, get_metric(item))
        return cls(getattr(item, "name", type(item).__name__), item)


def get_segmenter(item, corpus: Corpus | None = None, cache_dir=None):  # noqa: ANN001, ANN201 - Segmenter protocol lives in segmenters/
    """A segmenter from a registry spec, or the object itself (a third-party object is
    guarded: what it raises or returns is checked, see ``segmenters.registry.guarded``).

    A segmenter that learns from text (``spm:vocab=8000``) learns from the reference lines
    of ``corpus`` (every reference, in order) and keeps what it learnt in ``cache_dir``.
    """
    from metaeval import segmenters
    from metaeval.segmenters.registry import guarded

    if isinstance(item, str):
        training = reference_lines(corpus) if corpus is not None else None
        return segmenters.get(item, training_text=training, cache_dir=cache_dir)
    if isinstance(item, segmenters.Segmenter):
        return item
    return guarded(getattr(item, "name", None) or type(item).__name__, item)


def segmenter_label(segmenter) -> str:  # noqa: ANN001
    """The row label of a segmenter: the spec it was asked by (``char:nfkc=true``), else its name."""
    return getattr(segmenter, "label", None) or segmenter.name


def check_distinct(segs: Sequence, choices: Sequence["MetricChoice"]) -> None:
    """Refuse a segmenter or a metric given twice, by name or under another spelling
    (same signature), since both rows would be the same numbers."""
    from metaeval.errors import UsageError

    for kind, items in (
        ("segmenter", [(segmenter_label(s), s.signature()) for s in segs]),
        ("metric", [(c.spec, c.metric.signature()) for c in choices]),
    ):
        first: dict[str, str] = {}
        for label, signature in items:
            for key in (f"label:{label}", f"sig:{signature}"):
                if key in first:
                    same = "" if first[key] == label else f" (as {first[key]!r}, same signature)"
                    raise UsageError(f"{kind} {label!r} given twice{same}; give each {kind} once")
            first[f"label:{label}"] = first[f"sig:{signature}"] = label


def reference_lines(corpus: Corpus) -> list[str]:
    """Every line of every reference of ``corpus``, reference after reference."""
    return [text for ref in corpus.refs_list() for text in ref]


def segment_unique(segmenter, texts: Iterable[str], cache=None, progress: ProgressCallback | None = None) -> dict[str, list[str]]:  # noqa: ANN001
    """Segment each distinct text once; return text -> tokens.

    With a :class:`segmenters.cache.SegmentationCache`, texts it holds under the segmenter's
    signature are not segmented again (a cache with a directory persists across runs).
    Without one, texts go to the segmenter in batches of :data:`SEGMENT_BATCH`, and
    ``progress("segmenting <name>", done, total)`` follows them.
    """
    unique = list(dict.fromkeys(texts))
    stage = f"segmenting {getattr(segmenter, 'name', 'texts')}"
    if progress:
        progress(stage, 0, len(unique))
    if cache is not None:
        tokens = cache.segment(segmenter, unique)
    else:
        tokens = []
        for start in range(0, len(unique), SEGMENT_BATCH):
            tokens += segmenter.segment_many(unique[start : start + SEGMENT_BATCH])
            if progress and start + SEGMENT_BATCH < len(unique):
                progress(stage, start + SEGMENT_BATCH, len(unique))
    if progress:
        progress(stage, len(unique), len(unique))
    return dict(zip(unique, tokens))


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


def _score_chunk(
    choices: Sequence[MetricChoice],
    ref_tokens: list[list[list[str]]],
    hyp_tokens: dict[str, list[list[str]]],
    rows: dict[tuple[int, str], np.ndarray | None],
    tick: Callable[[int], None] | None = None,
) -> dict[tuple[int, str], np.ndarray]:
    """Statistics of the requested ``(metric, system)`` rows of one chunk.

    Runs in a worker. ``rows[(m, system)]`` is None for every segment, or the segments to
    compute (the others are reused from an earlier segmenter or system); pairs not in ``rows``
    are known already. A metric prepares its references once for every system of the chunk.
    In this process, ``tick(n)`` reports each (metric, system) done as its ``n`` segment scores.
    """
    out: dict[tuple[int, str], np.ndarray] = {}
    for m, choice in enumerate(choices):
        metric = choice.metric
        shared = None
        for system, hyps in hyp_tokens.items():
            if (m, system) not in rows:
                continue
            wanted = rows[(m, system)]
            if wanted is None:
                if shared is None:
                    shared = metric.prepare(ref_tokens)
                out[(m, system)] = np.asarray(metric.segment_stats(hyps, shared), dtype=float)
            elif len(wanted):
                # the other segments' statistics come from elsewhere: they are computed for an
                # empty hypothesis (next to nothing) against references prepared once
                if shared is None:
                    shared = metric.prepare(ref_tokens)
                keep = np.zeros(len(hyps), dtype=bool)
                keep[wanted] = True
                masked = [tokens if kept else [] for tokens, kept in zip(hyps, keep.tolist())]
                out[(m, system)] = np.asarray(metric.segment_stats(masked, shared), dtype=float)[wanted]
            if tick:
                tick(len(hyps))
    return out


def _segment_keys(kind: str, ref_tokens: list[list[list[str]]], hyp_tokens: Mapping[str, list[list[str]]],
                  ids: dict[Any, int]) -> dict[str, list[tuple]]:
    """Per system and segment, what a metric with this :meth:`~Metric.reuse_key` sees of it:
    ``(hypothesis id, reference ids)``, where ``ids`` numbers each distinct token sequence
    (``tokens``) or character string (``chars``). ``ids`` is kept for the whole run, so equal
    keys mean equal tokens for any two segmenters. A token list shared by several segments
    (one list per distinct text) is numbered once."""
    seen: dict[int, int] = {}
    as_key: Callable[[list[str]], Any] = "".join if kind == "chars" else tuple

    def number(tokens: list[str]) -> int:
        found = seen.get(id(tokens))
        if found is None:
            found = seen[id(tokens)] = ids.setdefault(as_key(tokens), len(ids))
        return found

    refs = list(zip(*[[number(r) for r in ref] for ref in ref_tokens]))
    return {name: [(number(h), refs[i]) for i, h in enumerate(hyps)] for name, hyps in hyp_tokens.items()}


class _Reuse:
    """Finds segments whose statistics were already computed for another (segmenter, system).

    For a metric whose statistics depend on one segment only (``reuse_key``), a segment is
    computed once per distinct (hypothesis, references) as the metric sees them: once for
    all systems that output the same text for it (13% of the system outputs in the seven
    datasets of ``experiments.li2011``), and
    once for all segmenters that split it identically (``char`` and ``cjk-char`` on Chinese
    without Latin words; any segmenter under chrF, which ignores spaces). The first
    (segmenter, system), in segmenter order and then the corpus's system order, computes it.
    """

    def __init__(self, systems: Sequence[str]) -> None:
        self.systems = list(systems)
        #: Per reuse kind, the number of each distinct token sequence (or string) of the run.
        self.ids: dict[str, dict[Any, int]] = {}
        #: Per reuse kind and segment: the first (segmenter, system) of each key.
        self.seen: dict[str, list[dict[tuple, int]]] = {}
        #: (segmenter, kind, system): per segment, the source as segmenter * n_systems + system, -1 if none
        self.sources: dict[tuple[int, str | None, str], np.ndarray] = {}

    def plan(self, k: int, kind: str, system: str, keys: list[tuple]) -> None:
        """Record, for segmenter ``k`` and ``system``, where each segment's statistics come
        from (-1: computed here). Called in segmenter order, then system order."""
        here = k * len(self.systems) + self.systems.index(system)
        seen = self.seen.get(kind)
        if seen is None:
            seen = self.seen[kind] = [{} for _ in keys]
        source = np.fromiter(map(dict.setdefault, seen, keys, repeat(here)), dtype=np.int64, count=len(keys))
        source[source == here] = -1
        self.sources[(k, kind, system)] = source

    def wanted(self, k: int, kind: str | None, system: str) -> np.ndarray | None:
        """Rows to compute (None: every row)."""
        if kind is None:
            return None
        source = self.sources[(k, kind, system)]
        rows = np.flatnonzero(source < 0)
        return None if len(rows) == len(source) else rows

    def assemble(self, k: int, m: int, kind: str | None, system: str, computed: np.ndarray | None,
                 results: dict[tuple[int, int, str], np.ndarray]) -> np.ndarray:
        """The full statistics of (``k``, ``m``, ``system``): rows computed here and rows of the
        sources, which come earlier in the order of :meth:`plan` and so are in ``results``."""
        wanted = self.wanted(k, kind, system)
        if wanted is None:
            return computed  # type: ignore[return-value]
        source = self.sources[(k, kind, system)]
        full: np.ndarray | None = None
        for origin in sorted(set(source[source >= 0].tolist())):
            j, other = divmod(origin, len(self.systems))
            done = results[(j, m, self.systems[other])]
            if full is None:
                full = np.empty((len(source), done.shape[1]))
            rows = np.flatnonzero(source == origin)
            full[rows] = done[rows]
        assert full is not None
        if len(wanted):
            full[wanted] = computed
        return full


def _default_chunks(executor: cf.Executor | None) -> int:
    """One chunk in this process (references prepared once); two per worker in a pool."""
    if executor is None:
        return 1
    workers = getattr(executor, "_max_workers", None) or 4
    return 2 * int(workers)


class _StatsStore:
    """Per-segment statistics of (segmenter, metric, system) in a :class:`~metaeval.store.Store`.

    The key names the metric and segmenter signatures and the SHA-256 of the reference texts
    and of the system's hypothesis texts: the statistics are a function of exactly these.
    """

    def __init__(self, store, corpus: Corpus) -> None:  # noqa: ANN001
        from metaeval.store import reference_sets_digest, references_digest, text_digest

        self.store = store
        self.refs = references_digest(corpus)
        refs_list = corpus.refs_list()
        #: With several references: the digest each would have as the only reference of a corpus.
        self.each_ref = [reference_sets_digest([ref]) for ref in refs_list] if len(refs_list) > 1 else []
        self.hyps = {name: text_digest(hyps) for name, hyps in corpus.systems.items()}

    def key(self, seg_signature: str, metric_signature: str, system: str, refs: str | None = None) -> str:
        return f"{metric_signature}\n{seg_signature}\nrefs:{refs or self.refs}\nhyps:{self.hyps[system]}"

    def get(self, seg_signature: str, metric_signature: str, system: str, n_seg: int, refs: str | None = None) -> np.ndarray | None:
        if self.store is None:
            return None
        entry = self.store.get("stats", self.key(seg_signature, metric_signature, system, refs))
        if entry is None or entry["stats"].ndim != 2 or entry["stats"].shape[0] != n_seg:
            return None
        return entry["stats"]

    def combined(self, seg_signature: str, metric: Metric, metric_signature: str, system: str, n_seg: int) -> np.ndarray | None:
        """Statistics against all references, from those a run on each reference alone stored
        (:meth:`~metaeval.metrics.base.Metric.combine_references`), kept under this corpus's key;
        None if the metric cannot combine them or one reference's are not stored."""
        combine = getattr(metric, "combine_references", None)  # a plug-in metric may lack it
        if self.store is None or not self.each_ref or combine is None:
            return None
        if getattr(type(metric), "combine_references", None) is Metric.combine_references:
            return None  # the default never combines (BLEU, NIST, GTM): nothing to read
        per_reference = []
        for digest in self.each_ref:
            stats = self.get(seg_signature, metric_signature, system, n_seg, refs=digest)
            if stats is None:
                return None
            per_reference.append(stats)
        combined = combine(per_reference)
        if combined is None or np.shape(combined) != per_reference[0].shape:
            return None
        combined = np.asarray(combined, dtype=np.float64)
        self.put(seg_signature, metric_signature, system, combined)
        return combined

    def put(self, seg_signature: str, metric_signature: str, system: str, stats: np.ndarray) -> None:
        if self.store is not None:
            self.store.put("stats", self.key(seg_signature, metric_signature, system), {"stats": stats})

    def _measure_key(self, seg_signature: str) -> str:
        return f"reference characters and tokens\n{seg_signature}\nrefs:{self.refs}"

    def measure_references(self, seg_signature: str, tokens: Sequence[Sequence[Sequence[str]]]) -> float:
        """Mean characters per token of the references' ``tokens`` (the sweep's measure),
        kept in the store (once) for runs that will not segment them."""
        counts = np.array([sum(len(t) for ref in tokens for seg in ref for t in seg), sum(len(seg) for ref in tokens for seg in ref)])
        key = self._measure_key(seg_signature)
        if self.store is not None and not self.store.path("stats", key).exists():
            self.store.put("stats", key, {"stats": counts.astype(np.float64)})
        return _ratio(counts)

    def stored_reference_measure(self, seg_signature: str) -> float | None:
        """What :meth:`measure_references` kept for this segmenter and these references, if anything."""
        entry = None if self.store is None else self.store.get("stats", self._measure_key(seg_signature))
        if entry is None or entry["stats"].shape != (2,):
            return None
        return _ratio(entry["stats"])


def _ratio(counts: np.ndarray) -> float:
    return float(counts[0] / counts[1]) if counts[1] else float("nan")


def score_corpus(
    corpus: Corpus,
    segmenters: Sequence,
    metrics: Sequence["str | Metric | MetricChoice"],
    *,
    executor: cf.Executor | None = None,
    jobs: int = 1,
    chunks_per_segmenter: int | None = None,
    progress: ProgressCallback | None = None,
    cache=None,  # noqa: ANN001 - a SegmentationCache, or a folder for one
    store=None,  # noqa: ANN001 - a metaeval.store.Store, or a folder for one
    keep_models: bool = False,
) -> ScoreResult:
    """Score every system of ``corpus`` with every (segmenter, metric) pair.

    ``segmenters`` are registry specs or segmenter objects; ``metrics`` are specs
    (``"bleu:n=18,smooth=none"``) or metric objects. Segmentation of the unique texts is
    split over ``jobs`` local processes, or over the workers of a cluster ``executor``
    (:mod:`metaeval.segmenting`). With an ``executor``, the systems of each segmenter are
    split into ``chunks_per_segmenter`` groups (default: two per worker) that are scored in
    parallel while the next segmenter is segmented; results are identical to serial scoring.
    Statistics that depend on one segment only are computed once per distinct hypothesis and
    references as the metric sees them: across systems that output the same text for a
    segment and across segmenters that split it identically. ``cache`` is a
    :class:`segmenters.cache.SegmentationCache` or a folder to keep one in; ``store`` (a
    :class:`metaeval.store.Store` or a folder) keeps the per-segment statistics by content
    hash: a segmenter whose statistics are all stored is not even run. ``keep_models``: the
    workers of a local pool keep the segmentation models they load, for later runs on the same
    pool (a study's datasets); by default they drop them and score with less memory.
    """
    from metaeval.store import as_store

    choices = [MetricChoice.of(m) for m in metrics]
    specs = [s if isinstance(s, str) else None for s in segmenters]
    if isinstance(cache, (str, os.PathLike)):
        from metaeval.segmenters.cache import SegmentationCache

        cache = SegmentationCache(cache)
    segs = [get_segmenter(s, corpus, getattr(cache, "directory", None)) for s in segmenters]
    check_distinct(segs, choices)
    warn_form_differences(corpus, segs)
    seg_sigs = [s.signature() for s in segs]
    metric_sigs = [c.metric.signature() for c in choices]
    stored = _StatsStore(as_store(store), corpus)
    systems = corpus.system_names
    n_chunks = max(1, min(len(systems), chunks_per_segmenter or _default_chunks(executor)))
    groups = [systems[i::n_chunks] for i in range(n_chunks)]
    kinds = [choice.metric.reuse_key() for choice in choices]
    texts = [t for ref in corpus.refs_list() for t in ref]
    texts += [t for hyps in corpus.systems.values() for t in hyps]
    unique = list(dict.fromkeys(texts))

    reuse = _Reuse(systems)
    chars_per_token: dict[str, float] = {}  # of the references, per segmenter label
    total, done_units = work_units(corpus, len(segs), len(choices)), [0]
    n_seg = corpus.n_segments

    def report(units: int) -> None:
        done_units[0] += units
        if progress:
            progress("scoring", done_units[0], total)

    results: dict[tuple[int, int, str], np.ndarray] = {}
    computed: dict[tuple[int, int, str], np.ndarray] = {}
    pending: dict[cf.Future, tuple[int, list[str], tuple]] = {}
    planned: set[int] = set()

    def collect(k: int, done: dict[tuple[int, str], np.ndarray], pairs: int = 0) -> None:
        """Keep a chunk's statistics; ``pairs`` (metric, system) pairs done out of this process."""
        for (m, system), stats in done.items():
            computed[(k, m, system)] = stats
        if pairs:
            report(pairs * n_seg)

    def help_until(ready: Callable[[], bool]) -> None:
        """While ``ready()`` is false, score here the chunks no worker has started yet
        (latest first), so this process works instead of waiting."""
        for future in reversed(list(pending)):
            if ready():
                return
            if future.cancel():
                k, _, (chosen, refs, chunk, rows) = pending.pop(future)
                collect(k, _score_chunk(chosen, refs, chunk, rows, report))

    if progress:
        progress("scoring", 0, total)
    todo_of: dict[int, list[tuple[int, str]]] = {}
    for k in range(len(segs)):
        for m in range(len(choices)):
            for system in systems:
                found = stored.get(seg_sigs[k], metric_sigs[m], system, corpus.n_segments)
                if found is None:
                    found = stored.combined(seg_sigs[k], choices[m].metric, metric_sigs[m], system, corpus.n_segments)
                if found is not None:
                    results[(k, m, system)] = found
        missing = [(m, s) for m in range(len(choices)) for s in systems if (k, m, s) not in results]
        if missing:
            todo_of[k] = missing
        else:
            report(len(systems) * len(choices) * n_seg)
            measure = stored.stored_reference_measure(seg_sigs[k])
            if measure is not None:
                chars_per_token[segmenter_label(segs[k])] = measure
    if isinstance(executor, cf.ProcessPoolExecutor):
        # Loaded here, before the first task forks the pool's workers, compiled kernels are
        # shared with them rather than loaded once more in each.
        for m in sorted({m for missing in todo_of.values() for m, _ in missing}):
            choices[m].metric.preload()
    # Every segmentation starts now (on workers where there are any), in segmenter order.
    started: dict[int, tuple[Pending, list[str], dict[str, list[str]]]] = {}
    for k, missing in todo_of.items():
        seg = segs[k]
        known = cache.lookup(seg, unique) if cache is not None else {}
        todo = [t for t in unique if t not in known]
        here = functools.partial(_segment_with_progress, seg, specs[k], todo, jobs, executor, progress)
        work = segmenting.start(seg, specs[k], todo, jobs=jobs, executor=executor, here=here, keep_model=keep_models)
        if progress and work.futures:
            progress(f"segmenting {getattr(seg, 'name', 'texts')}", 0, len(todo))
        started[k] = (work, todo, known)
    for k, seg in enumerate(segs):
        if k not in started:
            continue
        work, todo, known = started.pop(k)
        in_workers = bool(work.futures)
        help_until(work.done)
        tokens = work.result()
        if progress and in_workers:
            progress(f"segmenting {getattr(seg, 'name', 'texts')}", len(todo), len(todo))
        known.update(zip(todo, tokens))
        if cache is not None and todo:
            cache.store(seg, {t: known[t] for t in todo})
        table = shared_tokens(known)
        del work, tokens, known
        missing = todo_of[k]
        ref_tokens = [[table[t] for t in ref] for ref in corpus.refs_list()]
        chars_per_token[segmenter_label(seg)] = stored.measure_references(seg_sigs[k], ref_tokens)
        hyp_tokens = {name: [table[t] for t in hyps] for name, hyps in corpus.systems.items()}
        del table
        check_lengths(corpus, segmenter_label(seg), [choices[m] for m in sorted({m for m, _ in missing})],
                      ref_tokens, hyp_tokens)
        planned.add(k)
        for kind in sorted({kind for kind in kinds if kind}):
            keys = _segment_keys(kind, ref_tokens, hyp_tokens, reuse.ids.setdefault(kind, {}))
            for system in systems:
                reuse.plan(k, kind, system, keys[system])
            del keys
        for group in groups:
            rows = {(m, name): reuse.wanted(k, kinds[m], name) for m, name in missing if name in group}
            known_pairs = len(group) * len(choices) - len(rows)
            if known_pairs:
                report(known_pairs * n_seg)
            if not rows:
                continue
            chunk = {name: hyp_tokens[name] for name in group}
            if executor is None:
                collect(k, _score_chunk(choices, ref_tokens, chunk, rows, report))
            else:
                args = (choices, ref_tokens, chunk, rows)
                pending[executor.submit(_score_chunk, *args)] = (k, group, args)
    # Segmentation is over: this process takes back the chunks no worker has started yet
    # and scores them itself, while the workers finish theirs.
    help_until(lambda: False)
    for future in cf.as_completed(list(pending)):
        k, group, args = pending[future]
        collect(k, future.result(), pairs=len(args[3]))

    for k in range(len(segs)):
        for m in range(len(choices)):
            for system in systems:
                if (k, m, system) in results:
                    continue
                reuse_kind = kinds[m] if k in planned else None
                stats = reuse.assemble(k, m, reuse_kind, system, computed.get((k, m, system)), results)
                results[(k, m, system)] = stats
                stored.put(seg_sigs[k], metric_sigs[m], system, stats)

    configs: list[ConfigScores] = []
    for k, seg in enumerate(segs):
        for m, choice in enumerate(choices):
            stats = np.stack([results[(k, m, system)] for system in systems])
            metric = choice.metric
            configs.append(
                ConfigScores(
                    metric=choice.spec,
                    segmenter=segmenter_label(seg),
                    config=f"{metric_sigs[m]}+{seg_sigs[k]}",
                    systems=list(systems),
                    seg_ids=list(corpus.seg_ids),
                    seg_scores=np.asarray(metric.score(stats), dtype=float),
                    sys_scores=np.asarray(metric.score(stats.sum(axis=1)), dtype=float),
                    higher_is_better=bool(metric.higher_is_better),
                    stats=stats,
                    score_fn=metric.score,
                )
            )
    return ScoreResult(
        corpus=corpus,
        configs=configs,
        segmenter_signatures={segmenter_label(s): sig for s, sig in zip(segs, seg_sigs)},
        metric_signatures={c.spec: sig for c, sig in zip(choices, metric_sigs)},
        reference_chars_per_token=chars_per_token,
    )


def check_lengths(corpus: Corpus, segmenter: str, choices: Sequence[MetricChoice],
                  ref_tokens: list[list[list[str]]], hyp_tokens: dict[str, list[list[str]]]) -> None:
    """Raise a one-line error naming the corpus, file and segment when a segment is longer
    than a metric scores (:meth:`~metaeval.metrics.base.Metric.max_tokens`, TER's ``max_len``),
    before any scoring starts."""
    limits = [(n, k) for k, c in enumerate(choices) if (n := c.metric.max_tokens()) is not None]
    if not limits:
        return
    limit, k = min(limits)
    choice = choices[k]
    sides = [(f"reference {name!r}", f"ref:{name}", toks) for name, toks in zip(corpus.references, ref_tokens)]
    sides += [(f"system {name!r}", f"sys:{name}", toks) for name, toks in hyp_tokens.items()]
    for what, key, segments in sides:
        for i, tokens in enumerate(segments):
            if len(tokens) > limit:
                from metaeval.metrics import UPPER_BOUNDS
                from metaeval.metrics.base import parse_spec

                where = f"corpus {corpus.name!r}, " if corpus.name else ""
                path = corpus.origin.get(key)
                raise MetaevalError(
                    f"{where}{what}{f' ({path})' if path else ''}, segment {corpus.seg_ids[i]}: {len(tokens)} "
                    f"tokens under {segmenter}, above the limit of {limit} tokens of metric {choice.spec!r}; raise it "
                    f"with -m {parse_spec(choice.spec)[0]}:max_len=N (up to {UPPER_BOUNDS['max_len']}) or use a "
                    "coarser segmenter"
                )


def shared_tokens(table: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """``text -> tokens`` with one string object per distinct token and one list per distinct
    text: every occurrence of a text (in any system or reference) refers to the same list, which
    no metric changes. Memory then grows with the distinct texts and token types, not with the
    occurrences, and a chunk of work pickled to a worker carries each token type once (pickle
    writes a repeated object as a reference), so the worker's copy is as small."""
    return dict(zip(table, segmenting.interned(list(table.values()))))


def _segment_with_progress(seg, spec, texts: list[str], jobs: int, executor, progress: ProgressCallback | None) -> list:  # noqa: ANN001
    """:func:`metaeval.segmenting.segment_texts` in batches, reporting ``segmenting <name>``
    (texts) after each, so a slow segmenter shows movement."""
    from metaeval.segmenting import segment_texts

    stage = f"segmenting {getattr(seg, 'name', 'texts')}"
    if progress:
        progress(stage, 0, len(texts))
    batch = SEGMENT_BATCH * max(1, jobs) * (4 if executor is not None else 1)
    out: list = []
    for start in range(0, len(texts), batch):
        out += segment_texts(seg, spec, texts[start : start + batch], jobs=jobs, executor=executor)
        if progress:
            progress(stage, len(out), len(texts))
    if progress and not texts:
        progress(stage, 0, 0)
    return out


def work_units(corpus: Corpus, n_segmenters: int, n_metrics: int = 1) -> int:
    """Total of the ``scoring`` stage of :func:`score_corpus`: segment scores to compute."""
    return n_segmenters * n_metrics * len(corpus.systems) * corpus.n_segments
