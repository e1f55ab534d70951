"""Chance levels: the value a metric carrying no information gets, estimated for each configuration
by permuting its metric scores and computing the statistic again (docs/design.md, "Chance levels").

The metric's scores are permuted within the statistic's own grouping, among the cells where both
metric and humans have a score: within each segment (``item``), each system (``sys``) or over all
cells (``none``); within each pair group (a segment, or a (segment, judge)) for Li et al.'s
consistency and the Kendall-like tau; over the systems at system level (soft pairwise accuracy,
computed from segment scores, moves each system's segment scores with it). The humans' scores,
the tie policy, the threshold and the averaging stay as they are, and so do the metric's own ties:
a metric that ties a tenth of its pairs keeps tying a tenth of them. Tie calibration is re-fitted
on every permutation (grouping ``item``); for ``none`` and ``sys``, as in their bootstrap
resamples, the configuration's own epsilon is kept, since a re-fit costs an exhaustive search over
every pair of the pool per permutation.

The chance level is the mean over ``chance_permutations`` permutations (seeded with
``chance_seed``; the same permutations for every configuration of a run), and the band the
central ``ci`` of their values. A statistic undefined for the configuration has none.

The estimate is generic: every statistic of the registry is computed on each permuted case by
its own function (system-level ones take the permuted system scores as their resamples, so all
permutations at once). A registry entry may name a faster function giving the same values for
many permutations at once (:mod:`metaeval.stats.permuted`), which is checked against this one.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from typing import TYPE_CHECKING, Any, Callable, Mapping

import numpy as np

from metaeval.stats.case import Case, HumanSide
from metaeval.stats.resampling import percentile_ci
from metaeval.stats.result import ChanceBand, Correlation

if TYPE_CHECKING:
    from metaeval.stats.registry import StatisticSpec

#: Largest block of permuted cells (permutations x cells) held at once.
BLOCK = 1 << 22
#: A faster function of many permutations: ``(case, layout, orders [P, G, m]) -> values [P]``, or
#: None where it does not apply (the generic estimate is used then).
Permuted = Callable[[Case, "Layout", np.ndarray], "np.ndarray | None"]


@dataclasses.dataclass(frozen=True, eq=False)
class Layout:
    """The metric scores of a case as rows whose valid cells are permuted among themselves.

    ``kind``: ``none``, ``item``, ``sys`` (segment-level groupings), ``pairs`` (pair groups of
    pairwise consistency), ``systems`` (system level), ``rows`` (system level from segment
    scores: whole systems move). ``rows`` ``[G, m]``: the metric's scores (for ``rows``, the
    system indices), ``valid`` ``[G, m]``: cells with a metric and a human score.
    """

    kind: str
    rows: np.ndarray
    valid: np.ndarray


def layout_of(entry: StatisticSpec, case: Case) -> Layout:
    """How ``entry``'s metric scores are permuted for ``case``."""
    human = case.human
    if case.level == "sys" and entry.sys_from_segments:
        assert case.seg_scores is not None
        n = case.seg_scores.shape[0]
        return Layout("rows", np.arange(n, dtype=float)[None], np.ones((1, n), dtype=bool))
    if case.level == "sys":
        assert case.sys_scores is not None and human.sys is not None
        x = np.asarray(case.sys_scores, float)
        return Layout("systems", x[None], (~np.isnan(x) & ~np.isnan(human.sys))[None])
    assert case.seg_scores is not None and human.seg is not None
    x = np.asarray(case.seg_scores, float)
    if not entry.groupings:
        assert human.groups is not None and human.group_segments is not None
        rows = x[:, human.group_segments].T
        return Layout("pairs", rows, ~np.isnan(rows) & ~np.isnan(human.groups.T))
    valid = ~np.isnan(x) & ~np.isnan(human.seg)
    if case.grouping == "none":
        return Layout("none", x.reshape(1, -1), valid.reshape(1, -1))
    if case.grouping == "item":
        return Layout("item", x.T, valid.T)
    return Layout("sys", x, valid)


def permutation_orders(valid: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``[n, G, m]`` positions: in permutation ``p``, cell ``(g, j)`` takes the score of cell
    ``(g, orders[p, g, j])``; the valid cells of each row are permuted uniformly among
    themselves, the others keep their own. Drawn one permutation after another from ``rng``."""
    g, m = valid.shape
    dtype = np.int32 if m < 2**31 else np.int64
    home = np.argsort(~valid, axis=1, kind="stable")  # valid positions first, in order
    out = np.empty((n, g, m), dtype=dtype)
    rows = np.arange(g)[:, None]
    for p in range(n):
        keys = np.where(valid, rng.random((g, m)), np.inf)
        shuffled = np.argsort(keys, axis=1, kind="stable")  # valid positions first, shuffled
        out[p][rows, home] = shuffled
    return out


def orders_for(human: HumanSide, layout: Layout, n: int, seed: int) -> np.ndarray:
    """The permutations of ``layout``'s cells, drawn once per human side from ``seed`` and shared
    by every configuration with the same valid cells, so that their chance levels are comparable."""
    digest = hashlib.sha256(np.ascontiguousarray(layout.valid).tobytes()).hexdigest()
    key = ("chance orders", layout.valid.shape, digest, n, seed)
    return human.shared(key, lambda: permutation_orders(layout.valid, n, np.random.default_rng(seed)))


def permuted_rows(layout: Layout, orders: np.ndarray) -> np.ndarray:
    """``[P, G, m]``: the layout's rows under each permutation."""
    return np.take_along_axis(np.broadcast_to(layout.rows, orders.shape), orders, axis=2)


def _segment_case(case: Case, layout: Layout, rows: np.ndarray, human: HumanSide) -> Case:
    """``case`` with the permuted rows ``[G, m]`` of ``layout`` as its segment scores."""
    assert case.seg_scores is not None
    if layout.kind == "none":
        seg = rows.reshape(case.seg_scores.shape)
    elif layout.kind in ("item", "pairs"):
        seg = rows.T
    elif layout.kind == "rows":
        seg = case.seg_scores[rows[0].astype(int)]
    else:
        seg = rows
    return dataclasses.replace(case, human=human, seg_scores=seg, weights=None, metric_samples=None, memo={})


def generic(entry: StatisticSpec, case: Case, layout: Layout, orders: np.ndarray) -> np.ndarray:
    """The statistic of every permutation ``orders`` ``[P, G, m]``, computed by its own function."""
    compute = entry.compute[case.level]
    permuted = permuted_rows(layout, orders)
    if layout.kind == "systems":  # system level: the permuted scores are taken as resamples
        fixed = dataclasses.replace(case.human, sys_samples=None)
        result = compute(dataclasses.replace(case, human=fixed, metric_samples=permuted[:, 0, :], weights=None, memo={}))
        return np.asarray(result.samples, float) if result.samples is not None else np.full(len(orders), math.nan)
    human = case.human
    if layout.kind == "pairs":  # each pair group gets a column of its own
        assert human.groups is not None
        human = dataclasses.replace(human, group_segments=np.arange(human.groups.shape[1]), cache={})
    return np.array([compute(_segment_case(case, layout, rows, human)).value for rows in permuted], dtype=float)


def values(entry: StatisticSpec, case: Case, n: int, seed: int, fast: bool = True) -> np.ndarray:
    """The statistic of ``entry`` for ``n`` permutations of ``case``'s metric scores (seed
    ``seed``), in blocks of at most :data:`BLOCK` cells; by the entry's faster function where it
    has one and ``fast``, else by :func:`generic`."""
    layout = layout_of(entry, case)
    orders = orders_for(case.human, layout, n, seed)
    step = max(1, BLOCK // max(1, layout.valid.size))
    out = []
    for start in range(0, n, step):
        block = orders[start : start + step]
        found = entry.chance(case, layout, block) if fast and entry.chance is not None else None
        out.append(generic(entry, case, layout, block) if found is None else np.asarray(found, float))
    return np.concatenate(out) if out else np.zeros(0)


def band(found: np.ndarray, level: float) -> ChanceBand:
    """The mean of the defined values and their central ``level`` band."""
    found = np.asarray(found, float)
    found = found[~np.isnan(found)]
    if not found.size:
        return ChanceBand()
    low, high = percentile_ci(found, level)
    return ChanceBand(float(found.mean()), low, high)


def at_or_below(value: Any, ci_low: Any, chance_high: Any) -> Any:
    """Whether a value is at or below chance: its interval (the value itself without one) is not
    above the chance band, ``ci_low <= chance_high``; False where the band is not known. Takes
    numbers or arrays (of a results table's columns)."""
    value, ci_low, chance_high = (np.asarray(v, dtype=float) for v in (value, ci_low, chance_high))
    lower = np.where(np.isnan(ci_low), value, ci_low)
    with np.errstate(invalid="ignore"):
        out = ~np.isnan(chance_high) & ~np.isnan(lower) & (lower <= chance_high)
    return bool(out) if out.ndim == 0 else out


def chance_band(entry: StatisticSpec, case: Case, result: Correlation) -> ChanceBand:
    """The chance level of ``entry`` for ``case`` (the configuration's own case, whose value is
    ``result``): none when the settings ask for no permutation or the value is undefined."""
    settings = case.settings
    if not settings.chance_permutations or not result.defined:
        return ChanceBand()
    options: Mapping[str, Any] = dict(case.options)
    if entry.chance_options is not None:
        options = {**options, **entry.chance_options(case, result)}
    base = dataclasses.replace(case, weights=None, metric_samples=None, options=options)
    return band(values(entry, base, settings.chance_permutations, settings.chance_seed), settings.ci)


__all__ = ["BLOCK", "Layout", "Permuted", "at_or_below", "band", "chance_band", "generic", "layout_of", "orders_for", "permutation_orders",
           "permuted_rows", "values"]  # fmt: skip
