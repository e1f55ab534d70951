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

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from corpora.model import Judgments
from metaeval.correlation import (
    CORRELATIONS,
    GROUPINGS,
    PAIRWISE,
    TIE_POLICIES,
    Correlation,
    bootstrap_indices,
    consistency,
    pair_counts,
    paired_bootstrap_test,
    paired_permutation_test,
    resample_weights,
    segment_correlation,
    significance_clusters,
    system_correlation,
)
from metaeval.errors import UsageError
from metaeval.scoretable import ConfigScores

RESULT_COLUMNS = (
    "dataset", "metric", "segmenter", "config", "judgment_kind", "level", "statistic", "grouping",
    "tie_policy", "value", "ci_low", "ci_high", "n", "p_value", "concordant", "discordant",
    "metric_ties", "human_ties", "sys_human", "note",
)  # fmt: skip
LEVELS = ("seg", "sys")
STATISTICS = PAIRWISE + CORRELATIONS
#: Statistics computed by default, as ``level:statistic``: Li et al. 2011's segment-level
#: consistency (with its Kendall-like twin) and Pearson, and every system-level correlation.
#: A bare name (``spearman``) asks for the statistic at every level where it exists.
DEFAULT_STATISTICS = ("seg:consistency", "seg:kendall_like", "seg:pearson", "sys:pearson", "sys:spearman", "sys:kendall")
PAIR_GROUPS = ("auto", "judge", "segment")
#: Grouping label of pairwise rows: pairs within a segment, or within a (segment, judge).
PAIR_GROUP_LABELS = {"segment": "segment", "judge": "segment+judge"}
COMPARE_METHODS = ("bootstrap", "permutation")

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Settings:
    """Options of one meta-evaluation run (validated on construction)."""

    tie_policy: str = "exclude"
    threshold: float | None = None
    groupings: tuple[str, ...] = ("none",)
    statistics: tuple[str, ...] = DEFAULT_STATISTICS
    levels: tuple[str, ...] = LEVELS
    n_bootstrap: int = 1000
    seed: int = 12345
    ci: float = 0.95
    pair_groups: str = "auto"

    def __post_init__(self) -> None:
        for spec in self.statistics:
            level, _, name = spec.rpartition(":")
            if name not in STATISTICS or level not in ("",) + LEVELS or (level == "sys" and name in PAIRWISE):
                known = ", ".join(STATISTICS + tuple(f"seg:{k}" for k in STATISTICS) + tuple(f"sys:{k}" for k in CORRELATIONS))
                raise UsageError(f"unknown statistic {spec!r}; known: {known}")
        checks = (
            ("tie policy", (self.tie_policy,), TIE_POLICIES),
            ("grouping", self.groupings, GROUPINGS),
            ("level", self.levels, LEVELS),
            ("pair grouping", (self.pair_groups,), PAIR_GROUPS),
        )
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) or self.seed < 0:
            raise UsageError(f"seed must be a non-negative integer, got {self.seed!r}")
        for label, given, known in checks:
            bad = [g for g in given if g not in known]
            if bad:
                raise UsageError(f"unknown {label} {bad[0]!r}; known: {', '.join(known)}")
        if self.threshold is not None and not (self.threshold >= 0):
            raise UsageError(f"threshold must be a non-negative number, got {self.threshold!r}")
        if not isinstance(self.n_bootstrap, (int, np.integer)) or self.n_bootstrap < 0:
            raise UsageError(f"n_bootstrap must be a non-negative integer, got {self.n_bootstrap!r}")
        if self.n_bootstrap == 1:
            raise UsageError(BOOTSTRAP_ONE)
        if not 0.0 < self.ci < 1.0:
            raise UsageError(f"ci must be in (0, 1), got {self.ci!r}")

    def wanted(self, level: str) -> list[str]:
        """Statistics to compute at ``level``, in :data:`STATISTICS` order."""
        if level not in self.levels:
            return []
        asked = {spec.rpartition(":")[2] for spec in self.statistics if spec.rpartition(":")[0] in ("", level)}
        return [k for k in STATISTICS if k in asked and (level == "seg" or k in CORRELATIONS)]


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
                    metric, human.groups, metric_direction=_direction(config), human_direction=human.direction,
                    threshold=settings.threshold, group_segments=human.group_segments,
                )  # fmt: skip
            result = consistency(counts, statistic=statistic, tie_policy=settings.tie_policy, weights=weights, ci=settings.ci)
            items.append(_Item(config, human.kind, "seg", statistic, human.pair_label, result, "", ""))
            continue
        for grouping in settings.groupings:
            result = segment_correlation(
                metric, human.seg, statistic, grouping, metric_direction=_direction(config),
                human_direction=human.direction, weights=weights, ci=settings.ci, cache=human.cache,
            )  # fmt: skip
            note = ""
            if result.counts and result.counts.get("skipped"):
                unit = "segments" if grouping == "item" else "systems"
                note = f"{int(result.counts['skipped'])} {unit} skipped (undefined)"
            items.append(_Item(config, human.kind, "seg", statistic, grouping, result, "", note))
    return items


def _sys_items(
    config: ConfigScores, human: _Human, settings: Settings, metric_samples: np.ndarray | None
) -> list[_Item]:
    items: list[_Item] = []
    if human.sys is None:
        return items
    for statistic in settings.wanted("sys"):
        result = system_correlation(
            config.sys_scores, human.sys, statistic, metric_direction=_direction(config),
            human_direction=human.direction, metric_samples=metric_samples,
            human_samples=human.sys_samples if human.sys_human == "derived" else None, ci=settings.ci,
        )  # fmt: skip
        items.append(_Item(config, human.kind, "sys", statistic, "-", result, human.sys_human, ""))
    return items


def _resampling_note(item: _Item, settings: Settings, sys_resampling: str) -> str:
    if settings.n_bootstrap == 0:
        return "no bootstrap"
    text = f"bootstrap {settings.n_bootstrap} segment resamples (seed {settings.seed})"
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
) -> list[tuple[_Item, list[str]]]:
    seg_ids = _shared_segments(configs)
    kind_list = _resolve_kinds(judgments, kinds)
    weights = indices = None
    if settings.n_bootstrap:
        indices = bootstrap_indices(len(seg_ids), settings.n_bootstrap, np.random.default_rng(settings.seed))
        weights = resample_weights(indices, len(seg_ids))
    humans: dict[tuple[str, tuple[str, ...]], _Human] = {}
    out: list[tuple[_Item, list[str]]] = []
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
            items += _sys_items(sys_config, human, settings, metric_samples)
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
    groupings: Sequence[str] = ("none",),
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
) -> pd.DataFrame:
    """The ResultTable of ``configs`` against ``judgments``.

    One row per (configuration, judgment kind, level, statistic, grouping), in the order
    configurations x kinds x levels (seg, sys) x statistics x groupings. Segment level:
    ``consistency``/``kendall_like`` (grouping says how pairs were formed; ``n = C + D``
    after the tie policy; the count columns hold C and D without metric ties, the metric
    ties and the human ties) and ``pearson``/``spearman``/``kendall`` per grouping. System
    level: the correlations (grouping ``-``), ``sys_human`` saying which human scores.
    ``p_value`` is scipy's p-value of the point estimate (NaN for pairwise statistics).
    Kinds present only as system scores give system-level rows only. ``kinds=None``: every
    kind present. With ``clusters=True``, columns ``rank`` (competition rank by value) and
    ``cluster`` (:func:`~metaeval.correlation.significance_clusters` of two-sided paired
    bootstrap p-values at ``alpha``) are added per ranking (same dataset, kind, level,
    statistic, grouping, tie policy). Same inputs and seed give the same table.
    """
    settings = Settings(
        tie_policy, threshold, tuple(groupings), tuple(statistics), tuple(levels), n_bootstrap, seed, ci, pair_groups
    )
    found = _items(configs, judgments, kinds, settings, progress)
    table = pd.DataFrame([_row(item, settings, dataset, dropped) for item, dropped in found], columns=list(RESULT_COLUMNS))
    if clusters:
        _add_clusters(table, [item.result for item, _ in found], alpha)
    return table


def _ranking_keys(table: pd.DataFrame) -> pd.Series:
    keys = ["dataset", "judgment_kind", "level", "statistic", "grouping", "tie_policy"]
    return table[keys].astype(str).agg("\x1f".join, axis=1)


def _cluster_order(results: list[Correlation], alpha: float) -> tuple[list[int], np.ndarray, np.ndarray]:
    """Order (by value, best first; undefined left out), p-value matrix and cluster ranks."""
    order = sorted((i for i, r in enumerate(results) if r.defined), key=lambda i: -results[i].value)
    p = np.ones((len(order), len(order)))
    for a in range(len(order)):
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
) -> pd.DataFrame:
    """Paired significance tests between every two configurations on one statistic.

    Configurations are ranked by value (best first; undefined ones left out). One row per
    pair ``(a, b)`` with ``a`` ranked above ``b``: ``metric_a, segmenter_a, config_a,
    metric_b, segmenter_b, config_b, value_a, value_b, delta, p_value, method, significant,
    cluster_a, cluster_b``. ``method``: ``bootstrap`` (paired bootstrap on the shared
    segment resamples, :func:`~metaeval.correlation.paired_bootstrap_test`) or
    ``permutation`` (PERM-BOTH over (system, segment) cells at segment level and over
    systems at system level, :func:`~metaeval.correlation.paired_permutation_test`;
    ``n_bootstrap`` permutations). Clusters follow
    :func:`~metaeval.correlation.significance_clusters` on these p-values.
    """
    if method not in COMPARE_METHODS:
        raise UsageError(f"unknown comparison method {method!r}; known: {', '.join(COMPARE_METHODS)}")
    if level not in LEVELS or (level == "sys" and statistic not in CORRELATIONS):
        raise UsageError(f"no {statistic!r} at level {level!r}; levels: seg (any statistic), sys ({', '.join(CORRELATIONS)})")
    if n_bootstrap < 1:
        raise UsageError(f"comparisons need n_bootstrap >= 1, got {n_bootstrap}")
    settings = Settings(
        tie_policy, threshold, (grouping,), (statistic,), (level,), n_bootstrap, seed, 0.95, pair_groups
    )
    found = [item for item, _ in _items(configs, judgments, [kind], settings)]
    results = [item.result for item in found]
    order, p, ranks = _cluster_order(results, alpha)
    if method == "permutation":
        rng = np.random.default_rng(seed)
        for a in range(len(order)):
            for b in range(a + 1, len(order)):
                test = _permutation(found[order[a]], found[order[b]], judgments, settings, rng)
                p[a, b] = p[b, a] = test.p_value
        ranks = np.array(significance_clusters(p, alpha), dtype=int)
    rows = []
    for a in range(len(order)):
        for b in range(a + 1, len(order)):
            ia, ib = found[order[a]], found[order[b]]
            rows.append({
                "metric_a": ia.config.metric, "segmenter_a": ia.config.segmenter, "config_a": ia.config.config,
                "metric_b": ib.config.metric, "segmenter_b": ib.config.segmenter, "config_b": ib.config.config,
                "value_a": ia.result.value, "value_b": ib.result.value,
                "delta": ia.result.value - ib.result.value, "p_value": p[a, b],
                "method": method, "significant": bool(p[a, b] <= alpha),
                "cluster_a": int(ranks[a]), "cluster_b": int(ranks[b]),
            })  # fmt: skip
    columns = [
        "metric_a", "segmenter_a", "config_a", "metric_b", "segmenter_b", "config_b", "value_a", "value_b",
        "delta", "p_value", "method", "significant", "cluster_a", "cluster_b",
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def _permutation(a: _Item, b: _Item, judgments: Judgments, settings: Settings, rng: np.random.Generator):  # noqa: ANN202
    """PERM-BOTH between two items of the same kind/statistic over shared systems."""
    systems = [s for s in a.config.systems if s in set(b.config.systems)]
    human = _human(judgments, a.kind, systems, list(a.config.seg_ids), settings, None)
    da, db = _direction(a.config), _direction(b.config)
    if a.level == "sys":
        ca, cb = _subset(a.config, human.sys_systems), _subset(b.config, human.sys_systems)

        def stat(m: np.ndarray) -> float:
            return system_correlation(m, human.sys, a.statistic, human_direction=human.direction).value

        return paired_permutation_test(stat, ca.sys_scores * da, cb.sys_scores * db, rng, settings.n_bootstrap)

    ca, cb = _subset(a.config, human.systems), _subset(b.config, human.systems)

    def stat(m: np.ndarray) -> float:  # type: ignore[misc]
        if a.statistic in PAIRWISE:
            counts = pair_counts(
                m, human.groups, human_direction=human.direction, threshold=settings.threshold,
                group_segments=human.group_segments,
            )  # fmt: skip
            return consistency(counts, statistic=a.statistic, tie_policy=settings.tie_policy).value
        return segment_correlation(m, human.seg, a.statistic, a.grouping, human_direction=human.direction).value

    return paired_permutation_test(stat, ca.seg_scores * da, cb.seg_scores * db, rng, settings.n_bootstrap)


__all__ = ["DEFAULT_STATISTICS", "LEVELS", "RESULT_COLUMNS", "STATISTICS", "Settings", "compare", "evaluate"]
