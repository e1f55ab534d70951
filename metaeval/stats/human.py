"""The human side of a meta-evaluation: the human scores of one judgment kind for the systems a
configuration scored (docs/design.md, "Meta-evaluation"):

- segment level: the judgment of each (system, segment) averaged over judges; pairwise
  consistency compares systems within a (segment, judge) group when judges ranked several
  systems, otherwise within a segment after averaging (``pair_groups``);
- system level: the given system scores of that kind (``judgments.system_scores``) when
  present (``sys_human = given``, fixed under resampling), else the mean segment judgment
  per system, or mean rank for ranks (``derived``, recomputed on every resample).

Only systems both scored and judged are used; judged systems without scores (human
translators...) are dropped and named in the rows' ``note``.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from metaeval.corpora.model import Judgments
from metaeval.errors import UsageError
from metaeval.stats.case import HumanSide
from metaeval.stats.pairwise import PAIR_GROUP_LABELS, PAIR_GROUPS


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


def human_side(
    judgments: Judgments, kind: str, systems: list[str], seg_ids: list[str], pair_groups: str, weights: np.ndarray | None
) -> HumanSide:
    """The human side of ``kind`` for ``systems`` over ``seg_ids``; ``weights`` (bootstrap
    resamples of segments, or None) give the resampled derived system scores."""
    judged = set(_judged_systems(judgments, kind))
    used = [s for s in systems if s in judged]
    dropped = sorted(judged - set(systems))
    seg_index = {s: j for j, s in enumerate(seg_ids)}
    sub = judgments.table[judgments.table["kind"] == kind]
    seg = groups = group_segments = None
    pair_label = ""
    if not sub.empty:
        seg = judgments.segment_matrix(kind, used, seg_ids)
        groups, group_segments, pair_label = _pair_groups(sub, used, seg_index, pair_groups)
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
    return HumanSide(
        kind, judgments.direction(kind), used, sorted(set(dropped)), seg, groups, group_segments, pair_label,
        sys_systems, sys_scores, sys_human, sys_samples,
    )  # fmt: skip


def present_kinds(judgments: Judgments) -> list[str]:
    """The judgment kinds of ``judgments``: segment-level kinds, then kinds given as system scores only."""
    return list(dict.fromkeys(list(judgments.kinds) + list(judgments.system_kinds)))


def resolve_kinds(judgments: Judgments, kinds: Sequence[str] | None) -> list[str]:
    """The kinds to evaluate: those asked for (each must be present), else every kind present."""
    present = present_kinds(judgments)
    if kinds is None:
        if not present:
            raise UsageError("the judgments hold no kind to evaluate")
        return present
    unknown = [k for k in kinds if k not in present]
    if unknown:
        raise UsageError(f"no judgments of kind {unknown[0]!r}; kinds present: {', '.join(present) or '(none)'}")
    return list(dict.fromkeys(kinds))


__all__ = ["PAIR_GROUPS", "PAIR_GROUP_LABELS", "human_side", "present_kinds", "resolve_kinds"]
