"""Segment-level pairwise consistency of Li, Zong & Ng 2011 and the Kendall-like tau of WMT.

Over every segment (or every (segment, judge) group when judges ranked several systems), each
pair of systems judged in the group is concordant (metric and humans order it the same way),
discordant, tied by the metric, or tied by the humans. Pairs the humans tie (or whose human
difference is at most ``threshold``, WMT daRR's 25 DA points) are left out; metric ties follow
a named policy. Consistency is ``C / (C + D)``, the Kendall-like tau ``(C - D) / (C + D)``
(WMT'10-'20, mt-metrics-eval ``KendallLike``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metaeval.errors import UsageError
from metaeval.stats.checks import check_choice, check_direction
from metaeval.stats.defaults import CI, TIE_POLICY
from metaeval.stats.resampling import with_samples
from metaeval.stats.result import Correlation, undefined

TIE_POLICIES = ("exclude", "discordant", "half")
PAIRWISE = ("consistency", "kendall_like")
#: How pairs are formed: within a (segment, judge) when judges ranked several systems (``auto``),
#: always so (``judge``), or within a segment after averaging over judges (``segment``).
PAIR_GROUPS = ("auto", "judge", "segment")
#: Grouping label of pairwise rows: pairs within a segment, or within a (segment, judge).
PAIR_GROUP_LABELS = {"segment": "segment", "judge": "segment+judge"}


@dataclass(frozen=True, eq=False)
class PairCounts:
    """Pair counts per segment (arrays ``[n_seg]``), before any metric-tie policy.

    ``concordant``/``discordant`` exclude metric ties; ``metric_ties`` are compared pairs the
    metric scores equal; ``human_ties`` are pairs skipped because the human judgments tie
    (or differ by at most the threshold).
    """

    concordant: np.ndarray
    discordant: np.ndarray
    metric_ties: np.ndarray
    human_ties: np.ndarray
    #: Human differences at most this count as ties (0: only equal judgments).
    threshold: float = 0.0

    def totals(self, weights: np.ndarray | None = None) -> dict[str, np.ndarray | float]:
        """Summed counts; with ``weights [n_samples, n_seg]`` one total per sample."""
        names = ("concordant", "discordant", "metric_ties", "human_ties")
        if weights is None:
            return {k: float(getattr(self, k).sum()) for k in names}
        sums = weights @ np.stack([getattr(self, k) for k in names], axis=1)
        return {k: sums[:, i] for i, k in enumerate(names)}



def pair_counts(
    metric: np.ndarray,
    human: np.ndarray,
    *,
    metric_direction: int = 1,
    human_direction: int = 1,
    threshold: float | None = None,
    group_segments: np.ndarray | None = None,
) -> PairCounts:
    """Concordant/discordant/tied system pairs per segment (Li et al. 2011).

    Args:
        metric: array of shape ``(n_sys, n_seg)``; NaN marks a missing score.
        human: array of shape ``(n_sys, n_groups)``, one column per comparison group (a
            segment, or a (segment, judge) pair); NaN = system not judged in that group.
        metric_direction, human_direction: +1 when higher is better, -1 when lower is
            better (ranks); scores are multiplied by their direction before comparing.
        threshold: pairs with ``|human difference| <= threshold`` count as human ties
            (WMT daRR: 25 raw DA points). None: only exact ties.
        group_segments: segment column of each group, shape ``(n_groups,)``; None means
            groups are the segments themselves.

    Every pair of systems judged in a group counts once; counts are summed per segment.
    """
    check_direction("metric_direction", metric_direction)
    check_direction("human_direction", human_direction)
    if threshold is not None and not (threshold >= 0):
        raise UsageError(f"threshold must be a non-negative number, got {threshold!r}")
    metric = np.asarray(metric, dtype=float) * metric_direction
    human = np.asarray(human, dtype=float) * human_direction
    n_sys, n_seg = metric.shape
    if group_segments is None:
        group_segments = np.arange(human.shape[1])
    group_segments = np.asarray(group_segments, dtype=int)
    if human.shape[0] != n_sys or group_segments.shape != (human.shape[1],):
        raise UsageError(
            f"shape mismatch: metric {metric.shape}, human {human.shape}, group_segments {group_segments.shape}"
        )
    h = human.T  # [groups, sys]
    m = metric[:, group_segments].T
    upper = np.triu(np.ones((n_sys, n_sys), dtype=bool), k=1)
    dh = h[:, :, None] - h[:, None, :]
    dm = m[:, :, None] - m[:, None, :]
    valid = upper & ~np.isnan(dh) & ~np.isnan(dm)
    with np.errstate(invalid="ignore"):
        tied_h = valid & (np.abs(dh) <= (threshold or 0.0))
        compared = valid & ~tied_h
        agree = np.sign(dh) * np.sign(dm)
    per_group = {
        "concordant": (compared & (agree > 0)).sum(axis=(1, 2)),
        "discordant": (compared & (agree < 0)).sum(axis=(1, 2)),
        "metric_ties": (compared & (dm == 0)).sum(axis=(1, 2)),
        "human_ties": tied_h.sum(axis=(1, 2)),
    }
    per_seg = {k: np.bincount(group_segments, weights=v, minlength=n_seg) for k, v in per_group.items()}
    return PairCounts(**per_seg, threshold=float(threshold or 0.0))


def apply_tie_policy(
    concordant: np.ndarray | float, discordant: np.ndarray | float, metric_ties: np.ndarray | float, tie_policy: str
) -> tuple[np.ndarray | float, np.ndarray | float]:
    """``(C, D)`` after the metric-tie policy: ``exclude`` drops ties, ``discordant`` adds
    them to D (WMT'10-'20, mt-metrics-eval ``KendallLike``), ``half`` adds half to each."""
    check_choice("tie policy", tie_policy, TIE_POLICIES)
    if tie_policy == "discordant":
        return concordant, discordant + metric_ties
    if tie_policy == "half":
        return concordant + 0.5 * metric_ties, discordant + 0.5 * metric_ties
    return concordant, discordant


def pairwise_value(c: np.ndarray | float, d: np.ndarray | float, statistic: str) -> np.ndarray:
    """Consistency ``C / (C + D)`` or the Kendall-like ``(C - D) / (C + D)`` (NaN without a pair)."""
    c, d = np.asarray(c, dtype=float), np.asarray(d, dtype=float)
    total = c + d
    with np.errstate(invalid="ignore", divide="ignore"):
        value = c / total if statistic == "consistency" else (c - d) / total
    return np.where(total > 0, value, np.nan)


def consistency(
    counts: PairCounts,
    *,
    statistic: str = "consistency",
    tie_policy: str = TIE_POLICY,
    weights: np.ndarray | None = None,
    ci: float = CI,
) -> Correlation:
    """Pairwise consistency ``C / (C + D)`` or Kendall-like ``(C - D) / (C + D)``.

    ``C`` and ``D`` are taken after ``tie_policy`` (:func:`apply_tie_policy`); ``n = C + D``.
    With ``weights`` (``[n_samples, n_seg]``), bootstrap samples are the weighted sums of the
    per-segment counts.
    """
    if statistic not in PAIRWISE:
        raise UsageError(f"unknown pairwise statistic {statistic!r}; known: {', '.join(PAIRWISE)}")
    totals = {k: float(v) for k, v in counts.totals().items()}
    c, d = apply_tie_policy(totals["concordant"], totals["discordant"], totals["metric_ties"], tie_policy)
    summary = dict(totals)
    n = c + d
    if n <= 0:
        if totals["human_ties"] == 0 and totals["metric_ties"] == 0:
            reason = "no pair of systems judged on a common segment"
        elif totals["metric_ties"] == 0 and counts.threshold > 0:
            reason = (
                f"the threshold {counts.threshold:g} skipped all {int(totals['human_ties'])} judged pairs "
                "(their human scores differ by at most that)"
            )
        elif totals["metric_ties"] == 0:
            reason = f"all {int(totals['human_ties'])} judged pairs are tied by the human judgments"
        else:
            reason = "every pair is tied by the human judgments or by the metric (tie policy exclude)"
        return with_samples(undefined(reason, 0, summary), None, ci)
    result = Correlation(float(pairwise_value(c, d, statistic)), n=int(round(float(n))), counts=summary)
    samples = None
    if weights is not None:
        t = counts.totals(weights)
        cs, ds = apply_tie_policy(t["concordant"], t["discordant"], t["metric_ties"], tie_policy)
        samples = pairwise_value(cs, ds, statistic)
    return with_samples(result, samples, ci)



__all__ = ["PAIRWISE", "PAIR_GROUPS", "PAIR_GROUP_LABELS", "TIE_POLICIES", "PairCounts", "apply_tie_policy", "consistency", "pair_counts", "pairwise_value"]
