"""Meta-evaluation of scored configurations against human judgments: the ResultTable.

:func:`evaluate` turns :class:`~metaeval.scoretable.ConfigScores` (one per metric x
segmenter) and :class:`~corpora.model.Judgments` into one row per (configuration, judgment
kind, level, statistic, grouping), with the columns of :data:`RESULT_COLUMNS`. Every
configuration of a run shares one bootstrap index matrix over segments (seeded), so the
intervals of two configurations are paired, and :func:`compare` / the ``clusters`` option
of :func:`evaluate` test differences on exactly those resamples.

Human scores used (DESIGN.md, "Meta-evaluation"):

- segment level: the judgment of each (system, segment) averaged over judges; pairwise
  consistency compares systems within a (segment, judge) group when judges ranked several
  systems, otherwise within a segment after averaging (``pair_groups``);
- system level: the given system scores of that kind (``judgments.system_scores``) when
  present (``sys_human = given``, fixed under resampling), else the mean segment judgment
  per system, or mean rank for ranks (``derived``, recomputed on every resample).

Only systems both scored and judged are used; judged systems without scores (human
translators...) are dropped and named in ``note``.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Sequence, TypeVar, cast

import numpy as np
import pandas as pd

from metaeval.corpora.model import Judgments
from metaeval.correlation import (
    CORRELATIONS,
    GROUPINGS,
    PAIRWISE,
    TIE_POLICIES,
    Correlation,
    bootstrap_indices,
    correlate_vectors,
    consistency,
    pair_counts,
    paired_bootstrap_test,
    paired_permutation_test,
    percentile_ci,
    resample_weights,
    segment_correlation,
    significance_clusters,
    system_correlation,
)
from metaeval.compute import with_one_blas_thread
from metaeval.errors import UsageError
from metaeval.scoretable import ConfigScores
from metaeval.syspairs import (
    DEFAULT_PERMUTATIONS,
    pairwise_accuracy,
    soft_pairwise_accuracy,
    swap_signs,
    system_kendall_c,
    williams_test,
)
from metaeval.tiestats import AVERAGES, CALIBRATED, SEGMENT_STATISTICS, UNDEFINED_POLICIES, Options, tie_statistic

_T = TypeVar("_T")

RESULT_COLUMNS = (
    "dataset", "metric", "segmenter", "config", "judgment_kind", "level", "statistic", "grouping",
    "tie_policy", "value", "epsilon", "ci_low", "ci_high", "n", "p_value", "concordant", "discordant",
    "metric_ties", "human_ties", "sys_human", "note",
)  # fmt: skip
LEVELS = ("seg", "sys")


@dataclass(frozen=True)
class StatisticSpec:
    """One entry of the statistics registry: where a statistic exists and how it is grouped.

    ``groupings``: the groupings it accepts at segment level (empty: pairs formed per segment
    or per (segment, judge), Li et al. 2011); ``default_grouping``: used when none is asked for;
    ``ties``: how human and metric ties count, for the reader.
    """

    name: str
    levels: tuple[str, ...]
    groupings: tuple[str, ...]
    default_grouping: str
    ties: str


REGISTRY: dict[str, StatisticSpec] = {
    spec.name: spec
    for spec in (
        StatisticSpec("consistency", ("seg",), (), "", "human ties skipped; metric ties by tie policy (Li et al. 2011)"),
        StatisticSpec("kendall_like", ("seg",), (), "", "as consistency; (C - D) / (C + D)"),
        StatisticSpec("pearson", ("seg", "sys"), GROUPINGS, "none", "no tie handling"),
        StatisticSpec("spearman", ("seg", "sys"), GROUPINGS, "none", "mid-ranks"),
        StatisticSpec("kendall", ("seg", "sys"), GROUPINGS, "none", "tau-b"),
        StatisticSpec("kendall_b", ("seg",), GROUPINGS, "none", "tau-b (mt-metrics-eval KendallVariants b)"),
        StatisticSpec("kendall_c", ("seg", "sys"), GROUPINGS, "none", "tau-c"),
        StatisticSpec("kendall_23", ("seg",), GROUPINGS, "none", "ties count; tied by both = correct (Deutsch et al. 2023)"),
        StatisticSpec("kendall_acc23", ("seg",), GROUPINGS, "none", "ties count; tied by both = correct (Deutsch et al. 2023)"),
        StatisticSpec("acc_eq", ("seg",), GROUPINGS, "item", "acc23 with tie calibration (WMT23)"),
        StatisticSpec("tau_eq", ("seg",), GROUPINGS, "item", "tau23 with tie calibration"),
        StatisticSpec("pairwise_accuracy", ("sys",), (), "-", "a pair tied on both sides agrees (Kocmi et al. 2021)"),
        StatisticSpec("soft_pairwise_accuracy", ("sys",), (), "-", "from permutation p-values (Thompson et al. 2024, WMT24)"),
    )
}
STATISTICS = tuple(REGISTRY)
#: Statistics computed by default, as ``level:statistic``: Li et al. 2011's segment-level
#: consistency (with its Kendall-like twin) and Pearson, every system-level correlation, and
#: the WMT23-24 statistics: ``acc_eq`` grouped by item, pairwise and soft pairwise accuracy.
#: A bare name (``spearman``) asks for the statistic at every level where it exists.
DEFAULT_STATISTICS = (
    "seg:consistency", "seg:kendall_like", "seg:pearson", "seg:acc_eq", "sys:pearson", "sys:spearman",
    "sys:kendall", "sys:pairwise_accuracy", "sys:soft_pairwise_accuracy",
)  # fmt: skip
PAIR_GROUPS = ("auto", "judge", "segment")
#: Grouping label of pairwise rows: pairs within a segment, or within a (segment, judge).
PAIR_GROUP_LABELS = {"segment": "segment", "judge": "segment+judge"}
COMPARE_METHODS = ("bootstrap", "permutation", "williams")

Progress = Callable[[str, int, int], None]
#: Largest bootstrap block (samples x segments) held in memory at once; the default 1000
#: samples of a corpus up to 4,194 segments are one block.
BOOTSTRAP_BLOCK_ELEMENTS = 1 << 22


def parse_statistic(spec: str) -> tuple[str, str, str | None]:
    """``LEVEL:NAME[@GROUPING]`` -> ``(level or "", name, grouping or None)``."""
    head, _, grouping = spec.partition("@")
    level, _, name = head.rpartition(":")
    return level, name, grouping or None


@dataclass(frozen=True)
class Settings:
    """Options of one meta-evaluation run (validated on construction).

    ``groupings``: segment-level groupings asked for; empty means each statistic's default
    (:data:`REGISTRY`). ``average``/``undefined``: how grouped tie-aware statistics average
    (mt-metrics-eval ``macro``, ``replace_nans_with_zeros``). ``refit_epsilon``: re-fit the
    tie-calibration threshold on each bootstrap resample. ``permutations`` and
    ``permutation_seed``: the segment swaps of soft pairwise accuracy (a seed of its own, so
    that its value does not move with the bootstrap seed).
    """

    tie_policy: str = "exclude"
    threshold: float | None = None
    groupings: tuple[str, ...] = ()
    statistics: tuple[str, ...] = DEFAULT_STATISTICS
    levels: tuple[str, ...] = LEVELS
    n_bootstrap: int = 1000
    seed: int = 12345
    ci: float = 0.95
    pair_groups: str = "auto"
    average: str = "macro"
    undefined: str = "skip"
    refit_epsilon: bool = True
    permutations: int = DEFAULT_PERMUTATIONS
    permutation_seed: int = 12345

    def __post_init__(self) -> None:
        for spec in self.statistics:
            level, name, grouping = parse_statistic(spec)
            entry = REGISTRY.get(name)
            if entry is None or level not in ("",) + LEVELS or (level and level not in entry.levels):
                known = ", ".join(f"{lv}:{k}" for k, e in REGISTRY.items() for lv in e.levels)
                raise UsageError(f"unknown statistic {spec!r}; known: {known}")
            if grouping is not None and grouping not in entry.groupings:
                raise UsageError(
                    f"statistic {spec!r}: {name} takes no grouping {grouping!r}; "
                    f"groupings: {', '.join(entry.groupings) or '(none: pairs are formed per segment)'}"
                )
        checks: tuple[tuple[str, tuple, tuple], ...] = (
            ("tie policy", (self.tie_policy,), TIE_POLICIES),
            ("grouping", self.groupings, GROUPINGS),
            ("level", self.levels, LEVELS),
            ("pair grouping", (self.pair_groups,), PAIR_GROUPS),
            ("averaging", (self.average,), AVERAGES),
            ("undefined policy", (self.undefined,), UNDEFINED_POLICIES),
        )
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) or self.seed < 0:
            raise UsageError(f"seed must be a non-negative integer, got {self.seed!r}")
        for label, given, allowed in checks:
            bad = [g for g in given if g not in allowed]
            if bad:
                raise UsageError(f"unknown {label} {bad[0]!r}; known: {', '.join(allowed)}")
        if self.threshold is not None and not (self.threshold >= 0):
            raise UsageError(f"threshold must be a non-negative number, got {self.threshold!r}")
        if not isinstance(self.n_bootstrap, (int, np.integer)) or self.n_bootstrap < 0:
            raise UsageError(f"n_bootstrap must be a non-negative integer, got {self.n_bootstrap!r}")
        if self.n_bootstrap == 1:
            raise UsageError(BOOTSTRAP_ONE)
        if not isinstance(self.permutations, (int, np.integer)) or self.permutations < 1:
            raise UsageError(f"permutations must be a positive integer, got {self.permutations!r}")
        if not 0.0 < self.ci < 1.0:
            raise UsageError(f"ci must be in (0, 1), got {self.ci!r}")

    def wanted(self, level: str) -> list[str]:
        """Statistics to compute at ``level``, in :data:`STATISTICS` order."""
        if level not in self.levels:
            return []
        asked = {name for lv, name, _ in map(parse_statistic, self.statistics) if lv in ("", level)}
        return [k for k in STATISTICS if k in asked and level in REGISTRY[k].levels]

    def groupings_of(self, statistic: str) -> tuple[str, ...]:
        """Segment-level groupings of ``statistic``: those named in its specs
        (``seg:acc_eq@item``), else the ones asked for (``groupings``), else its default."""
        entry = REGISTRY[statistic]
        if not entry.groupings:
            return ()
        named = [g for lv, name, g in map(parse_statistic, self.statistics) if name == statistic and lv != "sys" and g]
        return tuple(dict.fromkeys(named)) or self.groupings or (entry.default_grouping,)

    def tie_options(self, grouping: str) -> Options:
        return Options(grouping, self.average, self.undefined, self.refit_epsilon)


# --------------------------------------------------------------------------- human side


#: Why one resample is refused: a percentile interval of one value is that value.
BOOTSTRAP_ONE = (
    "n_bootstrap=1 is undefined: a confidence interval needs at least 2 resamples "
    "(use 0 for no intervals, or 1000 as by default)"
)


@dataclass(eq=False)
class _Human:
    """Human scores of one kind for one ordered list of systems."""

    kind: str
    direction: int
    systems: list[str]
    dropped: list[str]
    seg: np.ndarray | None  # [n_sys, n_seg], mean over judges
    groups: np.ndarray | None  # [n_sys, n_groups] for pairwise comparisons
    group_segments: np.ndarray | None
    pair_label: str
    sys_systems: list[str]  # systems with a system-level human score, in order
    sys: np.ndarray | None  # [len(sys_systems)]
    sys_human: str  # given | derived | ""
    sys_samples: np.ndarray | None = field(default=None, repr=False)
    cache: dict = field(default_factory=dict, repr=False)  # human-side work shared by configs
    signs: np.ndarray | None = field(default=None, repr=False)  # segment swaps of soft pairwise accuracy


def _judged_systems(judgments: Judgments, kind: str) -> list[str]:
    table = judgments.table
    seg_systems = list(dict.fromkeys(table.loc[table["kind"] == kind, "system"]))
    given = judgments.system_scores
    if not seg_systems and given is not None and kind in judgments.system_kinds:
        return [str(s) for s in given.index[given[kind].notna()]]
    return seg_systems


def _pair_groups(
    sub: pd.DataFrame, systems: list[str], seg_index: dict[str, int], mode: str
) -> tuple[np.ndarray, np.ndarray, str]:
    """Human matrix ``[n_sys, n_groups]`` and the segment of each group."""
    sub = sub[sub["system"].isin(systems) & sub["seg_id"].isin(seg_index)]
    if mode == "auto":
        sizes = sub.groupby(["seg_id", "judge"], sort=False)["system"].transform("size")
        mode = "judge" if len(sub) and float((sizes >= 2).mean()) >= 0.5 else "segment"
    keys = ["seg_id", "judge"] if mode == "judge" else ["seg_id"]
    if sub.empty:  # no scored system was judged: every statistic is undefined
        return np.full((len(systems), 0), np.nan), np.zeros(0, dtype=int), PAIR_GROUP_LABELS[mode]
    cells = sub.groupby(keys + ["system"], sort=True)["value"].mean().reset_index()
    group_codes, group_keys = pd.factorize(pd.MultiIndex.from_frame(cells[keys]), sort=True)
    sys_index = {s: i for i, s in enumerate(systems)}
    matrix = np.full((len(systems), len(group_keys)), np.nan)
    matrix[cells["system"].map(sys_index).to_numpy(), group_codes] = cells["value"].to_numpy(float)
    group_segments = np.array([seg_index[k[0]] for k in group_keys], dtype=int)
    return matrix, group_segments, PAIR_GROUP_LABELS[mode]


def _human(
    judgments: Judgments, kind: str, systems: list[str], seg_ids: list[str], settings: Settings, weights: np.ndarray | None
) -> _Human:
    judged = set(_judged_systems(judgments, kind))
    used = [s for s in systems if s in judged]
    dropped = sorted(judged - set(systems))
    seg_index = {s: j for j, s in enumerate(seg_ids)}
    sub = judgments.table[judgments.table["kind"] == kind]
    seg = groups = group_segments = None
    pair_label = ""
    if not sub.empty:
        seg = judgments.segment_matrix(kind, used, seg_ids)
        groups, group_segments, pair_label = _pair_groups(sub, used, seg_index, settings.pair_groups)
    given = judgments.system_scores
    sys_systems, sys_scores, sys_human, sys_samples = used, None, "", None
    if given is not None and kind in judgments.system_kinds:
        column = given[kind]
        sys_systems = [s for s in used if s in column.index and not pd.isna(column[s])]
        dropped += sorted(set(judged) & set(column.index) - set(systems))
        sys_scores, sys_human = column[sys_systems].to_numpy(float), "given"
    elif seg is not None:
        judged_cells = ~np.isnan(seg)
        values = np.where(judged_cells, seg, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            sys_scores = values.sum(1) / judged_cells.sum(1)
            if weights is not None:
                sys_samples = (weights @ values.T) / (weights @ judged_cells.T.astype(float))
        sys_human = "derived"
    return _Human(
        kind, judgments.direction(kind), used, sorted(set(dropped)), seg, groups, group_segments, pair_label,
        sys_systems, sys_scores, sys_human, sys_samples,
    )  # fmt: skip


# --------------------------------------------------------------------------- one configuration


@dataclass(eq=False)
class _Item:
    """One result before it becomes a row: its keys and the statistic with samples."""

    config: ConfigScores
    kind: str
    level: str
    statistic: str
    grouping: str
    result: Correlation
    sys_human: str
    note: str


def _present(value: _T | None) -> _T:
    """``value``, which the caller's level guarantees is there (a human side built for that level)."""
    assert value is not None
    return value


def _direction(config: ConfigScores) -> int:
    return 1 if config.higher_is_better else -1


def _seg_items(config: ConfigScores, human: _Human, settings: Settings, weights: np.ndarray | None) -> list[_Item]:
    items: list[_Item] = []
    if human.seg is None:
        return items
    metric = config.seg_scores
    counts = None
    for statistic in settings.wanted("seg"):
        if statistic in PAIRWISE:
            if counts is None:
                counts = pair_counts(
                    metric, _present(human.groups), metric_direction=_direction(config), human_direction=human.direction,
                    threshold=settings.threshold, group_segments=human.group_segments,
                )  # fmt: skip
            result = consistency(counts, statistic=statistic, tie_policy=settings.tie_policy, weights=weights, ci=settings.ci)
            items.append(_Item(config, human.kind, "seg", statistic, human.pair_label, result, "", ""))
            continue
        for grouping in settings.groupings_of(statistic):
            if statistic in CORRELATIONS:
                result = segment_correlation(
                    metric, human.seg, statistic, grouping, metric_direction=_direction(config),
                    human_direction=human.direction, weights=weights, ci=settings.ci, cache=human.cache,
                )  # fmt: skip
            else:
                result = tie_statistic(
                    metric, human.seg, statistic, settings.tie_options(grouping), metric_direction=_direction(config),
                    human_direction=human.direction, weights=weights, ci=settings.ci,
                )  # fmt: skip
            note = ""
            if result.counts and result.counts.get("skipped"):
                unit = "segments" if grouping == "item" else "systems"
                note = f"{int(result.counts['skipped'])} {unit} skipped (undefined)"
            items.append(_Item(config, human.kind, "seg", statistic, grouping, result, "", note))
    return items


def _sys_items(
    config: ConfigScores,
    seg_config: ConfigScores,
    human: _Human,
    settings: Settings,
    metric_samples: np.ndarray | None,
    weights: np.ndarray | None,
) -> list[_Item]:
    items: list[_Item] = []
    for statistic in settings.wanted("sys"):
        if statistic == "soft_pairwise_accuracy":
            if human.seg is not None:  # like segment-level rows: none for system-only kinds
                items.append(_spa_item(seg_config, human, settings, weights))
            continue
        if human.sys is None:
            continue
        options: dict[str, Any] = dict(
            metric_direction=_direction(config), human_direction=human.direction, metric_samples=metric_samples,
            human_samples=human.sys_samples if human.sys_human == "derived" else None, ci=settings.ci,
        )  # fmt: skip
        if statistic == "pairwise_accuracy":
            result = pairwise_accuracy(config.sys_scores, human.sys, **options)
        elif statistic == "kendall_c":
            result = system_kendall_c(config.sys_scores, human.sys, **options)
        else:
            result = system_correlation(config.sys_scores, human.sys, statistic, **options)
        items.append(_Item(config, human.kind, "sys", statistic, "-", result, human.sys_human, ""))
    return items


def _spa_item(config: ConfigScores, human: _Human, settings: Settings, weights: np.ndarray | None) -> _Item:
    """Soft pairwise accuracy (its p-values come from segment scores, human and metric alike)."""
    if human.signs is None:
        human.signs = swap_signs(_present(human.seg).shape[1], settings.permutations, np.random.default_rng(settings.permutation_seed))
    result = soft_pairwise_accuracy(
        config.seg_scores, _present(human.seg), metric_direction=_direction(config), human_direction=human.direction,
        signs=human.signs, weights=weights, ci=settings.ci, cache=human.cache.setdefault(("spa", config.seg_scores.shape), {}),
    )  # fmt: skip
    note = (
        f"one-sided permutation p-values from segment scores, {settings.permutations} permutations "
        f"(seed {settings.permutation_seed})"
    )
    return _Item(config, human.kind, "sys", "soft_pairwise_accuracy", "-", result, "derived", note)


def _resampling_note(item: _Item, settings: Settings, sys_resampling: str) -> str:
    if settings.n_bootstrap == 0:
        return "no bootstrap"
    text = f"bootstrap {settings.n_bootstrap} segment resamples (seed {settings.seed})"
    if item.statistic == "soft_pairwise_accuracy":
        return text + "; resampled p-values by the normal approximation of the permutation test, re-centred on the permutation value"
    if item.statistic in CALIBRATED:
        refit = settings.refit_epsilon and item.grouping == "item"
        return text + ("; epsilon re-fitted on every resample" if refit else "; epsilon fixed at the full-sample value")
    if item.level == "sys":
        metric = "metric from resampled statistics" if sys_resampling == "stats" else "metric as mean of resampled segment scores"
        human = "human fixed (given)" if item.sys_human == "given" else "human recomputed (derived)"
        text += f"; {metric}; {human}"
    return text


def _row(item: _Item, settings: Settings, dataset: str, dropped: list[str]) -> dict:
    r = item.result
    notes = [item.note] if item.note else []
    notes.append(r.undefined_reason if r.undefined_reason else _resampling_note(item, settings, item.config.sys_resampling))
    if dropped:
        notes.append(f"judged systems without scores dropped: {', '.join(dropped)}")
    pairwise = item.statistic in PAIRWISE
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


def _subset(config: ConfigScores, systems: list[str]) -> ConfigScores:
    return config if list(config.systems) == systems else config.subset_systems(systems)


def _shared_segments(configs: Sequence[ConfigScores]) -> list[str]:
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


def _resolve_kinds(judgments: Judgments, kinds: Sequence[str] | None) -> list[str]:
    present = list(dict.fromkeys(list(judgments.kinds) + list(judgments.system_kinds)))
    if kinds is None:
        if not present:
            raise UsageError("the judgments hold no kind to evaluate")
        return present
    unknown = [k for k in kinds if k not in present]
    if unknown:
        raise UsageError(f"no judgments of kind {unknown[0]!r}; kinds present: {', '.join(present) or '(none)'}")
    return list(dict.fromkeys(kinds))


def _items(
    configs: Sequence[ConfigScores],
    judgments: Judgments,
    kinds: Sequence[str] | None,
    settings: Settings,
    progress: Progress | None = None,
    store=None,  # noqa: ANN001 - a metaeval.store.Store
    executor: cf.Executor | None = None,
) -> list[tuple[_Item, list[str]]]:
    """Every item of every configuration. The bootstrap resamples are drawn in blocks of at most
    :data:`BOOTSTRAP_BLOCK_ELEMENTS` (samples x segments) from one seeded stream: each block is
    evaluated on its own and the blocks' samples are joined, so memory grows with the data and
    one block, not with the number of samples (the draws are those of a single draw).

    With an ``executor`` (a process pool, Dask's ``Client.get_executor()``), each block is
    evaluated in tasks of contiguous groups of configurations (:func:`_items_distributed`);
    the blocks and their draws are the same, so the numbers are bit for bit those of this
    process alone."""
    seg_ids = _shared_segments(configs)
    kind_list = _resolve_kinds(judgments, kinds)
    if store is not None:
        return _items_stored(configs, judgments, kind_list, settings, store, progress, executor)
    first = _first_with_same_scores(configs)
    if len(set(first)) < len(configs):
        distinct = [configs[i] for i in sorted(set(first))]
        computed = _items(distinct, judgments, kind_list, settings, progress, executor=executor)
        return _copied_to_twins(configs, first, computed)
    if not settings.n_bootstrap:
        return _items_on(configs, judgments, kind_list, settings, seg_ids, None, progress)
    rng = np.random.default_rng(settings.seed)
    block = max(1, BOOTSTRAP_BLOCK_ELEMENTS // len(seg_ids))
    blocks = (
        bootstrap_indices(len(seg_ids), min(block, settings.n_bootstrap - start), rng)
        for start in range(0, settings.n_bootstrap, block)
    )
    if executor is None or len(configs) == 0:
        per_block: Iterator[list[tuple[_Item, list[str]]]] = (
            _items_on(configs, judgments, kind_list, settings, seg_ids, indices, progress if b == 0 else None)
            for b, indices in enumerate(blocks)
        )
    else:
        per_block = _items_distributed(configs, judgments, kind_list, settings, seg_ids, blocks, executor, progress)
    merged: list[tuple[_Item, list[str]]] = []
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
    return [first.setdefault(_config_digest(c, named=False), i) for i, c in enumerate(configs)]


def _copied_to_twins(configs: Sequence[ConfigScores], first: list[int],
                     computed: list[tuple[_Item, list[str]]]) -> list[tuple[_Item, list[str]]]:
    """The items of every configuration, in order, from those ``computed`` for the first of
    each group of twins (:func:`_first_with_same_scores`)."""
    of: dict[int, list[tuple[_Item, list[str]]]] = {}
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
    blocks: Iterable[np.ndarray],
    executor: cf.Executor,
    progress: Progress | None,
) -> Iterator[list[tuple[_Item, list[str]]]]:
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

    def collect(futures: list[cf.Future]) -> list[tuple[_Item, list[str]]]:
        nonlocal first
        out: list[tuple[_Item, list[str]]] = []
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
    for indices in blocks:
        # segment indices travel as int32 when they fit (half the bytes); the task restores int64
        small = indices.astype(np.int32) if len(seg_ids) < 2**31 else indices
        pending.append([
            executor.submit(_items_task, [configs[i] for i in group], judgments, kind_list, settings, seg_ids, small)
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
) -> list[tuple[int, _Item, list[str]]]:
    """A worker's part of :func:`_items_distributed`: ``(position of the configuration in
    configs, item without its configuration, dropped systems)`` for one block."""
    found = _items_on(configs, judgments, kind_list, settings, seg_ids, indices.astype(np.int64), None)
    position = {id(c): k for k, c in enumerate(configs)}
    out = []
    for item, dropped in found:
        k = position[id(item.config)]
        item.config = None  # type: ignore[assignment]  # restored by the caller; not sent back
        out.append((k, item, dropped))
    return out


def _config_digest(config: ConfigScores, named: bool = True) -> str:
    """SHA-256 of what a configuration's items depend on from its side: name (or, not
    ``named``, only the metric spec, which fixes how resampled statistics become scores),
    systems, segments, direction, and its scores and statistics."""
    import hashlib

    h = hashlib.sha256()
    for part in (config.config if named else config.metric, "\x1f".join(config.systems), "\x1f".join(config.seg_ids),
                 repr(config.higher_is_better)):
        h.update(part.encode("utf-8", "surrogatepass") + b"\x1e")
    for array in (config.seg_scores, config.sys_scores, config.stats):
        h.update(b"-" if array is None else np.ascontiguousarray(array, dtype=float).tobytes())
    return h.hexdigest()


def _config_key(digest: str, judged: str, kind_list: list[str], settings: Settings) -> str:
    """What a configuration's items depend on: its scores and statistics (``digest``, from
    :func:`_config_digest`), the judgments, the kinds and every setting."""
    return f"items|{digest}|{judged}|{','.join(kind_list)}|{settings!r}"


#: Settings that choose which items are computed; the others (and the data) fix their values.
_CHOOSING = ("statistics", "groupings", "levels")


def _index_key(digest: str, judged: str, settings: Settings) -> str:
    """The key of the list of item entries computed for one configuration (``digest``) and
    judgments under settings that differ at most in which statistics, groupings and levels they ask for."""
    fixing = {f.name: getattr(settings, f.name) for f in dataclasses.fields(settings) if f.name not in _CHOOSING}
    return f"items-index|{digest}|{judged}|{fixing!r}"


def _item_specs(settings: Settings) -> list[tuple[str, str, str]]:
    """``(level, statistic, grouping)`` of every item a configuration may have for one judgment
    kind, in the order :func:`_seg_items` and :func:`_sys_items` produce them (grouping ``""``
    where the settings choose none: pairwise statistics and system level)."""
    specs = []
    for statistic in settings.wanted("seg"):
        if statistic in PAIRWISE:
            specs.append(("seg", statistic, ""))
        else:
            specs += [("seg", statistic, grouping) for grouping in settings.groupings_of(statistic)]
    return specs + [("sys", statistic, "") for statistic in settings.wanted("sys")]


def _spec_of(item: _Item) -> tuple[str, str, str]:
    """The entry of :func:`_item_specs` that ``item`` answers."""
    if item.level == "sys" or item.statistic in PAIRWISE:
        return (item.level, item.statistic, "")
    return (item.level, item.statistic, item.grouping)


def _judgments_digest(judgments: Judgments) -> str:
    import hashlib

    h = hashlib.sha256(pd.util.hash_pandas_object(judgments.table, index=False).to_numpy().tobytes())
    if judgments.system_scores is not None:
        h.update(judgments.system_scores.to_csv().encode("utf-8"))
    h.update(repr(sorted(dict(judgments.directions or {}).items())).encode("utf-8"))
    return h.hexdigest()


_RESULT_FLOATS = ("value", "ci_low", "ci_high", "p_value", "epsilon")


def _save_items(store, key: str, found: list[tuple[_Item, list[str]]]) -> None:  # noqa: ANN001
    meta, floats, samples = [], [], {}
    for i, (item, dropped) in enumerate(found):
        r = item.result
        floats.append([getattr(r, name) for name in _RESULT_FLOATS])
        meta.append({
            "kind": item.kind, "level": item.level, "statistic": item.statistic, "grouping": item.grouping,
            "sys_human": item.sys_human, "note": item.note, "dropped": list(dropped), "n": int(r.n),
            "counts": None if r.counts is None else {k: getattr(v, "item", lambda v=v: v)() for k, v in r.counts.items()},
            "reason": r.undefined_reason,
        })  # fmt: skip
        if r.samples is not None:
            samples[f"s{i}"] = np.asarray(r.samples, dtype=float)
    store.put("items", key, {"floats": np.asarray(floats, dtype=float).reshape(len(found), len(_RESULT_FLOATS)), **samples},
              {"items": meta})


def _load_items(store, key: str, config: ConfigScores) -> list[tuple[_Item, list[str]]] | None:  # noqa: ANN001
    entry = store.get("items", key)
    if entry is None:
        return None
    out = []
    for i, m in enumerate(entry["meta"]["items"]):
        values = dict(zip(_RESULT_FLOATS, (float(v) for v in entry["floats"][i])))
        result = Correlation(
            values["value"], values["ci_low"], values["ci_high"], m["n"], values["p_value"], m["counts"], m["reason"],
            entry.get(f"s{i}"), values["epsilon"],
        )  # fmt: skip
        item = _Item(config, m["kind"], m["level"], m["statistic"], m["grouping"], result, m["sys_human"], m["note"])
        out.append((item, list(m["dropped"])))
    return out


def _index_items(store, index_key: str, key: str, kind_list: list[str], settings: Settings) -> None:  # noqa: ANN001
    """Record in the configuration's index that the entry ``key`` holds the items of
    ``kind_list`` x :func:`_item_specs` (a concurrent writer may win; a lost line costs a recomputation)."""
    entry = store.get("items-index", index_key)
    listed = list(entry["meta"]["entries"]) if entry is not None else []
    line = {"key": key, "kinds": list(kind_list), "specs": [list(spec) for spec in _item_specs(settings)]}
    if line not in listed:
        store.put("items-index", index_key, {}, {"entries": listed + [line]})


def _covering_items(store, index_key: str, config: ConfigScores, kind_list: list[str], settings: Settings):  # noqa: ANN001, ANN202
    """The items ``settings`` ask for, taken from an entry computed for the same configuration,
    judgments and fixing settings that asked for at least those kinds and items (None if none
    did). An item's value and resamples depend on the data, the seeds and the fixing settings,
    not on which other items were computed beside it."""
    index = store.get("items-index", index_key)
    if index is None:
        return None
    specs = _item_specs(settings)
    for line in index["meta"]["entries"]:
        if not (set(kind_list) <= set(line["kinds"]) and set(specs) <= {tuple(spec) for spec in line["specs"]}):
            continue
        stored = _load_items(store, line["key"], config)
        if stored is None:
            continue
        by_spec = {(item.kind, _spec_of(item)): (item, dropped) for item, dropped in stored}
        return [by_spec[(kind, spec)] for kind in kind_list for spec in specs if (kind, spec) in by_spec]
    return None


def _items_stored(configs, judgments, kind_list, settings, store, progress, executor=None):  # noqa: ANN001, ANN202
    """:func:`_items` with each configuration's items kept in ``store`` by content hash:
    configurations seen before are read back (from an entry of these settings, or of settings
    that asked for more, see :func:`_covering_items`), the others computed (together) and stored."""
    judged = _judgments_digest(judgments)
    digests = [_config_digest(c) for c in configs]
    keys = [_config_key(d, judged, kind_list, settings) for d in digests]
    index_keys = [_index_key(d, judged, settings) for d in digests]
    found = {i: _load_items(store, key, c) for i, (c, key) in enumerate(zip(configs, keys))}
    for i in [i for i, items in found.items() if items is None]:
        found[i] = _covering_items(store, index_keys[i], configs[i], kind_list, settings)
    todo = [i for i, items in found.items() if items is None]
    if todo:
        computed = _items([configs[i] for i in todo], judgments, kind_list, settings, progress, executor=executor)
        for i in todo:
            found[i] = [(item, dropped) for item, dropped in computed if item.config is configs[i]]
            _save_items(store, keys[i], found[i])
            _index_items(store, index_keys[i], keys[i], kind_list, settings)
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
) -> list[tuple[_Item, list[str]]]:
    """The items of every configuration on one block of bootstrap resamples (None: none),
    computed with one BLAS thread wherever this runs: more threads split the weighted sums of
    the resamples differently, which would move the last digits with the machine's cores."""
    weights = None if indices is None else resample_weights(indices, len(seg_ids))
    humans: dict[tuple[str, tuple[str, ...]], _Human] = {}
    out: list[tuple[_Item, list[str]]] = []
    if progress:
        progress("correlating", 0, len(configs))
    for done, config in enumerate(configs):
        sys_samples: dict[tuple[str, ...], np.ndarray] = {}
        for kind in kind_list:
            key = (kind, tuple(config.systems))
            if key not in humans:
                humans[key] = _human(judgments, kind, list(config.systems), seg_ids, settings, weights)
            human = humans[key]
            seg_config = _subset(config, human.systems)
            sys_config = _subset(config, human.sys_systems)
            metric_samples = None
            if indices is not None and human.sys is not None and "sys" in settings.levels:
                names = tuple(human.sys_systems)
                if names not in sys_samples:
                    sys_samples[names] = sys_config.resampled_sys_scores(indices)
                metric_samples = sys_samples[names]
            items = _seg_items(seg_config, human, settings, weights)
            items += _sys_items(sys_config, seg_config, human, settings, metric_samples, weights)
            for item in items:
                item.config = config
                out.append((item, human.dropped))
        if progress:
            progress("correlating", done + 1, len(configs))
    return out


def evaluate(
    configs: Sequence[ConfigScores],
    judgments: Judgments,
    kinds: Sequence[str] | None = None,
    *,
    tie_policy: str = "exclude",
    threshold: float | None = None,
    groupings: Sequence[str] = (),
    statistics: Sequence[str] = DEFAULT_STATISTICS,
    levels: Sequence[str] = LEVELS,
    n_bootstrap: int = 1000,
    seed: int = 12345,
    ci: float = 0.95,
    pair_groups: str = "auto",
    clusters: bool = False,
    alpha: float = 0.05,
    dataset: str = "",
    progress: Progress | None = None,
    average: str = "macro",
    undefined: str = "skip",
    refit_epsilon: bool = True,
    permutations: int = DEFAULT_PERMUTATIONS,
    permutation_seed: int = 12345,
    store=None,  # noqa: ANN001 - a metaeval.store.Store or a folder
    return_samples: bool = False,
    executor: cf.Executor | None = None,
) -> "pd.DataFrame | tuple[pd.DataFrame, np.ndarray]":
    """The ResultTable of ``configs`` against ``judgments``.

    One row per (configuration, judgment kind, level, statistic, grouping), in the order
    configurations x kinds x levels (seg, sys) x statistics x groupings. Segment level:
    ``consistency``/``kendall_like`` (grouping says how pairs were formed; ``n = C + D``
    after the tie policy; the count columns hold C and D without metric ties, the metric
    ties and the human ties), ``pearson``/``spearman``/``kendall`` and the tie-aware
    statistics of :mod:`metaeval.tiestats` per grouping (``groupings`` empty: each
    statistic's default, :data:`REGISTRY`); ``epsilon`` holds the tie-calibration threshold
    of ``acc_eq``/``tau_eq``. System level: the correlations, ``pairwise_accuracy``,
    ``soft_pairwise_accuracy`` and ``kendall_c`` (grouping ``-``), ``sys_human`` saying
    which human scores.
    ``p_value`` is scipy's p-value of the point estimate (NaN for pairwise statistics).
    Kinds present only as system scores give system-level rows only. ``kinds=None``: every
    kind present. With ``clusters=True``, columns ``rank`` (competition rank by value) and
    ``cluster`` (:func:`~metaeval.correlation.significance_clusters` of two-sided paired
    bootstrap p-values at ``alpha``) are added per ranking (same dataset, kind, level,
    statistic, grouping, tie policy). Same inputs and seed give the same table. With
    ``return_samples=True`` the result is ``(table, samples)``: row ``i`` of ``samples``
    (``[n_rows, n_bootstrap]``, NaN where undefined) holds the bootstrap values of table row
    ``i``, on resamples shared by every row, so any two rows can be compared pairwise.
    With an ``executor`` (a process pool or Dask's ``Client.get_executor()``) the bootstrap
    blocks are evaluated by its workers, with bit for bit the same result.
    """
    settings = Settings(
        tie_policy, threshold, tuple(groupings), tuple(statistics), tuple(levels), n_bootstrap, seed, ci, pair_groups,
        average, undefined, refit_epsilon, permutations, permutation_seed,
    )  # fmt: skip
    from metaeval.store import as_store

    found = _items(configs, judgments, kinds, settings, progress, as_store(store), executor)
    table = pd.DataFrame([_row(item, settings, dataset, dropped) for item, dropped in found], columns=list(RESULT_COLUMNS))
    if clusters:
        _add_clusters(table, [item.result for item, _ in found], alpha)
    if return_samples:
        samples = np.full((len(found), n_bootstrap), np.nan)
        for i, (item, _) in enumerate(found):
            if item.result.samples is not None and len(item.result.samples) == n_bootstrap:
                samples[i] = item.result.samples
        return table, samples
    return table


def _ranking_keys(table: pd.DataFrame) -> pd.Series:
    keys = ["dataset", "judgment_kind", "level", "statistic", "grouping", "tie_policy"]
    return table[keys].astype(str).agg("\x1f".join, axis=1)


def _cluster_order(
    results: list[Correlation], alpha: float, bootstrap: bool = True
) -> tuple[list[int], np.ndarray, np.ndarray]:
    """Order (by value, best first; undefined left out), p-value matrix (paired bootstrap,
    or ones when ``bootstrap`` is False and the caller fills it) and cluster ranks."""
    order = sorted((i for i, r in enumerate(results) if r.defined), key=lambda i: -results[i].value)
    p = np.ones((len(order), len(order)))
    for a in range(len(order) if bootstrap else 0):
        for b in range(a + 1, len(order)):
            test = paired_bootstrap_test(results[order[a]], results[order[b]])
            p[a, b] = p[b, a] = test.p_value
    return order, p, np.array(significance_clusters(p, alpha), dtype=int)


def _add_clusters(table: pd.DataFrame, results: list[Correlation], alpha: float) -> None:
    table["rank"] = math.nan
    table["cluster"] = ""
    if not results:
        return
    if any(r.defined and r.samples is None for r in results):
        raise UsageError("significance clusters need bootstrap samples (n_bootstrap > 0)")
    for _, rows in table.groupby(_ranking_keys(table), sort=False):
        index = list(rows.index)
        order, _, ranks = _cluster_order([results[i] for i in index], alpha)
        values = np.array([results[index[i]].value for i in order])
        for position, local in enumerate(order):
            row = index[local]
            table.at[row, "rank"] = 1 + int(np.sum(values > values[position]))
            table.at[row, "cluster"] = str(ranks[position])


def compare(
    configs: Sequence[ConfigScores],
    judgments: Judgments,
    kind: str,
    statistic: str = "consistency",
    level: str = "seg",
    *,
    grouping: str = "none",
    tie_policy: str = "exclude",
    threshold: float | None = None,
    n_bootstrap: int = 1000,
    seed: int = 12345,
    method: str = "bootstrap",
    alpha: float = 0.05,
    pair_groups: str = "auto",
    average: str = "macro",
    undefined: str = "skip",
    refit_epsilon: bool = True,
    permutations: int = DEFAULT_PERMUTATIONS,
    permutation_seed: int = 12345,
    store=None,  # noqa: ANN001 - a metaeval.store.Store or a folder
) -> pd.DataFrame:
    """Paired significance tests between every two configurations on one statistic.

    Configurations are ranked by value (best first; undefined ones left out). One row per
    pair ``(a, b)`` with ``a`` ranked above ``b``: ``metric_a, segmenter_a, config_a,
    metric_b, segmenter_b, config_b, value_a, value_b, delta, p_value, method, significant,
    cluster_a, cluster_b``. ``method``:

    - ``bootstrap``: paired bootstrap on the shared segment resamples, two-sided
      (:func:`~metaeval.correlation.paired_bootstrap_test`);
    - ``permutation``: PERM-BOTH over (system, segment) cells at segment level and over
      systems at system level (segments for soft pairwise accuracy), two-sided
      (:func:`~metaeval.correlation.paired_permutation_test`; ``n_bootstrap`` permutations;
      ``acc_eq``/``tau_eq`` re-fit epsilon on every permutation);
    - ``williams``: Williams' test between two Pearson correlations with the humans
      (statistic ``pearson``, grouping ``none`` or system level), one-sided that ``a``
      correlates better (:func:`~metaeval.syspairs.williams_test`).

    ``delta_ci_low``/``delta_ci_high``: the percentile interval of ``value_a - value_b``
    over the shared bootstrap resamples (NaN without bootstrap). Clusters follow
    :func:`~metaeval.correlation.significance_clusters` on these p-values. ``store`` keeps
    each configuration's values and bootstrap samples by content hash (as :func:`evaluate`),
    so a rerun reads them instead of resampling again.
    """
    if method not in COMPARE_METHODS:
        raise UsageError(f"unknown comparison method {method!r}; known: {', '.join(COMPARE_METHODS)}")
    if statistic not in REGISTRY or level not in REGISTRY[statistic].levels:
        known = ", ".join(f"{lv}:{k}" for k, e in REGISTRY.items() for lv in e.levels)
        raise UsageError(f"no {statistic!r} at level {level!r}; known: {known}")
    if method == "williams" and (statistic != "pearson" or (level == "seg" and grouping != "none")):
        raise UsageError(
            f"the Williams test compares two Pearson correlations over the same items (pearson, grouping none, "
            f"or system level); got {level}:{statistic} grouping {grouping}: use bootstrap or permutation"
        )
    if n_bootstrap < 1 and method != "williams":
        raise UsageError(f"comparisons need n_bootstrap >= 1, got {n_bootstrap}")
    grouped = (grouping,) if REGISTRY[statistic].groupings and level == "seg" else ()
    settings = Settings(
        tie_policy, threshold, grouped, (f"{level}:{statistic}",), (level,), n_bootstrap, seed, 0.95, pair_groups,
        average, undefined, refit_epsilon, permutations, permutation_seed,
    )  # fmt: skip
    from metaeval.store import as_store

    found = [item for item, _ in _items(configs, judgments, [kind], settings, store=as_store(store))]
    results = [item.result for item in found]
    order, p, ranks = _cluster_order(results, alpha, bootstrap=method == "bootstrap")
    if method != "bootstrap":
        rng = np.random.default_rng(seed)
        for a in range(len(order)):
            for b in range(a + 1, len(order)):
                ia, ib = found[order[a]], found[order[b]]
                if method == "williams":
                    p[a, b] = p[b, a] = _williams(ia, ib, judgments, settings)
                else:
                    p[a, b] = p[b, a] = _permutation(ia, ib, judgments, settings, rng).p_value
        ranks = np.array(significance_clusters(p, alpha), dtype=int)
    label = {"bootstrap": "bootstrap", "permutation": "permutation", "williams": "williams (one-sided)"}[method]
    rows = []
    for a in range(len(order)):
        for b in range(a + 1, len(order)):
            ia, ib = found[order[a]], found[order[b]]
            low, high = _delta_interval(ia.result, ib.result)
            rows.append({
                "metric_a": ia.config.metric, "segmenter_a": ia.config.segmenter, "config_a": ia.config.config,
                "metric_b": ib.config.metric, "segmenter_b": ib.config.segmenter, "config_b": ib.config.config,
                "value_a": ia.result.value, "value_b": ib.result.value,
                "delta": ia.result.value - ib.result.value, "delta_ci_low": low, "delta_ci_high": high,
                "p_value": p[a, b], "method": label, "significant": bool(p[a, b] <= alpha),
                "cluster_a": int(ranks[a]), "cluster_b": int(ranks[b]),
            })  # fmt: skip
    columns = [
        "metric_a", "segmenter_a", "config_a", "metric_b", "segmenter_b", "config_b", "value_a", "value_b",
        "delta", "delta_ci_low", "delta_ci_high", "p_value", "method", "significant", "cluster_a", "cluster_b",
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def _delta_interval(a: Correlation, b: Correlation, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of ``a - b`` over the shared bootstrap resamples (NaN without)."""
    if a.samples is None or b.samples is None or not (a.defined and b.defined):
        return math.nan, math.nan
    return percentile_ci(a.samples - b.samples, level)


def statistics_signature(**options: Any) -> dict[str, Any]:
    """What a run's statistics were, with every option that changes a number: the
    statistics and groupings asked for, averaging, epsilon re-fitting, permutations."""
    given: dict[str, Any] = {k: tuple(v) if k in ("statistics", "groupings") else v for k, v in options.items()}
    settings = Settings(**given)
    return {
        "asked": list(settings.statistics),
        "groupings": list(settings.groupings) or "default per statistic (" + ", ".join(
            f"{k}: {e.default_grouping}" for k, e in REGISTRY.items() if e.groupings
        ) + ")",
        "average": settings.average,
        "undefined_groups": settings.undefined,
        "epsilon": "re-fitted on every bootstrap resample (grouping item); fixed at the full-sample value otherwise"
        if settings.refit_epsilon else "fixed at the full-sample value",
        "soft_pairwise_accuracy": f"{settings.permutations} permutations, seed {settings.permutation_seed}; "
        "bootstrap p-values by the normal approximation, re-centred on the permutation value",
    }


COMPARISON_KEYS = ("dataset", "judgment_kind", "level", "statistic", "grouping")


def compare_all(
    configs: Sequence[ConfigScores],
    judgments: Judgments,
    results: pd.DataFrame,
    method: str = "bootstrap",
    **options: Any,
) -> pd.DataFrame:
    """:func:`compare` for every ranking of ``results`` (same dataset, kind, level,
    statistic and grouping) with two or more defined configurations.

    ``options`` are those of :func:`compare` (the run's seed, bootstrap size...). With
    ``williams``, only the Pearson rankings it applies to are compared. Columns:
    :data:`COMPARISON_KEYS` followed by those of :func:`compare`.
    """
    frames = []
    pairwise_labels = set(PAIR_GROUP_LABELS.values())
    for key, rows in results.groupby(list(COMPARISON_KEYS), sort=False):
        dataset, kind, level, statistic, grouping = key
        if rows["value"].notna().sum() < 2:
            continue
        if method == "williams" and (statistic != "pearson" or (level == "seg" and grouping != "none")):
            continue
        names = set(rows["config"])
        chosen = [c for c in configs if c.config in names]
        grouping_arg = "none" if grouping in pairwise_labels or grouping == "-" else grouping
        table = compare(chosen, judgments, kind, statistic, level, grouping=grouping_arg, method=method, **options)
        for column, value in reversed(list(zip(COMPARISON_KEYS, key))):
            table.insert(0, column, value)
        frames.append(table)
    if not frames:
        raise UsageError(
            f"no ranking to compare with {method!r}"
            + (" (the Williams test needs pearson with grouping none, or system-level pearson)" if method == "williams" else "")
        )
    return pd.concat(frames, ignore_index=True)


def _williams(a: _Item, b: _Item, judgments: Judgments, settings: Settings) -> float:
    """One-sided Williams p-value that ``a``'s Pearson correlation with the humans exceeds
    ``b``'s, over the items both are measured on (judged cells, or systems)."""
    systems = [s for s in a.config.systems if s in set(b.config.systems)]
    human = _human(judgments, a.kind, systems, list(a.config.seg_ids), settings, None)
    if a.level == "sys":
        xa = _subset(a.config, human.sys_systems).sys_scores * _direction(a.config)
        xb = _subset(b.config, human.sys_systems).sys_scores * _direction(b.config)
        y = _present(human.sys) * human.direction
    else:
        xa = _subset(a.config, human.systems).seg_scores * _direction(a.config)
        xb = _subset(b.config, human.systems).seg_scores * _direction(b.config)
        y = _present(human.seg) * human.direction
    keep = ~(np.isnan(y) | np.isnan(xa) | np.isnan(xb))
    xa, xb, y = xa[keep], xb[keep], y[keep]
    r_a, r_b = correlate_vectors(xa, y, "pearson").value, correlate_vectors(xb, y, "pearson").value
    r_ab = correlate_vectors(xa, xb, "pearson").value
    return williams_test(r_a, r_b, r_ab, int(keep.sum()))


def _permutation(a: _Item, b: _Item, judgments: Judgments, settings: Settings, rng: np.random.Generator):  # noqa: ANN202
    """PERM-BOTH between two items of the same kind/statistic over shared systems."""
    systems = [s for s in a.config.systems if s in set(b.config.systems)]
    human = _human(judgments, a.kind, systems, list(a.config.seg_ids), settings, None)
    da, db = _direction(a.config), _direction(b.config)
    if a.statistic == "soft_pairwise_accuracy":
        ca, cb = _subset(a.config, human.systems), _subset(b.config, human.systems)
        signs = swap_signs(len(a.config.seg_ids), settings.permutations, np.random.default_rng(settings.permutation_seed))

        def spa(m: np.ndarray) -> float:
            return soft_pairwise_accuracy(m, _present(human.seg), human_direction=human.direction, signs=signs).value

        return paired_permutation_test(spa, ca.seg_scores * da, cb.seg_scores * db, rng, settings.n_bootstrap)
    if a.level == "sys":
        ca, cb = _subset(a.config, human.sys_systems), _subset(b.config, human.sys_systems)
        system_stat = {"pairwise_accuracy": pairwise_accuracy, "kendall_c": system_kendall_c}.get(a.statistic)

        def stat(m: np.ndarray) -> float:
            if system_stat is not None:
                return system_stat(m, _present(human.sys), human_direction=human.direction).value
            return system_correlation(m, _present(human.sys), a.statistic, human_direction=human.direction).value

        return paired_permutation_test(stat, ca.sys_scores * da, cb.sys_scores * db, rng, settings.n_bootstrap)

    ca, cb = _subset(a.config, human.systems), _subset(b.config, human.systems)

    def seg_stat(m: np.ndarray) -> float:
        if a.statistic in PAIRWISE:
            counts = pair_counts(
                m, _present(human.groups), human_direction=human.direction, threshold=settings.threshold,
                group_segments=human.group_segments,
            )  # fmt: skip
            return consistency(counts, statistic=a.statistic, tie_policy=settings.tie_policy).value
        if a.statistic in SEGMENT_STATISTICS:
            return tie_statistic(m, _present(human.seg), a.statistic, settings.tie_options(a.grouping), human_direction=human.direction).value
        return segment_correlation(m, _present(human.seg), a.statistic, a.grouping, human_direction=human.direction).value

    return paired_permutation_test(seg_stat, ca.seg_scores * da, cb.seg_scores * db, rng, settings.n_bootstrap)


__all__ = [
    "DEFAULT_STATISTICS", "LEVELS", "REGISTRY", "RESULT_COLUMNS", "STATISTICS", "Settings", "StatisticSpec",
    "compare", "compare_all", "evaluate",
]  # fmt: skip
