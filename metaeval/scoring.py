"""Segmenters x metrics over a corpus: per-segment statistics, then scores at every level.

Each unique text is segmented once per segmenter. Each metric prepares its reference
statistics once per segmenter and shares them with every system. Work is split into chunks of
one segmenter that run on any ``concurrent.futures.Executor`` (a process pool, or a cluster
executor such as Dask's ``Client.get_executor()``): one chunk scores every system with the
metrics whose references cost about as much to prepare as a system to score (BLEU, NIST,
chrF, GTM: prepared once, as in one process), and each group of systems is a chunk of the
metrics whose scoring dominates (:attr:`~metaeval.metrics.base.Metric.split_systems`: TER,
METEOR). Without an executor, everything runs in this process. The numbers do not depend on
the executor.
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import os
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np

from metaeval.corpora.model import Corpus
from metaeval import compute, segmenting
from metaeval.errors import MetaevalError
from metaeval.forms import warn_form_differences
from metaeval.metrics import get_metric
from metaeval.metrics.base import Metric
from metaeval.reuse import Reuse, segment_keys
from metaeval.scoreresult import LEVELS, ScoreResult
from metaeval.scoretable import ConfigScores
from metaeval.segmenting import Pending
from metaeval.statsstore import StatsStore

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



def chunk_plan(choices: Sequence[MetricChoice], systems: Sequence[str], n_chunks: int) -> list[tuple[list[int], list[str]]]:
    """``(metric indices, systems)`` of each chunk of one segmenter: one chunk of every system for
    the metrics that are not :attr:`~metaeval.metrics.base.Metric.split_systems`, then, for
    those that are, one chunk per group of systems (``n_chunks`` groups, every ``n_chunks``-th
    system from the ``i``-th). A single group is a single chunk of every metric."""
    everything = list(range(len(choices)))
    if n_chunks == 1:
        return [(everything, list(systems))]
    split = [m for m in everything if choices[m].metric.split_systems]
    whole = [m for m in everything if m not in split]
    plan = [(whole, list(systems))] if whole else []
    if split:
        plan += [(split, list(systems[i::n_chunks])) for i in range(n_chunks)]
    return plan


def _helps(executor: cf.Executor | None) -> bool:
    """Whether this process scores chunks itself while it waits for workers: with a cluster
    (its cores are not this machine's) or a local pool with fewer workers than CPUs, not with
    one worker per CPU. There a third busy process only takes turns with the workers on the
    same cores, and, busy with a chunk, is late to hand the next segmenter's work out.
    Measured on WMT24 en-zh's default run (docs/performance.md, "Where the parallel run
    waits")."""
    if not isinstance(executor, cf.ProcessPoolExecutor):
        return True
    return int(getattr(executor, "_max_workers", 1)) < compute.usable_cpus()


def _default_chunks(executor: cf.Executor | None) -> int:
    """One chunk in this process (references prepared once); two per worker in a pool."""
    if executor is None:
        return 1
    workers = getattr(executor, "_max_workers", None) or 4
    return 2 * int(workers)



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
    split into ``chunks_per_segmenter`` groups (default: two per worker) for the metrics whose
    scoring dominates, and scored in one chunk for the others (:func:`chunk_plan`), in
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
    seg_sigs = [s.signature() for s in segs]
    metric_sigs = [c.metric.signature() for c in choices]
    stored = StatsStore(as_store(store), corpus)
    systems = corpus.system_names
    n_chunks = max(1, min(len(systems), chunks_per_segmenter or _default_chunks(executor)))
    plan = chunk_plan(choices, systems, n_chunks)
    kinds = [choice.metric.reuse_key() for choice in choices]
    texts = [t for ref in corpus.refs_list() for t in ref]
    texts += [t for hyps in corpus.systems.values() for t in hyps]
    unique = list(dict.fromkeys(texts))

    reuse = Reuse(systems)
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

    helps = _helps(executor)

    def help_until(ready: Callable[[], bool]) -> None:
        """While ``ready()`` is false, score here the chunks no worker has started yet
        (latest first), so this process works instead of waiting, unless it would compete with
        the workers for the cores (:func:`_helps`)."""
        if not helps:
            return
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
    # Rules without a model are segmented here, when their tokens are wanted: sent to a worker,
    # they would wait behind the models loading there and come back pickled.
    known_of = {k: cache.lookup(segs[k], unique) if cache is not None else {} for k in todo_of}
    todo_texts = {k: [t for t in unique if t not in known_of[k]] for k in todo_of}
    on_workers = [k for k in todo_of if todo_texts[k] and not getattr(segs[k], "in_process", False)]
    # A local pool's processes are shared among the segmentations that start together: each
    # forks only its share, so that no more processes segment than there are workers.
    parts = max(1, jobs // max(1, len(on_workers)))
    started: dict[int, tuple[Pending, list[str], dict[str, list[str]]]] = {}
    for k in todo_of:
        seg, known, todo = segs[k], known_of.pop(k), todo_texts.pop(k)
        seg_jobs, seg_executor = (jobs, executor) if k in on_workers else (1, None)
        here = functools.partial(_segment_with_progress, seg, specs[k], todo, seg_jobs, seg_executor, progress)
        work = segmenting.start(seg, specs[k], todo, jobs=seg_jobs, executor=seg_executor, here=here,
                                keep_model=keep_models, parts=parts)
        if progress and work.futures:
            progress(f"segmenting {getattr(seg, 'name', 'texts')}", 0, len(todo))
        started[k] = (work, todo, known)
    # Only a warning, so checked once the segmentations are under way rather than before the
    # workers they start in are forked.
    warn_form_differences(corpus, segs)
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
            keys = segment_keys(kind, ref_tokens, hyp_tokens, reuse.ids.setdefault(kind, {}))
            for system in systems:
                reuse.plan(k, kind, system, keys[system])
            del keys
        for chosen, group in plan:
            rows = {(m, name): reuse.wanted(k, kinds[m], name) for m, name in missing if m in chosen and name in group}
            known_pairs = len(group) * len(chosen) - len(rows)
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
    # and scores them itself, while the workers finish theirs (where it helps at all).
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


__all__ = [
    "LEVELS", "STAGE_UNITS", "MetricChoice", "ProgressCallback", "ScoreResult", "check_distinct", "check_lengths",
    "get_segmenter", "reference_lines", "score_corpus", "segment_unique", "segmenter_label", "shared_tokens",
    "work_units",
]  # fmt: skip
