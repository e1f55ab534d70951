"""A slow, pair-by-pair reference of every statistic of the registry, written from the
definitions (docs/design.md, "Exact definitions") with Python numbers and loops only.

A *cell* is one judged (system, segment) item: ``(origin, metric, human)``, ``origin`` naming the
original cell so that, in a bootstrap resample, two copies of one cell are recognised (they are
the same item: never a pair of the tie-aware statistics). Accuracies over pairs are computed
with exact fractions. A resample is a list of segment columns (a column drawn twice appears
twice); the full sample is every column once.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Callable

import numpy as np

NAN = math.nan
Cell = tuple[tuple[int, int], float, float]


# --------------------------------------------------------------------------- building blocks


def cells(metric: np.ndarray, human: np.ndarray, columns: list[int], grouping: str) -> list[list[Cell]]:
    """The groups of judged cells of ``columns`` for ``grouping`` (``none``, ``item``, ``sys``)."""
    n_sys = metric.shape[0]

    def cell(i: int, j: int) -> list[Cell]:
        return [] if math.isnan(human[i, j]) else [((i, j), float(metric[i, j]), float(human[i, j]))]

    if grouping == "none":
        return [[c for j in columns for i in range(n_sys) for c in cell(i, j)]]
    if grouping == "item":
        return [[c for i in range(n_sys) for c in cell(i, j)] for j in columns]
    return [[c for j in columns for c in cell(i, j)] for i in range(n_sys)]


def pairs(group: list[Cell]) -> list[tuple[float, float]]:
    """``(dm, dh)`` of every unordered pair of distinct items of ``group``."""
    return [(a[1] - b[1], a[2] - b[2]) for a, b in itertools.combinations(group, 2) if a[0] != b[0]]


def tallies(group: list[Cell], eps: float = 0.0) -> dict[str, int]:
    """C, D, Tm (metric tie only), Th (human tie only), Tb (both), a metric tie being ``|dm| <= eps``."""
    t = dict.fromkeys(("C", "D", "Tm", "Th", "Tb"), 0)
    for dm, dh in pairs(group):
        metric_tie, human_tie = abs(dm) <= eps, dh == 0
        kind = "Tb" if metric_tie and human_tie else "Tm" if metric_tie else "Th" if human_tie else "C" if (dm > 0) == (dh > 0) else "D"
        t[kind] += 1
    return t


def pearson(xs: list[float], ys: list[float]) -> float:
    """Pearson's r; NaN with fewer than two items or a constant side."""
    n = len(xs)
    if n < 2 or len(set(xs)) == 1 or len(set(ys)) == 1:
        return NAN
    top = max(abs(v) for v in xs), max(abs(v) for v in ys)
    xs, ys = [v / top[0] for v in xs], [v / top[1] for v in ys]
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx, syy = sum((x - mx) ** 2 for x in xs), sum((y - my) ** 2 for y in ys)
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))


def midranks(vs: list[float]) -> list[float]:
    """Rank of each value, ties sharing the mean of their ranks."""
    return [sum(u < v for u in vs) + (sum(u == v for u in vs) + 1) / 2 for v in vs]


def kendall_b_of(t: dict[str, int]) -> float:
    n = sum(t.values())
    x_free, y_free = n - t["Tm"] - t["Tb"], n - t["Th"] - t["Tb"]
    return NAN if x_free == 0 or y_free == 0 else (t["C"] - t["D"]) / math.sqrt(x_free * y_free)


def variant(group: list[Cell], name: str, eps: float = 0.0) -> float | Fraction:
    """One tie-aware Kendall variant of a group (NaN without pairs or where undefined)."""
    t = tallies(group, eps)
    n = sum(t.values())
    if n == 0:
        return NAN
    if name == "kendall_b":
        return kendall_b_of(t)
    if name == "kendall_c":
        if t["Tm"] + t["Tb"] == n or t["Th"] + t["Tb"] == n:
            return NAN
        k = min(len({c[1] for c in group}), len({c[2] for c in group}))
        return 2 * (t["C"] - t["D"]) / (len(group) ** 2 * (k - 1) / k)
    if name == "kendall_23":
        return Fraction(t["C"] + t["Tb"] - t["D"] - t["Tm"] - t["Th"], n)
    return Fraction(t["C"] + t["Tb"], n)  # kendall_acc23


def correlation(group: list[Cell], method: str) -> float:
    xs, ys = [c[1] for c in group], [c[2] for c in group]
    if method == "pearson":
        return pearson(xs, ys)
    if method == "spearman":
        return pearson(midranks(xs), midranks(ys)) if len(group) >= 2 else NAN
    return kendall_b_of(tallies(group)) if len(group) >= 2 else NAN


def averaged(groups: list[list[Cell]], value: Callable[[list[Cell]], float | Fraction], average: str, undefined: str) -> float | Fraction:
    """The mean over groups of two items or more, ``macro`` (each 1) or ``micro`` (each its
    items); an undefined group left out (``skip``) or counted as 0 (``zero``)."""
    total, weight = Fraction(0), Fraction(0)
    for group in groups:
        if len(group) < 2:
            continue
        v = value(group)
        w = 1 if average == "macro" else len(group)
        if isinstance(v, float) and math.isnan(v):
            if undefined == "skip":
                continue
            v = 0
        total += w * (Fraction(v) if isinstance(v, float) else v)
        weight += w
    return NAN if weight == 0 else total / weight


def undefined_groups(groups: list[list[Cell]], value: Callable[[list[Cell]], float | Fraction]) -> int:
    """Groups of two items or more whose value is undefined: those ``--undefined`` acts on."""
    return sum(1 for g in groups if len(g) >= 2 and isinstance(v := value(g), float) and math.isnan(v))


# --------------------------------------------------------------------------- segment level


def one_side_ties_everywhere(groups: list[list[Cell]], name: str) -> bool:
    """Every pair of every group tied by the humans, or, for ``kendall_b`` and ``kendall_c``,
    every one by the metric: the statistic is then undefined. (A constant metric gets what the
    tie-counting definitions give, as in mt-metrics-eval.)"""
    every = [p for g in groups for p in pairs(g)]
    return all(dh == 0 for _, dh in every) or (name in ("kendall_b", "kendall_c") and all(dm == 0 for dm, _ in every))


def segment(name: str, metric: np.ndarray, human: np.ndarray, columns: list[int], grouping: str, *,
            average: str = "macro", undefined: str = "skip", eps: float | None = None, resample: bool = False) -> float:  # fmt: skip
    """Segment-level ``name`` over ``columns``. ``eps``: the tie-calibrated statistics at this
    fixed threshold (their resamples by ``none`` and ``sys``) instead of the best one.
    ``resample``: the value of a bootstrap resample of a defined statistic, where a tie-aware
    statistic takes its formula even when one side happens to tie in every resampled pair
    (the full sample is then undefined: a constant side)."""
    groups = cells(metric, human, columns, grouping)
    undefined = "skip" if grouping == "none" else undefined  # one pool: no group to count as 0
    if name in ("pearson", "spearman", "kendall"):
        if grouping == "none":
            return float(correlation(groups[0], name))
        return float(averaged(groups, lambda g: correlation(g, name), average, undefined))
    if name == "pdp":
        every = [p for g in groups for p in pairs(g)]
        num, sxx, syy = sum(dm * dh for dm, dh in every), sum(dm * dm for dm, _ in every), sum(dh * dh for _, dh in every)
        return NAN if not every or sxx == 0 or syy == 0 else max(-1.0, min(1.0, num / math.sqrt(sxx * syy)))
    if not any(len(g) >= 2 for g in groups) or (not resample and one_side_ties_everywhere(groups, name)):
        return NAN
    if name in ("acc_eq", "tau_eq"):
        base = "kendall_acc23" if name == "acc_eq" else "kendall_23"
        if eps is not None:
            return float(averaged(groups, lambda g: variant(g, base, eps), average, undefined))
        return float(best_epsilon(groups, base, average)[0])
    return float(averaged(groups, lambda g: variant(g, name), average, undefined))


def best_epsilon(groups: list[list[Cell]], base: str, average: str) -> tuple[Fraction, float]:
    """The largest averaged ``base`` over every threshold (0 and every metric difference) and the
    smallest threshold reaching it."""
    candidates = sorted({0.0} | {abs(dm) for g in groups for dm, _ in pairs(g)})
    found = [(averaged(groups, lambda g, e=e: variant(g, base, e), average, "skip"), e) for e in candidates]
    best = max(v for v, _ in found)
    return best, min(e for v, e in found if v == best)  # type: ignore[return-value]


def consistency(name: str, metric: np.ndarray, human: np.ndarray, judges: np.ndarray, columns: list[int]) -> float:
    """Li et al.'s consistency C / (C + D) or the Kendall-like (C - D) / (C + D) over system
    pairs of every comparison group, human ties left out, metric ties excluded (the default
    policy). Groups: (segment, judge) when at least half of the judgments are in one holding two
    systems or more, else segments."""
    n_sys = metric.shape[0]
    judged = ~np.isnan(human)
    by_judge = {}
    for j in range(metric.shape[1]):
        for k in (0, 1):
            by_judge[(j, k)] = [i for i in range(n_sys) if judged[i, j] and judges[i, j] == k]
    # judges ranked several systems: at least half of the judgments share their (segment, judge) with another
    judgments = [len(v) for v in by_judge.values() for _ in v]
    per_judge = bool(judgments) and sum(s >= 2 for s in judgments) / len(judgments) >= 0.5
    c = d = 0
    for j in columns:
        groups = [by_judge[(j, 0)], by_judge[(j, 1)]] if per_judge else [[i for i in range(n_sys) if judged[i, j]]]
        for group in groups:
            for a, b in itertools.combinations(group, 2):
                dh, dm = human[a, j] - human[b, j], metric[a, j] - metric[b, j]
                if dh == 0 or dm == 0:
                    continue
                if (dh > 0) == (dm > 0):
                    c += 1
                else:
                    d += 1
    if c + d == 0:
        return NAN
    return c / (c + d) if name == "consistency" else (c - d) / (c + d)


# --------------------------------------------------------------------------- system level


def system_scores(metric: np.ndarray, human: np.ndarray, columns: list[int]) -> tuple[list[float], list[float]]:
    """Metric and human system scores over ``columns``: the mean metric score of the segments,
    the mean judgment of the judged ones (NaN where none is), for the systems judged anywhere."""
    used = [i for i in range(metric.shape[0]) if not np.all(np.isnan(human[i]))]
    xs = [sum(float(metric[i, j]) for j in columns) / len(columns) for i in used]
    ys = []
    for i in used:
        judged = [float(human[i, j]) for j in columns if not math.isnan(human[i, j])]
        ys.append(sum(judged) / len(judged) if judged else NAN)
    return xs, ys


def system(name: str, xs: list[float], ys: list[float], resample: bool = False) -> float:
    """A system-level statistic of metric and human system scores (NaN with a system without
    score). Pairwise accuracy takes its formula on a constant metric, and in a resample on a
    constant human side too (the full sample is then undefined)."""
    if len(xs) < 2 or any(math.isnan(v) for v in xs + ys):
        return NAN
    if name in ("pearson", "pdp"):
        return pearson(xs, ys)
    # pairwise accuracy takes its formula on a constant metric (every metric tie agrees with a human tie)
    constant = len(set(ys)) == 1 or (len(set(xs)) == 1 and name != "pairwise_accuracy")
    if constant and not (resample and name == "pairwise_accuracy"):
        return NAN
    if name == "spearman":
        return pearson(midranks(xs), midranks(ys))
    group = [((i, 0), x, y) for i, (x, y) in enumerate(zip(xs, ys))]
    if name == "kendall":
        return kendall_b_of(tallies(group))
    if name == "kendall_c":
        return float(variant(group, "kendall_c"))
    if name == "pairwise_accuracy":
        both = list(itertools.combinations(range(len(xs)), 2))
        return sum(np.sign(xs[i] - xs[j]) == np.sign(ys[i] - ys[j]) for i, j in both) / len(both)
    raise KeyError(name)


def permutation_p_values(scores: np.ndarray, human: np.ndarray, signs: np.ndarray) -> list[float]:
    """One-sided p-value that system i beats j (i < j, in order): the share of sign flips of the
    per-segment differences (segments judged for both) whose sum is at least the observed one,
    to a relative 1e-9 of the summed absolute differences."""
    out = []
    for i, j in itertools.combinations(range(scores.shape[0]), 2):
        d = [0.0 if math.isnan(human[i, s]) or math.isnan(human[j, s]) else float(scores[i, s] - scores[j, s])
             for s in range(scores.shape[1])]  # fmt: skip
        observed, size = sum(d), sum(abs(v) for v in d)
        out.append(sum(sum(sg * v for sg, v in zip(row, d)) >= observed - 1e-9 * size for row in signs) / len(signs))
    return out


def soft_pairwise_accuracy(metric: np.ndarray, human: np.ndarray, signs: np.ndarray) -> float:
    """1 - mean |p_human - p_metric| over system pairs (Thompson et al. 2024)."""
    used = [i for i in range(metric.shape[0]) if not np.all(np.isnan(human[i]))]
    metric, human = metric[used], human[used]
    if len(used) < 2:
        return NAN
    for side in (np.where(np.isnan(human), np.nan, metric), human):
        d = [side[i] - side[j] for i, j in itertools.combinations(range(len(used)), 2)]
        if not any(np.any(np.nan_to_num(v) != 0) for v in d):
            return NAN
    p_h, p_m = permutation_p_values(human, human, signs), permutation_p_values(metric, human, signs)
    return 1.0 - sum(abs(a - b) for a, b in zip(p_h, p_m)) / len(p_h)


__all__ = ["best_epsilon", "cells", "consistency", "segment", "soft_pairwise_accuracy", "system", "system_scores", "undefined_groups", "variant"]
