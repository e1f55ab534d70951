"""Meta-evaluation of scored configurations against human judgments: the ResultTable.

:func:`evaluate` turns :class:`~metaeval.scoretable.ConfigScores` (one per metric x segmenter)
and :class:`~metaeval.corpora.model.Judgments` into one row per (configuration, judgment kind,
level, statistic, grouping), with the columns of :data:`RESULT_COLUMNS`. It dispatches over the
registry (:mod:`metaeval.stats.registry`) alone: each statistic asked for is computed by its
entry's function from a :class:`~metaeval.stats.case.Case` holding the configuration's scores
and the human side (:mod:`metaeval.stats.human`). Every configuration of a run shares one
bootstrap index matrix over segments (seeded), so the intervals of two configurations are
paired, and :func:`metaeval.stats.paired.compare` and the ``clusters`` option test differences
on exactly those resamples.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import math
from collections import deque
from typing import Callable, Iterable, Iterator, Sequence, cast

import numpy as np
import pandas as pd

from metaeval.compute import with_one_blas_thread
from metaeval.corpora.model import Judgments
from metaeval.errors import UsageError
from metaeval.scoretable import ConfigScores
from metaeval.stats import itemstore
from metaeval.stats.case import Case, HumanSide, Item
from metaeval.stats.chance import chance_band
from metaeval.stats.defaults import ALPHA
from metaeval.stats.grouping import undefined_note
from metaeval.stats.human import human_side, resolve_kinds
from metaeval.stats.registry import LEVELS, REGISTRY, StatisticSpec
from metaeval.stats.resampling import bootstrap_indices, percentile_ci, resample_weights, system_draws
from metaeval.stats.result import ChanceBand
from metaeval.stats.settings import Settings

RESULT_COLUMNS = (
    "dataset", "metric", "segmenter", "config", "judgment_kind", "level", "statistic", "grouping",
    "tie_policy", "value", "epsilon", "ci_low", "ci_high", "chance", "chance_low", "chance_high", "n", "p_value", "concordant", "discordant",
    "metric_ties", "human_ties", "sys_human", "note",
)  # fmt: skip
Progress = Callable[[str, int, int], None]
#: Largest bootstrap block (samples x segments) held in memory at once; the default 1000
#: samples of a corpus up to 4,194 segments are one block.
BOOTSTRAP_BLOCK_ELEMENTS = 1 << 22


# --------------------------------------------------------------------------- one configuration


def direction(config: ConfigScores) -> int:
    """+1 when the configuration's metric is higher-better, else -1."""
    return 1 if config.higher_is_better else -1


def subset(config: ConfigScores, systems: list[str]) -> ConfigScores:
    """``config`` restricted to ``systems``, in that order (itself when it already is)."""
    return config if list(config.systems) == systems else config.subset_systems(systems)


def item_keys(human: HumanSide, settings: Settings) -> Iterator[tuple[str, StatisticSpec, str, str]]:
    """``(level, entry, grouping, label)`` of every item ``settings`` ask for against ``human``,
    in row order: segment level, then system level, each in registry order; ``grouping`` is what
    the statistic is computed with, ``label`` the row's grouping column (how pairs were formed
    for pairwise statistics, ``-`` at system level). Statistics whose human scores the kind lacks
    (segment judgments, or system scores) have none."""
    for level in LEVELS:
        for name in settings.wanted(level):
            entry = REGISTRY[name]
            from_segments = level == "seg" or entry.sys_from_segments
            if (human.seg if from_segments else human.sys) is None:
                continue
            if level == "sys":
                yield level, entry, "", "-"
            elif not entry.groupings:
                yield level, entry, "", human.pair_label
            else:
                for grouping in settings.groupings_of(name):
                    yield level, entry, grouping, grouping


def case_of(
    entry: StatisticSpec, level: str, grouping: str, human: HumanSide, settings: Settings, config: ConfigScores | None = None,
    weights: np.ndarray | None = None, metric_samples: np.ndarray | None = None, memo: dict | None = None,
    block: tuple[int, int] | None = None,
) -> Case:
    """The :class:`~metaeval.stats.case.Case` ``entry`` is computed from at ``level`` (no metric
    side without ``config``). ``block``: ``(first, count)`` of the block of resamples when
    systems are resampled, which gives a system-level statistic the systems each resample draws
    among those it is computed over."""
    draws = None
    if block is not None and level == "sys":
        n_systems = len(human.systems if entry.sys_from_segments else human.sys_systems)
        draws = system_draws(settings.seed, n_systems, *block) if n_systems else None
    seg = sys = None
    if config is not None:
        seg = subset(config, human.systems).seg_scores
        sys = subset(config, human.sys_systems).sys_scores if level == "sys" and not entry.sys_from_segments else None
    return Case(
        human, settings, level, grouping, direction(config) if config is not None else 1, seg, sys,
        metric_samples if sys is not None else None, weights, {o: getattr(settings, o) for o in entry.options},
        memo if memo is not None else {}, draws,
    )  # fmt: skip


def configuration_items(
    config: ConfigScores, human: HumanSide, settings: Settings, weights: np.ndarray | None, metric_samples: np.ndarray | None,
    block: tuple[int, int] | None = None,
    chance: bool = True,
) -> list[Item]:
    """Every item of ``config`` against ``human``: each statistic asked for, computed by its
    registry entry (``metric_samples``: the configuration's resampled system scores; ``block``:
    ``(first, count)`` of the block of resamples when systems are resampled, see :func:`case_of`),
    with its chance level when ``chance`` (:mod:`metaeval.stats.chance`; once per run, not per
    block of resamples)."""
    items = []
    memo: dict = {}
    for level, entry, grouping, label in item_keys(human, settings):
        case = case_of(entry, level, grouping, human, settings, config, weights, metric_samples, memo, block)
        result = entry.compute[level](case)
        notes = [entry.note(settings)] if entry.note is not None else []
        if result.counts and result.counts.get("skipped"):
            notes.append(undefined_note(int(result.counts["skipped"]), grouping, settings.undefined))
        sys_human = "" if level == "seg" else "derived" if entry.sys_from_segments else human.sys_human
        band = chance_band(entry, case, result) if chance else ChanceBand()
        items.append(Item(config, human.kind, level, entry.name, label, result, sys_human, "; ".join(notes), band))
    return items


#: How the bootstrap resamples of a system-level row are described, by ``Settings.resample``.
_RESAMPLED = {"segments": "segment resamples", "systems": "resamples of systems", "both": "resamples of segments and systems"}


def _resampling_note(item: Item, settings: Settings, sys_resampling: str) -> str:
    if settings.n_bootstrap == 0:
        return "no bootstrap"
    resampled = _RESAMPLED[settings.resample] if item.level == "sys" else _RESAMPLED["segments"]
    text = f"bootstrap {settings.n_bootstrap} {resampled} (seed {settings.seed})"
    entry = REGISTRY[item.statistic]
    if entry.resampling_note is not None:
        return text + entry.resampling_note(settings, item.grouping)
    if item.level == "sys":
        if settings.resample == "systems":
            metric, human = "metric and human system scores of the full sample", f"human {item.sys_human}"
        else:
            metric = "metric from resampled statistics" if sys_resampling == "stats" else "metric as mean of resampled segment scores"
            human = "human fixed (given)" if item.sys_human == "given" else "human recomputed (derived)"
        text += f"; {metric}; {human}"
    return text


def _row(item: Item, settings: Settings, dataset: str, dropped: list[str]) -> dict:
    r = item.result
    notes = [item.note] if item.note else []
    notes.append(r.undefined_reason if r.undefined_reason else _resampling_note(item, settings, item.config.sys_resampling))
    if dropped:
        notes.append(f"judged systems without scores dropped: {', '.join(dropped)}")
    pairwise = REGISTRY[item.statistic].pairwise
    counts = r.counts or {}
    return {
        "dataset": dataset,
        "metric": item.config.metric,
        "segmenter": item.config.segmenter,
        "config": item.config.config,
        "judgment_kind": item.kind,
        "level": item.level,
        "statistic": item.statistic,
        "grouping": item.grouping,
        "tie_policy": settings.tie_policy if pairwise else "",
        "value": r.value,
        "epsilon": r.epsilon,
        "ci_low": r.ci_low,
        "ci_high": r.ci_high,
        "chance": item.chance.value,
        "chance_low": item.chance.low,
        "chance_high": item.chance.high,
        "n": r.n,
        "p_value": r.p_value,
        "concordant": counts.get("concordant", math.nan) if pairwise else math.nan,
        "discordant": counts.get("discordant", math.nan) if pairwise else math.nan,
        "metric_ties": counts.get("metric_ties", math.nan) if pairwise else math.nan,
        "human_ties": counts.get("human_ties", math.nan) if pairwise else math.nan,
        "sys_human": item.sys_human,
        "note": "; ".join(notes),
    }


# --------------------------------------------------------------------------- runs


def shared_segments(configs: Sequence[ConfigScores]) -> list[str]:
    if not configs:
        raise UsageError("no scored configurations to evaluate")
    seg_ids = list(configs[0].seg_ids)
    for c in configs[1:]:
        if list(c.seg_ids) != seg_ids:
            raise UsageError(
                f"configurations score different segments ({c.metric}/{c.segmenter} vs "
                f"{configs[0].metric}/{configs[0].segmenter}); paired resampling needs the same segments"
            )
    return seg_ids



def _items(
    configs: Sequence[ConfigScores],
    judgments: Judgments,
    kinds: Sequence[str] | None,
    settings: Settings,
    progress: Progress | None = None,
    store=None,  # noqa: ANN001 - a metaeval.store.Store
    executor: cf.Executor | None = None,
) -> list[tuple[Item, list[str]]]:
    """Every item of every configuration. The bootstrap resamples are drawn in blocks of at most
    :data:`BOOTSTRAP_BLOCK_ELEMENTS` (samples x segments) from one seeded stream: each block is
    evaluated on its own and the blocks' samples are joined, so memory grows with the data and
    one block, not with the number of samples (the draws are those of a single draw).

    With an ``executor`` (a process pool, Dask's ``Client.get_executor()``), each block is
    evaluated in tasks of contiguous groups of configurations (:func:`_items_distributed`);
    the blocks and their draws are the same, so the numbers are bit for bit those of this
    process alone."""
    seg_ids = shared_segments(configs)
    kind_list = resolve_kinds(judgments, kinds)
    if store is not None:
        return _items_stored(configs, judgments, kind_list, settings, store, progress, executor)
    first = _first_with_same_scores(configs)
    if len(set(first)) < len(configs):
        distinct = [configs[i] for i in sorted(set(first))]
        computed = _items(distinct, judgments, kind_list, settings, progress, executor=executor)
        return _copied_to_twins(configs, first, computed)
    if not settings.n_bootstrap:
        return _items_on(configs, judgments, kind_list, settings, seg_ids, None, progress, 0, True)
    rng = np.random.default_rng(settings.seed)
    block = max(1, BOOTSTRAP_BLOCK_ELEMENTS // len(seg_ids))
    blocks = (
        (start, bootstrap_indices(len(seg_ids), min(block, settings.n_bootstrap - start), rng))
        for start in range(0, settings.n_bootstrap, block)
    )
    if executor is None or len(configs) == 0:
        per_block: Iterator[list[tuple[Item, list[str]]]] = (
            _items_on(configs, judgments, kind_list, settings, seg_ids, indices, progress if b == 0 else None, start, b == 0)
            for b, (start, indices) in enumerate(blocks)
        )
    else:
        per_block = _items_distributed(configs, judgments, kind_list, settings, seg_ids, blocks, executor, progress)
    merged: list[tuple[Item, list[str]]] = []
    parts: list[list[np.ndarray | None]] = []
    for b, found in enumerate(per_block):
        if b == 0:
            merged, parts = found, [[item.result.samples] for item, _ in found]
        else:
            for i, (item, _) in enumerate(found):
                parts[i].append(item.result.samples)
    if len(parts) and len(parts[0]) > 1:
        for (item, _), samples in zip(merged, parts):
            if samples[0] is None:
                continue
            joined = np.concatenate(cast(list[np.ndarray], samples))
            low, high = percentile_ci(joined, settings.ci) if item.result.defined else (math.nan, math.nan)
            item.result = dataclasses.replace(item.result, samples=joined, ci_low=low, ci_high=high)
    return merged


def _first_with_same_scores(configs: Sequence[ConfigScores]) -> list[int]:
    """For each configuration, the first one with the same metric, scores, statistics,
    systems, segments and direction (itself if none): its items are the same but for the
    name. chrF, which ignores spaces, gives such twins under every segmenter."""
    first: dict[str, int] = {}
    return [first.setdefault(itemstore.config_digest(c, named=False), i) for i, c in enumerate(configs)]


def _copied_to_twins(configs: Sequence[ConfigScores], first: list[int],
                     computed: list[tuple[Item, list[str]]]) -> list[tuple[Item, list[str]]]:
    """The items of every configuration, in order, from those ``computed`` for the first of
    each group of twins (:func:`_first_with_same_scores`)."""
    of: dict[int, list[tuple[Item, list[str]]]] = {}
    for item, dropped in computed:
        of.setdefault(id(item.config), []).append((item, dropped))
    out = []
    for config, source in zip(configs, first):
        for item, dropped in of.get(id(configs[source]), []):
            out.append((dataclasses.replace(item, config=config), list(dropped)))
    return out


#: Blocks of bootstrap resamples evaluated at once by an executor's workers (the next block's
#: tasks are queued while one is collected); with the block bound, this bounds memory.
BLOCKS_IN_FLIGHT = 2


def _items_distributed(
    configs: Sequence[ConfigScores],
    judgments: Judgments,
    kind_list: list[str],
    settings: Settings,
    seg_ids: list[str],
    blocks: Iterable[tuple[int, np.ndarray]],
    executor: cf.Executor,
    progress: Progress | None,
) -> Iterator[list[tuple[Item, list[str]]]]:
    """The items of every configuration, block after block, computed by ``executor``'s workers.

    Each block of resamples goes out as one task per contiguous group of configurations (two
    groups per worker). A configuration's items depend on the configuration, the judgments and
    the block only, never on the group it is computed with, so the result does not depend on
    the executor or the number of workers. At most :data:`BLOCKS_IN_FLIGHT` blocks are queued.
    """
    from metaeval.scoring import _default_chunks
    from metaeval.segmenting import split

    groups = [g for g in split(list(range(len(configs))), min(len(configs), _default_chunks(executor))) if g]
    pending: deque[list[cf.Future]] = deque()
    first = True

    def collect(futures: list[cf.Future]) -> list[tuple[Item, list[str]]]:
        nonlocal first
        out: list[tuple[Item, list[str]]] = []
        for group, future in zip(groups, futures):
            for position, item, dropped in future.result():
                item.config = configs[group[position]]
                out.append((item, dropped))
            if first and progress:
                progress("correlating", group[-1] + 1, len(configs))
        first = False
        return out

    if progress:
        progress("correlating", 0, len(configs))
    for b, (start, indices) in enumerate(blocks):
        # segment indices travel as int32 when they fit (half the bytes); the task restores int64
        small = indices.astype(np.int32) if len(seg_ids) < 2**31 else indices
        pending.append([
            executor.submit(_items_task, [configs[i] for i in group], judgments, kind_list, settings, seg_ids, small, start, b == 0)
            for group in groups
        ])  # fmt: skip
        if len(pending) >= BLOCKS_IN_FLIGHT:
            yield collect(pending.popleft())
    while pending:
        yield collect(pending.popleft())


def _items_task(
    configs: list[ConfigScores],
    judgments: Judgments,
    kind_list: list[str],
    settings: Settings,
    seg_ids: list[str],
    indices: np.ndarray,
    first: int = 0,
    chance: bool = False,
) -> list[tuple[int, Item, list[str]]]:
    """A worker's part of :func:`_items_distributed`: ``(position of the configuration in
    configs, item without its configuration, dropped systems)`` for one block, whose first
    resample is resample ``first`` of the run (with the chance levels when ``chance``)."""
    found = _items_on(configs, judgments, kind_list, settings, seg_ids, indices.astype(np.int64), None, first, chance)
    position = {id(c): k for k, c in enumerate(configs)}
    out = []
    for item, dropped in found:
        k = position[id(item.config)]
        item.config = None  # type: ignore[assignment]  # restored by the caller; not sent back
        out.append((k, item, dropped))
    return out



def _items_stored(configs, judgments, kind_list, settings, store, progress, executor=None):  # noqa: ANN001, ANN202
    """:func:`_items` with each configuration's items kept in ``store`` by content hash:
    configurations seen before are read back (from an entry of these settings, or of settings
    that asked for more, see :func:`_covering_items`), the others computed (together) and stored."""
    judged = itemstore.judgments_digest(judgments)
    digests = [itemstore.config_digest(c) for c in configs]
    keys = [itemstore.config_key(d, judged, kind_list, settings) for d in digests]
    index_keys = [itemstore.index_key(d, judged, settings) for d in digests]
    found = {i: itemstore.load_items(store, key, c) for i, (c, key) in enumerate(zip(configs, keys))}
    for i in [i for i, items in found.items() if items is None]:
        found[i] = itemstore.covering_items(store, index_keys[i], configs[i], kind_list, settings)
    todo = [i for i, items in found.items() if items is None]
    if todo:
        computed = _items([configs[i] for i in todo], judgments, kind_list, settings, progress, executor=executor)
        for i in todo:
            found[i] = [(item, dropped) for item, dropped in computed if item.config is configs[i]]
            itemstore.save_items(store, keys[i], found[i])
            itemstore.index_items(store, index_keys[i], keys[i], kind_list, settings)
    return [pair for i in range(len(configs)) for pair in found[i]]


@with_one_blas_thread
def _items_on(
    configs: Sequence[ConfigScores],
    judgments: Judgments,
    kind_list: list[str],
    settings: Settings,
    seg_ids: list[str],
    indices: np.ndarray | None,
    progress: Progress | None,
    first: int = 0,
    chance: bool = False,
) -> list[tuple[Item, list[str]]]:
    """The items of every configuration on one block of bootstrap resamples (None: none), the
    block's first resample being resample ``first`` of the run (it fixes the system draws, when
    systems are resampled), with their chance levels when ``chance``, computed with one BLAS
    thread wherever this runs: more threads split the weighted sums of the resamples
    differently, which would move the last digits with the machine's cores."""
    weights = None if indices is None else resample_weights(indices, len(seg_ids))
    humans: dict[tuple[str, tuple[str, ...]], HumanSide] = {}
    out: list[tuple[Item, list[str]]] = []
    if progress:
        progress("correlating", 0, len(configs))
    for done, config in enumerate(configs):
        sys_samples: dict[tuple[str, ...], np.ndarray] = {}
        for kind in kind_list:
            key = (kind, tuple(config.systems))
            if key not in humans:
                humans[key] = human_side(judgments, kind, list(config.systems), seg_ids, settings.pair_groups, weights)
            human = humans[key]
            metric_samples = None
            if indices is not None and human.sys is not None and "sys" in settings.levels:
                names = tuple(human.sys_systems)
                if names not in sys_samples:
                    scored = subset(config, human.sys_systems)
                    if settings.resample == "systems":  # full-sample scores; the systems are drawn
                        sys_samples[names] = np.broadcast_to(scored.sys_scores, (len(indices), len(names)))
                    else:
                        sys_samples[names] = scored.resampled_sys_scores(indices)
                metric_samples = sys_samples[names]
            block = (first, len(indices)) if indices is not None and settings.resample != "segments" else None
            for item in configuration_items(config, human, settings, weights, metric_samples, block, chance):
                out.append((item, human.dropped))
        if progress:
            progress("correlating", done + 1, len(configs))
    return out



def evaluate(
    configs: Sequence[ConfigScores],
    judgments: Judgments,
    kinds: Sequence[str] | None = None,
    settings: Settings | None = None,
    *,
    clusters: bool = False,
    alpha: float = ALPHA,
    dataset: str = "",
    progress: Progress | None = None,
    store=None,  # noqa: ANN001 - a metaeval.store.Store or a folder
    return_samples: bool = False,
    executor: cf.Executor | None = None,
    **options: object,
) -> "pd.DataFrame | tuple[pd.DataFrame, np.ndarray]":
    """The ResultTable of ``configs`` against ``judgments``.

    ``settings`` (:class:`~metaeval.stats.settings.Settings`; default: every default) with any
    of its fields given as keywords in ``options`` (``n_bootstrap=200``, ``statistics=[...]``)
    says what is computed and how. One row per (configuration, judgment kind, level, statistic,
    grouping), in the order configurations x kinds x levels (seg, sys) x statistics (registry
    order) x groupings. Segment level: ``consistency``/``kendall_like`` (grouping says how pairs
    were formed; ``n = C + D`` after the tie policy; the count columns hold C and D without
    metric ties, the metric ties and the human ties), the correlations and the tie-aware
    statistics per grouping (``groupings`` empty: each statistic's default); ``epsilon`` holds
    the tie-calibration threshold of ``acc_eq``/``tau_eq``. System level: the correlations,
    ``pairwise_accuracy``, ``soft_pairwise_accuracy`` and ``kendall_c`` (grouping ``-``),
    ``sys_human`` saying which human scores. ``p_value`` is scipy's p-value of the point
    estimate (NaN for pairwise statistics). Kinds present only as system scores give
    system-level rows only. ``kinds=None``: every kind present. With ``clusters=True``, columns
    ``rank`` (competition rank by value) and ``cluster``
    (:func:`~metaeval.stats.significance.significance_clusters` of two-sided paired bootstrap
    p-values at ``alpha``, adjusted over the ranking's pairs as ``settings.adjust`` says) are
    added per ranking (same dataset, kind, level, statistic, grouping, tie policy). Same inputs and seed give the same table. With
    ``return_samples=True`` the result is ``(table, samples)``: row ``i`` of ``samples``
    (``[n_rows, n_bootstrap]``, NaN where undefined) holds the bootstrap values of table row
    ``i``, on resamples shared by every row, so any two rows can be compared pairwise. With an
    ``executor`` (a process pool or Dask's ``Client.get_executor()``) the bootstrap blocks are
    evaluated by its workers, with bit for bit the same result. ``store`` keeps each
    configuration's items by content hash (:mod:`metaeval.stats.itemstore`).
    """
    settings = Settings.build(settings, **options)
    from metaeval.stats.clusters import add_clusters
    from metaeval.store import as_store

    found = _items(configs, judgments, kinds, settings, progress, as_store(store), executor)
    table = pd.DataFrame([_row(item, settings, dataset, dropped) for item, dropped in found], columns=list(RESULT_COLUMNS))
    if clusters:
        add_clusters(table, [item.result for item, _ in found], alpha, settings.adjust)
    if return_samples:
        samples = np.full((len(found), settings.n_bootstrap), np.nan)
        for i, (item, _) in enumerate(found):
            if item.result.samples is not None and len(item.result.samples) == settings.n_bootstrap:
                samples[i] = item.result.samples
        return table, samples
    return table


TIE_FREE_COLUMNS = ("judgment_kind", "level", "statistic", "grouping", "tie_free")


def tie_free_references(
    configs: Sequence[ConfigScores], judgments: Judgments, kinds: Sequence[str] | None = None, settings: Settings | None = None,
    **options: object,
) -> pd.DataFrame:
    """The tie-free reference (each statistic's registry entry, :mod:`metaeval.stats.reference`:
    what a metric with no ties and no information gets) of every ranking :func:`evaluate` gives
    for ``configs``: columns :data:`TIE_FREE_COLUMNS`, one row per (kind, level, statistic,
    grouping), from the human side of the first configuration's systems."""
    settings = Settings.build(settings, **options)
    seg_ids = shared_segments(configs)
    rows = []
    for kind in resolve_kinds(judgments, kinds):
        human = human_side(judgments, kind, list(configs[0].systems), seg_ids, settings.pair_groups, None)
        for level, entry, grouping, label in item_keys(human, settings):
            rows.append((kind, level, entry.name, label, entry.reference(case_of(entry, level, grouping, human, settings))))
    return pd.DataFrame(rows, columns=list(TIE_FREE_COLUMNS))


__all__ = ["RESULT_COLUMNS", "TIE_FREE_COLUMNS", "configuration_items", "evaluate", "item_keys", "tie_free_references"]
