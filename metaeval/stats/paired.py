"""Paired significance tests between the configurations of a ranking: :func:`compare` for one
statistic, :func:`compare_all` for every ranking of a ResultTable; :func:`measure` gives the
configurations' values and bootstrap samples on one statistic, which both compare.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
import pandas as pd

from metaeval.corpora.model import Judgments
from metaeval.errors import UsageError
from metaeval.scoretable import ConfigScores
from metaeval.stats.case import Case, Item
from metaeval.stats.adjust import adjust_pair_matrix
from metaeval.stats.clusters import cluster_order, ranks_of
from metaeval.stats.correlations import correlate_vectors
from metaeval.stats.defaults import ALPHA, CI
from metaeval.stats.evaluate import _items, direction, subset
from metaeval.stats.human import PAIR_GROUP_LABELS, human_side
from metaeval.stats.registry import REGISTRY, known_statistics
from metaeval.stats.resampling import percentile_ci
from metaeval.stats.result import Correlation
from metaeval.stats.settings import Settings
from metaeval.stats.significance import PairedTest, paired_permutation_test, williams_test

COMPARE_METHODS = ("bootstrap", "permutation", "williams")
COMPARISON_KEYS = ("dataset", "judgment_kind", "level", "statistic", "grouping")


def compare(
    configs: Sequence[ConfigScores],
    judgments: Judgments,
    kind: str,
    statistic: str = "consistency",
    level: str = "seg",
    *,
    grouping: str = "none",
    method: str = "bootstrap",
    alpha: float = ALPHA,
    settings: Settings | None = None,
    store=None,  # noqa: ANN001 - a metaeval.store.Store or a folder
    **options: Any,
) -> pd.DataFrame:
    """Paired significance tests between every two configurations on one statistic.

    Configurations are ranked by value (best first; undefined ones left out). One row per
    pair ``(a, b)`` with ``a`` ranked above ``b``: ``metric_a, segmenter_a, config_a,
    metric_b, segmenter_b, config_b, value_a, value_b, delta, p_value, p_adjusted, method,
    significant, cluster_a, cluster_b``. ``method``:

    - ``bootstrap``: paired bootstrap on the shared segment resamples, two-sided
      (:func:`~metaeval.stats.significance.paired_bootstrap_test`);
    - ``permutation``: PERM-BOTH over (system, segment) cells at segment level and over
      systems at system level (segments for soft pairwise accuracy), two-sided
      (:func:`~metaeval.stats.significance.paired_permutation_test`; ``n_bootstrap`` permutations;
      ``acc_eq``/``tau_eq`` re-fit epsilon on every permutation);
    - ``williams``: Williams' test between two Pearson correlations with the humans
      (statistic ``pearson``, grouping ``none`` or system level), one-sided that ``a``
      correlates better (:func:`~metaeval.stats.significance.williams_test`).

    ``settings`` (with any field given in ``options``) are those of the run, narrowed here to
    ``level:statistic`` and ``grouping``. ``delta_ci_low``/``delta_ci_high``: the percentile
    interval of ``value_a - value_b`` over the shared bootstrap resamples (NaN without
    bootstrap). The pairs are one family: ``p_adjusted`` is ``p_value`` adjusted over them as
    ``settings.adjust`` says (Holm by default; :mod:`metaeval.stats.adjust`), and ``significant``
    and the clusters (:func:`~metaeval.stats.significance.significance_clusters`) follow it.
    ``store`` keeps each configuration's values and bootstrap samples by content hash (as
    :func:`~metaeval.stats.evaluate.evaluate`), so a rerun reads them instead of resampling again.
    """
    if method not in COMPARE_METHODS:
        raise UsageError(f"unknown comparison method {method!r}; known: {', '.join(COMPARE_METHODS)}")
    if method == "williams" and statistic in REGISTRY and not (REGISTRY[statistic].williams and (level == "sys" or grouping == "none")):
        raise UsageError(
            f"the Williams test compares two Pearson correlations over the same items (pearson, grouping none, "
            f"or system level); got {level}:{statistic} grouping {grouping}: use bootstrap or permutation"
        )
    settings = Settings.build(settings, **options)
    if settings.n_bootstrap < 1 and method != "williams":
        raise UsageError(f"comparisons need n_bootstrap >= 1, got {settings.n_bootstrap}")
    found = measure(configs, judgments, kind, statistic, level, grouping=grouping, settings=settings, store=store)
    settings = _narrowed(settings, statistic, level, grouping)
    results = [item.result for item in found]
    order, p, ranks = cluster_order(results, alpha, bootstrap=method == "bootstrap", adjust=settings.adjust)
    if method != "bootstrap":
        rng = np.random.default_rng(settings.seed)
        for a in range(len(order)):
            for b in range(a + 1, len(order)):
                ia, ib = found[order[a]], found[order[b]]
                if method == "williams":
                    p[a, b] = p[b, a] = _williams(ia, ib, judgments, settings)
                else:
                    p[a, b] = p[b, a] = _permutation(ia, ib, judgments, settings, rng).p_value
        ranks = ranks_of(p, alpha, settings.adjust)
    adjusted = adjust_pair_matrix(p, settings.adjust)
    label = {"bootstrap": "bootstrap", "permutation": "permutation", "williams": "williams (one-sided)"}[method]
    rows = []
    for a in range(len(order)):
        for b in range(a + 1, len(order)):
            ia, ib = found[order[a]], found[order[b]]
            low, high = _delta_interval(ia.result, ib.result, settings.ci)
            rows.append({
                "metric_a": ia.config.metric, "segmenter_a": ia.config.segmenter, "config_a": ia.config.config,
                "metric_b": ib.config.metric, "segmenter_b": ib.config.segmenter, "config_b": ib.config.config,
                "value_a": ia.result.value, "value_b": ib.result.value,
                "delta": ia.result.value - ib.result.value, "delta_ci_low": low, "delta_ci_high": high,
                "p_value": p[a, b], "p_adjusted": adjusted[a, b], "method": label, "significant": bool(adjusted[a, b] <= alpha),
                "cluster_a": int(ranks[a]), "cluster_b": int(ranks[b]),
            })  # fmt: skip
    columns = [
        "metric_a", "segmenter_a", "config_a", "metric_b", "segmenter_b", "config_b", "value_a", "value_b",
        "delta", "delta_ci_low", "delta_ci_high", "p_value", "p_adjusted", "method", "significant", "cluster_a", "cluster_b",
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def _narrowed(settings: Settings, statistic: str, level: str, grouping: str) -> Settings:
    """``settings`` asking for ``level:statistic`` (with ``grouping`` where it has groupings) only."""
    if statistic not in REGISTRY or level not in REGISTRY[statistic].levels:
        raise UsageError(f"no {statistic!r} at level {level!r}; known: {', '.join(known_statistics())}")
    grouped = (grouping,) if REGISTRY[statistic].groupings and level == "seg" else ()
    return Settings.build(settings, groupings=grouped, statistics=(f"{level}:{statistic}",), levels=(level,))


def measure(
    configs: Sequence[ConfigScores],
    judgments: Judgments,
    kind: str,
    statistic: str = "consistency",
    level: str = "seg",
    *,
    grouping: str = "none",
    settings: Settings | None = None,
    store=None,  # noqa: ANN001 - a metaeval.store.Store or a folder
    **options: Any,
) -> list[Item]:
    """The item of each configuration on one statistic (``level:statistic``, ``grouping`` at
    segment level): its :class:`~metaeval.stats.result.Correlation` with the bootstrap samples of
    the run's shared resamples, in the order of ``configs``. ``settings`` and ``options`` as for
    :func:`compare`; ``store`` keeps and reads the items by content hash."""
    from metaeval.store import as_store

    chosen = _narrowed(Settings.build(settings, **options), statistic, level, grouping)
    return [item for item, _ in _items(configs, judgments, [kind], chosen, store=as_store(store))]


def _delta_interval(a: Correlation, b: Correlation, level: float = CI) -> tuple[float, float]:
    """Percentile interval of ``a - b`` over the shared bootstrap resamples (NaN without)."""
    if a.samples is None or b.samples is None or not (a.defined and b.defined):
        return math.nan, math.nan
    return percentile_ci(a.samples - b.samples, level)


def compare_all(
    configs: Sequence[ConfigScores],
    judgments: Judgments,
    results: pd.DataFrame,
    method: str = "bootstrap",
    settings: Settings | None = None,
    **options: Any,
) -> pd.DataFrame:
    """:func:`compare` for every ranking of ``results`` (same dataset, kind, level,
    statistic and grouping) with two or more defined configurations.

    ``settings`` and ``options`` are those of :func:`compare` (the run's settings). With
    ``williams``, only the Pearson rankings it applies to are compared. Columns:
    :data:`COMPARISON_KEYS` followed by those of :func:`compare`.
    """
    frames = []
    pairwise_labels = set(PAIR_GROUP_LABELS.values())
    for key, rows in results.groupby(list(COMPARISON_KEYS), sort=False):
        dataset, kind, level, statistic, grouping = key
        if rows["value"].notna().sum() < 2:
            continue
        if method == "williams" and not (REGISTRY[statistic].williams and (level == "sys" or grouping == "none")):
            continue
        names = set(rows["config"])
        chosen = [c for c in configs if c.config in names]
        grouping_arg = "none" if grouping in pairwise_labels or grouping == "-" else grouping
        table = compare(chosen, judgments, kind, statistic, level, grouping=grouping_arg, method=method, settings=settings, **options)
        for column, value in reversed(list(zip(COMPARISON_KEYS, key))):
            table.insert(0, column, value)
        frames.append(table)
    if not frames:
        raise UsageError(
            f"no ranking to compare with {method!r}"
            + (" (the Williams test needs pearson with grouping none, or system-level pearson)" if method == "williams" else "")
        )
    return pd.concat(frames, ignore_index=True)


def _williams(a: Item, b: Item, judgments: Judgments, settings: Settings) -> float:
    """One-sided Williams p-value that ``a``'s Pearson correlation with the humans exceeds
    ``b``'s, over the items both are measured on (judged cells, or systems)."""
    systems = [s for s in a.config.systems if s in set(b.config.systems)]
    human = human_side(judgments, a.kind, systems, list(a.config.seg_ids), settings.pair_groups, None)
    if a.level == "sys":
        assert human.sys is not None
        xa = subset(a.config, human.sys_systems).sys_scores * direction(a.config)
        xb = subset(b.config, human.sys_systems).sys_scores * direction(b.config)
        y = human.sys * human.direction
    else:
        assert human.seg is not None
        xa = subset(a.config, human.systems).seg_scores * direction(a.config)
        xb = subset(b.config, human.systems).seg_scores * direction(b.config)
        y = human.seg * human.direction
    keep = ~(np.isnan(y) | np.isnan(xa) | np.isnan(xb))
    xa, xb, y = xa[keep], xb[keep], y[keep]
    r_a, r_b = correlate_vectors(xa, y, "pearson").value, correlate_vectors(xb, y, "pearson").value
    r_ab = correlate_vectors(xa, xb, "pearson").value
    return williams_test(r_a, r_b, r_ab, int(keep.sum()))


def _permutation(a: Item, b: Item, judgments: Judgments, settings: Settings, rng: np.random.Generator) -> PairedTest:
    """PERM-BOTH between two items of the same kind and statistic over their shared systems: the
    statistic (its registry entry) on the metric scores with each item swapped between ``a`` and
    ``b`` with probability 1/2 (cells of the segment scores at segment level and for statistics
    computed from segment scores, systems otherwise)."""
    systems = [s for s in a.config.systems if s in set(b.config.systems)]
    human = human_side(judgments, a.kind, systems, list(a.config.seg_ids), settings.pair_groups, None)
    entry = REGISTRY[a.statistic]
    grouping = a.grouping if a.level == "seg" and entry.groupings else ""
    options = {o: getattr(settings, o) for o in entry.options}
    if a.level == "seg" or entry.sys_from_segments:
        ma, mb = (subset(item.config, human.systems).seg_scores * direction(item.config) for item in (a, b))

        def statistic(m: np.ndarray) -> float:
            return entry.compute[a.level](Case(human, settings, a.level, grouping, seg_scores=m, options=options)).value
    else:
        ma, mb = (subset(item.config, human.sys_systems).sys_scores * direction(item.config) for item in (a, b))

        def statistic(m: np.ndarray) -> float:
            return entry.compute[a.level](Case(human, settings, a.level, grouping, sys_scores=m, options=options)).value

    return paired_permutation_test(statistic, ma, mb, rng, settings.n_bootstrap)


__all__ = ["COMPARE_METHODS", "COMPARISON_KEYS", "compare", "compare_all", "measure"]
