"""The system leaderboard of a scored corpus: every system ranked by the humans and by each
configuration (metric x segmenter), with significance on both sides.

For each human score (judgment kind) asked for, :func:`build_board` gives

- ``table``: one row per system for the human score (``source = human``) and for each
  configuration (``source = metric``): score, rank, the WMT24 rank range and cluster
  (:mod:`metaeval.stats.systems.rankranges`), the human rank and the displacement from it
  (:mod:`metaeval.stats.systems.ranks`);
- ``pairs``: per configuration, the pairs of systems it orders against the humans (``A > B``:
  the humans put A first, the metric B), with how many of those the humans separate
  significantly and which both sides separate, each in its own direction;
- ``comparisons``: every pair of systems on every side, with the p-values of the test behind
  the clusters, raw and adjusted, and the system that wins significantly, if either does.

Significance. Human side (``human_test``): ``wilcoxon``, WMT24's one-sided Wilcoxon
signed-rank tests on the paired segment judgments (:mod:`metaeval.stats.systems.wilcoxon`), or ``bootstrap``, the
paired bootstrap of the mean judgment. Metric side: the paired bootstrap with sacrebleu's
``--paired-bs`` p-value (:mod:`metaeval.stats.systems.bootstrap`) on resamples of the segments drawn once from
``seed`` and shared by every configuration and the human bootstrap. A system wins a pair when
its test gives an adjusted p < ``alpha`` (one-sided tests in its favour; the two-sided
bootstrap when it also scores higher). Each side's pairs of systems are one family: their
p-values are adjusted together by ``adjust`` (Holm by default; ``bh``, or ``none``: the raw
p-values, as WMT24 compared them) before the rank ranges, the clusters and the significance of
the pairs ordered against the humans are formed
(:func:`metaeval.stats.systems.rankranges.adjusted_pairs`). Human scores are the given system scores of the kind when there are
(``human_sys.tsv``), else the mean segment judgment; the tests need segment judgments.

Only systems with both outputs and a human score of the kind are ranked; the others are named
in ``notes``, as is a kind with fewer than two such systems (it has no rows).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from metaeval.corpora.model import Judgments
from metaeval.errors import UsageError
from metaeval.stats.adjust import CONTROLS, check_adjustment
from metaeval.stats.defaults import ADJUST
from metaeval.scoretable import ConfigScores
from metaeval.stats.systems import bootstrap, wilcoxon
from metaeval.stats.systems.rankranges import (
    RankRanges, adjusted_pairs, beats_one_sided, beats_two_sided, rank_ranges, resamples_needed,
)  # fmt: skip
from metaeval.stats.systems.ranks import competition_ranks, displacement, pair_order

HUMAN_TESTS = {
    "wilcoxon": wilcoxon.METHOD,
    "bootstrap": "paired bootstrap over segments of the mean judgment, p as sacrebleu --paired-bs",
}
CLUSTER_METHOD = (
    "WMT24: rank range [1 + systems significantly better, n - systems significantly worse]; "
    "walking down by score, a new cluster starts beyond the worst rank of every system above"
)
TABLE_COLUMNS = (
    "dataset", "judgment_kind", "source", "metric", "segmenter", "family", "chars_per_token", "config", "system",
    "score", "rank", "rank_low", "rank_high", "cluster", "human_rank", "displacement",
)  # fmt: skip
PAIR_COLUMNS = (
    "dataset", "judgment_kind", "metric", "segmenter", "config", "pairs", "inverted", "metric_ties",
    "inverted_human_significant", "inverted_both_significant", "inverted_pairs", "inverted_pairs_significant", "adjust",
)  # fmt: skip
COMPARISON_COLUMNS = (
    "dataset", "judgment_kind", "source", "metric", "segmenter", "system_a", "system_b", "score_a", "score_b",
    "p_a_better", "p_b_better", "p_a_better_adjusted", "p_b_better_adjusted", "winner", "adjust",
)  # fmt: skip


@dataclass(eq=False)
class SystemBoard:
    """What :func:`build_board` found, as DataFrames (module docstring), with notes and signature."""

    dataset: str
    table: pd.DataFrame
    pairs: pd.DataFrame
    comparisons: pd.DataFrame
    granularities: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    signature: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class _Side:
    """One ranked column of the board: oriented scores (higher is better), raw scores, ranks,
    and, when a test was possible, its raw and adjusted p-values, who beats whom (adjusted) and
    the rank ranges."""

    raw: np.ndarray
    oriented: np.ndarray
    ranks: np.ndarray
    p_better: np.ndarray | None = None  # p[i, j]: the test's p that i is better than j
    p_adjusted: np.ndarray | None = None  # the same, adjusted over the side's pairs
    beats: np.ndarray | None = None
    ranges: RankRanges | None = None


def family(adjust: str) -> str:
    """What the adjustment ``adjust`` covers on a system leaderboard, for signatures and notes."""
    if adjust == "none":
        return "none: raw p-values compared with alpha (as WMT24)"
    return (f"{CONTROLS[adjust]}, over each ranking's pairs of systems (the human score's, each configuration's): "
            "n(n-1)/2 pairs under a two-sided test, n(n-1) ordered pairs under a one-sided one")


def resolve_kinds(judgments: Judgments, kinds: Sequence[str] | None) -> list[str]:
    """The judgment kinds to rank by: those asked for (each must be present), else the first present."""
    present = list(dict.fromkeys(list(judgments.kinds) + list(judgments.system_kinds)))
    if not present:
        raise UsageError("the judgments hold no human score to rank systems by")
    if not kinds:
        return present[:1]
    unknown = [k for k in kinds if k not in present]
    if unknown:
        raise UsageError(f"no judgments of kind {unknown[0]!r}; kinds present: {', '.join(present)}")
    return list(dict.fromkeys(kinds))


def check_options(human_test: str, alpha: float, n_bootstrap: int, adjust: str = ADJUST) -> None:
    """Usage errors for a human test, level, number of resamples or adjustment that cannot be used."""
    check_adjustment(adjust)
    if human_test not in HUMAN_TESTS:
        raise UsageError(f"unknown human test {human_test!r}; known: {', '.join(HUMAN_TESTS)}")
    if not isinstance(alpha, (int, float)) or isinstance(alpha, bool) or not 0.0 < float(alpha) < 1.0:
        raise UsageError(f"alpha must be a number between 0 and 1, got {alpha!r}")
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, (int, np.integer)) or n_bootstrap < 0 or n_bootstrap == 1:
        raise UsageError(f"bootstrap must be 0 (no resampling) or at least 2 resamples, got {n_bootstrap!r}")


def _shared(configs: Sequence[ConfigScores]) -> tuple[list[str], list[str]]:
    """The systems and segments every configuration scores (the same, or a usage error)."""
    if not configs:
        raise UsageError("no scored configurations to rank systems by")
    first = configs[0]
    for config in configs[1:]:
        if list(config.seg_ids) != list(first.seg_ids) or sorted(config.systems) != sorted(first.systems):
            raise UsageError(
                f"configurations score different systems or segments ({config.metric}/{config.segmenter} vs "
                f"{first.metric}/{first.segmenter}); a system leaderboard compares them on the same ones"
            )
    return list(first.systems), list(first.seg_ids)


def _human_scores(judgments: Judgments, kind: str, systems: Sequence[str]) -> np.ndarray:
    """Given system scores of ``kind`` when there are, else the mean segment judgment."""
    if kind in judgments.system_kinds:
        column = judgments.system_scores[kind]  # type: ignore[index]
        return np.array([float(column[s]) if s in column.index else np.nan for s in systems])
    table = judgments.table[judgments.table["kind"] == kind]
    means = table.groupby(["system", "seg_id"], sort=False)["value"].mean().groupby(level=0).mean()
    return np.array([float(means[s]) if s in means.index else np.nan for s in systems])


def _judged_without_outputs(judgments: Judgments, kind: str, systems: Sequence[str]) -> list[str]:
    judged = set(judgments.table.loc[judgments.table["kind"] == kind, "system"])
    if kind in judgments.system_kinds:
        column = judgments.system_scores[kind]  # type: ignore[index]
        judged |= {str(s) for s in column.index[column.notna()]}
    return sorted(judged - set(systems))


def _side(raw: np.ndarray, direction: int, p_better: np.ndarray | None, alpha: float, two_sided: bool,
          adjust: str = ADJUST) -> _Side:  # fmt: skip
    oriented = direction * np.asarray(raw, dtype=float)
    ranks = competition_ranks(oriented)
    if p_better is None:
        return _Side(raw, oriented, ranks)
    p_adjusted = adjusted_pairs(p_better, adjust, two_sided)
    beats = beats_two_sided(p_adjusted, oriented, alpha) if two_sided else beats_one_sided(p_adjusted, alpha)
    return _Side(raw, oriented, ranks, p_better, p_adjusted, beats, rank_ranges(oriented, beats))


def build_board(
    configs: Sequence[ConfigScores],
    judgments: Judgments,
    *,
    kinds: Sequence[str] | None = None,
    n_bootstrap: int = 1000,
    seed: int = 12345,
    alpha: float = 0.05,
    human_test: str = "wilcoxon",
    adjust: str = ADJUST,
    granularities: pd.DataFrame | None = None,
    dataset: str = "",
    progress: Callable[[str, int, int], None] | None = None,
) -> SystemBoard:
    """The system leaderboard of ``configs`` against ``judgments`` (module docstring).

    Args:
        configs: scored configurations of one corpus (same systems and segments).
        judgments: the human judgments.
        kinds: human scores to rank by (default: the first kind present).
        n_bootstrap: resamples of the paired bootstrap (0: no metric clusters, and none on the
            human side with ``human_test="bootstrap"``).
        seed: seed of the resamples.
        alpha: significance level of every test.
        human_test: ``wilcoxon`` (WMT24) or ``bootstrap``.
        adjust: how each side's p-values are adjusted over its pairs of systems
            (:data:`metaeval.stats.adjust.ADJUSTMENTS`; ``none``: raw, as WMT24).
        granularities: the order of the segmenters (:func:`.granularity.granularity_order`);
            default: the order of ``configs``.
        dataset: the corpus's name, for the tables.
        progress: called as ``progress("ranking", done, total)`` (configurations).
    """
    check_options(human_test, alpha, n_bootstrap, adjust)
    systems, seg_ids = _shared(configs)
    kind_list = resolve_kinds(judgments, kinds)
    order = _granularities(configs, granularities)
    position = {name: i for i, name in enumerate(order["name"])}
    metrics = list(dict.fromkeys(c.metric for c in configs))
    configs = sorted(configs, key=lambda c: (metrics.index(c.metric), position.get(c.segmenter, len(position))))
    indices = bootstrap.segment_resamples(len(seg_ids), n_bootstrap, seed) if n_bootstrap else None
    samples: dict[int, np.ndarray] = {}
    rows: list[dict] = []
    pair_rows: list[dict] = []
    comparisons: list[dict] = []
    notes: list[str] = []
    total = len(configs) * len(kind_list)
    for k, kind in enumerate(kind_list):
        raw_human = _human_scores(judgments, kind, systems)
        used_index = np.flatnonzero(~np.isnan(raw_human))
        left_out = [systems[i] for i in range(len(systems)) if np.isnan(raw_human[i])]
        if left_out:
            notes.append(f"{kind}: no human score for {', '.join(sorted(left_out))}: not ranked")
        elsewhere = _judged_without_outputs(judgments, kind, systems)
        if elsewhere:
            notes.append(f"{kind}: judged but without outputs here: {', '.join(elsewhere)}: not ranked")
        if used_index.size < 2:
            notes.append(f"{kind}: {used_index.size} system(s) with both outputs and a human score: nothing to rank")
            continue
        used = [systems[i] for i in used_index]
        if adjust == "holm" and indices is not None and n_bootstrap < resamples_needed(len(used), alpha):
            notes.append(
                f"{kind}: with {n_bootstrap} resamples the smallest bootstrap p-value is 1/{n_bootstrap + 1}, and Holm's "
                f"adjustment over the {len(used) * (len(used) - 1) // 2} pairs of {len(used)} systems leaves none below "
                f"{alpha}: no pair is significant under a bootstrap test (metric clusters are all 1); "
                f"--bootstrap {resamples_needed(len(used), alpha)} or more, or --adjust bh, can separate them"
            )
        human = _human_side(judgments, kind, used, seg_ids, human_test, indices, alpha, adjust, notes)
        shown = sorted(range(len(used)), key=lambda i: (human.ranks[i], used[i]))
        base = {"dataset": dataset, "judgment_kind": kind}
        rows += _rows(base | {"source": "human", "metric": "", "segmenter": "", "family": "", "chars_per_token": np.nan,
                              "config": kind}, used, shown, human, human)  # fmt: skip
        comparisons += _comparisons(base | {"source": "human", "metric": "", "segmenter": ""}, used, shown, human, adjust)
        for c, config in enumerate(configs):
            if indices is not None and c not in samples:
                samples[c] = bootstrap.metric_samples(config, indices)
            column = [config.systems.index(s) for s in used]
            raw = np.asarray(config.sys_scores, dtype=float)[column]
            p = bootstrap.paired_bs_p_values(raw, samples[c][:, column]) if indices is not None else None
            side = _side(raw, 1 if config.higher_is_better else -1, p, alpha, two_sided=True, adjust=adjust)
            found = order[order["name"] == config.segmenter]
            where = {"family": found["family"].iloc[0] if len(found) else "",
                     "chars_per_token": found["chars_per_token"].iloc[0] if len(found) else np.nan}  # fmt: skip
            label = base | {"source": "metric", "metric": config.metric, "segmenter": config.segmenter}
            rows += _rows(label | where | {"config": config.config}, used, shown, side, human)
            comparisons += _comparisons(label, used, shown, side, adjust)
            pair_rows.append(_pairs(base | {"metric": config.metric, "segmenter": config.segmenter, "config": config.config},
                                    used, human, side, adjust))  # fmt: skip
            if progress:
                progress("ranking", k * len(configs) + c + 1, total)
    return SystemBoard(
        dataset=dataset,
        table=pd.DataFrame(rows, columns=list(TABLE_COLUMNS)),
        pairs=pd.DataFrame(pair_rows, columns=list(PAIR_COLUMNS)),
        comparisons=pd.DataFrame(comparisons, columns=list(COMPARISON_COLUMNS)),
        granularities=order,
        notes=notes,
        signature={
            "dataset": dataset, "kinds": kind_list, "systems": len(systems), "segments": len(seg_ids),
            "n_bootstrap": n_bootstrap, "seed": seed, "alpha": alpha, "human_test": HUMAN_TESTS[human_test],
            "metric_test": bootstrap.METHOD, "clusters": CLUSTER_METHOD, "adjust": adjust, "adjust_families": family(adjust),
            "granularity_order": "mean characters per token over the references (the sweep's axis)",
        },  # fmt: skip
    )


def _granularities(configs: Sequence[ConfigScores], given: pd.DataFrame | None) -> pd.DataFrame:
    """The segmenter order: ``given`` restricted to the configurations' segmenters, the others after it."""
    from metaeval.sweep import family_of

    labels = list(dict.fromkeys(c.segmenter for c in configs))
    rows = [] if given is None else [r for r in given.itertuples(index=False) if r.name in labels]
    known = {r.name for r in rows}
    table = pd.DataFrame([(r.name, r.family, r.chars_per_token) for r in rows], columns=["name", "family", "chars_per_token"])
    extra = pd.DataFrame([(s, family_of(s), np.nan) for s in labels if s not in known], columns=list(table.columns))
    return pd.concat([table, extra], ignore_index=True) if len(extra) else table


def _human_side(judgments: Judgments, kind: str, used: list[str], seg_ids: list[str], human_test: str,
                indices: np.ndarray | None, alpha: float, adjust: str, notes: list[str]) -> _Side:  # fmt: skip
    direction = judgments.direction(kind)
    raw = _human_scores(judgments, kind, used)
    if kind not in judgments.kinds:
        notes.append(f"{kind}: system-level scores only; human rank ranges and clusters need segment judgments")
        return _side(raw, direction, None, alpha, two_sided=False)
    matrix = direction * judgments.segment_matrix(kind, used, seg_ids)
    if human_test == "wilcoxon":
        return _side(raw, direction, wilcoxon.wilcoxon_p_values(matrix), alpha, two_sided=False, adjust=adjust)
    if indices is None:
        notes.append(f"{kind}: no human clusters: the bootstrap test needs resamples (bootstrap > 0)")
        return _side(raw, direction, None, alpha, two_sided=False)
    means = np.nanmean(matrix, axis=1)
    p = bootstrap.paired_bs_p_values(means, bootstrap.human_samples(matrix, indices))
    return _side(raw, direction, p, alpha, two_sided=True, adjust=adjust)


def _rows(label: dict, systems: list[str], shown: list[int], side: _Side, human: _Side) -> list[dict]:
    out = []
    for i in shown:
        out.append(label | {
            "system": systems[i], "score": float(side.raw[i]), "rank": side.ranks[i],
            "rank_low": side.ranges.low[i] if side.ranges else np.nan,
            "rank_high": side.ranges.high[i] if side.ranges else np.nan,
            "cluster": side.ranges.cluster[i] if side.ranges else np.nan,
            "human_rank": human.ranks[i], "displacement": displacement(side.ranks[i], human.ranks[i]),
        })  # fmt: skip
    return out


def _comparisons(label: dict, systems: list[str], shown: list[int], side: _Side, adjust: str) -> list[dict]:
    out = []
    for x, i in enumerate(shown):
        for j in shown[x + 1 :]:
            winner = ""
            if side.beats is not None:
                winner = systems[i] if side.beats[i, j] else systems[j] if side.beats[j, i] else ""
            tested = side.p_better is not None and side.p_adjusted is not None
            out.append(label | {
                "system_a": systems[i], "system_b": systems[j], "score_a": float(side.raw[i]), "score_b": float(side.raw[j]),
                "p_a_better": side.p_better[i, j] if tested else np.nan,  # type: ignore[index]
                "p_b_better": side.p_better[j, i] if tested else np.nan,  # type: ignore[index]
                "p_a_better_adjusted": side.p_adjusted[i, j] if tested else np.nan,  # type: ignore[index]
                "p_b_better_adjusted": side.p_adjusted[j, i] if tested else np.nan,  # type: ignore[index]
                "winner": winner, "adjust": adjust if tested else "",
            })  # fmt: skip
    return out


def _pairs(label: dict, systems: list[str], human: _Side, metric: _Side, adjust: str) -> dict:
    order = pair_order(human.oriented, metric.oriented)
    significant_human = [human.beats is not None and bool(human.beats[i, j]) for i, j in order.inverted]
    significant_both = [h and metric.beats is not None and bool(metric.beats[j, i]) for h, (i, j) in zip(significant_human, order.inverted)]
    return label | {
        "pairs": order.ordered, "inverted": len(order.inverted), "metric_ties": order.metric_ties,
        "inverted_human_significant": sum(significant_human) if human.beats is not None else np.nan,
        "inverted_both_significant": sum(significant_both) if human.beats is not None and metric.beats is not None else np.nan,
        "inverted_pairs": "; ".join(f"{systems[i]} > {systems[j]}" for i, j in order.inverted),
        "inverted_pairs_significant": "; ".join(f"{systems[i]} > {systems[j]}" for (i, j), both in zip(order.inverted, significant_both) if both),
        "adjust": adjust if human.beats is not None else "",
    }  # fmt: skip


__all__ = ["CLUSTER_METHOD", "HUMAN_TESTS", "SystemBoard", "build_board", "check_options", "family", "resolve_kinds"]
