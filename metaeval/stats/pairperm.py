"""The pairs permutation test between two tie-aware Kendall statistics (mt-metrics-eval
``PairwisePermutationSigDiff``; used by the WMT24-25 metrics tasks to cluster metrics by
tie-calibrated pairwise accuracy).

Two metrics A and B are measured against the same human scores by a Kendall variant over pairs
of items within groups (``acc23``: the share of pairs ordered correctly, a pair tied by both
correct; ``23``: that share, rescaled to ``2 acc23 - 1``; ``b``: tau-b), each at its own metric
tie threshold (``|metric difference| <= eps`` is a tie; calibrated statistics keep the
threshold each metric was calibrated to on the full sample, so no permutation calibrates
again). Under the null hypothesis that the two metrics are exchangeable, each pair's outcome
(correct or not; for tau-b its sign agreement and whether the metric ties it) could have come
from either metric: a permutation swaps the outcomes of A and B on each pair of each group
independently with probability 1/2, which can give hybrids that no pair of score vectors gives
(mt-metrics-eval says so too). With ``delta = value(A) - value(B)`` observed, the one-sided
p-value that A is better is the share of permutations whose hybrid difference is at least
``delta`` (no +1: mt-metrics-eval's estimate), over ``k`` permutations or fewer: at every
``block_size``-th permutation whose hybrid difference reached ``delta``, the test stops when the
p-value so far is below ``early_min`` or above ``early_max`` (mt-metrics-eval checks there and
nowhere else).

Only the number of pairs swapped of each kind in each group changes a hybrid (a kind: how the
pair's outcome under B differs from that under A), so each permutation draws those numbers,
binomially, rather than a coin per pair: the same distribution, at a cost independent of the
number of pairs. Groups are averaged as every grouped statistic (:mod:`metaeval.stats.grouping`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from metaeval.errors import UsageError
from metaeval.stats.defaults import AVERAGE, BOOTSTRAP, UNDEFINED
from metaeval.stats.grouping import average_groups, group_weights
from metaeval.stats.significance import ROUNDING, PairedTest
from metaeval.stats.tallies import pair_blocks, tie_masks

#: Kendall variants the test takes (tau-c depends on the scores, not only on the pairs' outcomes).
PAIR_VARIANTS = ("acc23", "23", "b")
#: mt-metrics-eval's ``PermutationSigDiffParams``: block size and the early-stopping bounds.
BLOCK_SIZE, EARLY_MIN, EARLY_MAX = 1000, 0.02, 0.5
#: Permutations drawn at once (bounds the memory of the binomial draws).
_CHUNK = 100


@dataclass(frozen=True)
class PairOutcomes:
    """Every group's pairs, as the test needs them: the sums over each group of the per-pair
    quantities of A and of B (``[G, q]``: the correct pairs for ``acc23``/``23``; the sign
    agreement, +1 / -1 / 0, and the metric ties for ``b``), the pairs of each group, the pairs the
    humans do not tie, and the pairs of each kind (``counts`` ``[G, C]``) with the change in the
    quantities from A's outcome to B's (``steps`` ``[C, q]``)."""

    variant: str
    sums_a: np.ndarray
    sums_b: np.ndarray
    pairs: np.ndarray
    human_untied: np.ndarray
    counts: np.ndarray
    steps: np.ndarray
    weights: np.ndarray


def _quantities(dx: np.ndarray, dy: np.ndarray, valid: np.ndarray, eps: float, variant: str) -> list[np.ndarray]:
    metric_tie, human_tie, both_differ, agree = tie_masks(dx, dy, valid, eps)
    if variant == "b":
        sign = (both_differ & agree).astype(np.int64) - (both_differ & ~agree).astype(np.int64)
        return [sign, metric_tie.astype(np.int64)]
    return [((both_differ & agree) | (metric_tie & human_tie)).astype(np.int64)]


def pair_outcomes(
    metric_a: np.ndarray, metric_b: np.ndarray, human: np.ndarray, variant: str, eps_a: float = 0.0, eps_b: float = 0.0,
    average: str = AVERAGE,
) -> PairOutcomes:
    """The pairs of every group of ``metric_a``, ``metric_b``, ``human`` (``[G, m]``, one row per
    group, higher-better; NaN = no item; an item counts where all three are defined)."""
    if variant not in PAIR_VARIANTS:
        raise UsageError(f"the pairs permutation test takes the Kendall variants {', '.join(PAIR_VARIANTS)}; got {variant!r}")
    xa, xb, y = (np.asarray(v, float) for v in (metric_a, metric_b, human))
    if not xa.shape == xb.shape == y.shape or xa.ndim != 2:
        raise UsageError(f"metric and human matrices differ in shape: {xa.shape}, {xb.shape}, {y.shape}")
    missing = np.isnan(xa) | np.isnan(xb) | np.isnan(y)
    xa, xb, y = (np.where(missing, np.nan, v) for v in (xa, xb, y))
    q = 2 if variant == "b" else 1
    n_groups = xa.shape[0]
    sums_a, sums_b = np.zeros((n_groups, q), np.int64), np.zeros((n_groups, q), np.int64)
    pairs, human_untied = np.zeros(n_groups, np.int64), np.zeros(n_groups, np.int64)
    kinds: dict[tuple[int, ...], np.ndarray] = {}
    for (g0, dxa, dy, valid), (_, dxb, _, _) in zip(pair_blocks(xa, y), pair_blocks(xb, y)):
        rows = slice(g0, g0 + dxa.shape[0])
        qa, qb = _quantities(dxa, dy, valid, eps_a, variant), _quantities(dxb, dy, valid, eps_b, variant)
        sums_a[rows] += np.stack([v.sum(axis=(1, 2)) for v in qa], axis=1)
        sums_b[rows] += np.stack([v.sum(axis=(1, 2)) for v in qb], axis=1)
        pairs[rows] += valid.sum(axis=(1, 2))
        human_untied[rows] += (valid & (dy != 0)).sum(axis=(1, 2))
        steps = np.stack([b - a for a, b in zip(qa, qb)], axis=-1)[valid]  # [pairs, q]
        group = np.broadcast_to(np.arange(g0, g0 + dxa.shape[0])[:, None, None], valid.shape)[valid]
        changed = steps.any(axis=1)
        found, codes = np.unique(steps[changed], axis=0, return_inverse=True)
        for k, step in enumerate(found):
            key = tuple(int(v) for v in step)
            counter = kinds.setdefault(key, np.zeros(n_groups, np.int64))
            np.add.at(counter, group[changed][codes.ravel() == k], 1)
    keys = sorted(kinds)
    counts = np.stack([kinds[k] for k in keys], axis=1) if keys else np.zeros((n_groups, 0), np.int64)
    steps = np.array(keys, dtype=np.int64).reshape(len(keys), q)
    items = (~np.isnan(xa)).sum(axis=1)
    return PairOutcomes(variant, sums_a, sums_b, pairs, human_untied, counts, steps, group_weights(items, average))


def _group_values(outcomes: PairOutcomes, sums: np.ndarray) -> np.ndarray:
    """The variant in each group from summed quantities ``[..., G, q]`` (NaN where undefined)."""
    pairs = outcomes.pairs.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        if outcomes.variant == "b":
            sign, metric_ties = sums[..., 0], sums[..., 1]
            value = sign / np.sqrt(pairs - metric_ties) / np.sqrt(outcomes.human_untied.astype(float))
            value = np.where((metric_ties >= pairs) | (outcomes.human_untied == 0), np.nan, value)
        else:
            value = sums[..., 0] / pairs
            if outcomes.variant == "23":
                value = 2.0 * value - 1.0
    return np.where(pairs > 0, value, np.nan)


def statistic(outcomes: PairOutcomes, sums: np.ndarray, undefined: str = UNDEFINED) -> np.ndarray:
    """The grouped statistic from summed quantities ``[..., G, q]``: groups averaged as every
    grouped statistic (NaN where no group has a value)."""
    values = _group_values(outcomes, sums)
    return average_groups(values, np.broadcast_to(outcomes.weights, values.shape), undefined)[0]


def stops_early(hit: bool, permutations: int, hits: int, block_size: int, early_min: float, early_max: float) -> bool:
    """mt-metrics-eval's early stop, checked after permutation number ``permutations`` (from 1)
    when its hybrid difference reached the observed one (``hit``) and it closes a block."""
    if not hit or permutations % block_size:
        return False
    p = hits / permutations
    return p < early_min or p > early_max


def pairs_permutation_test(
    outcomes: PairOutcomes,
    rng: np.random.Generator,
    n_permutations: int = BOOTSTRAP,
    *,
    undefined: str = UNDEFINED,
    block_size: int = BLOCK_SIZE,
    early_min: float = EARLY_MIN,
    early_max: float = EARLY_MAX,
) -> PairedTest:
    """One-sided p-value that A is better than B by the pairs permutation test (module
    docstring); ``n_samples`` of the result is the number of permutations drawn."""
    if n_permutations < 1 or block_size < 1:
        raise UsageError(f"permutations and block size must be at least 1, got {n_permutations} and {block_size}")
    name = "pairs permutation (mt-metrics-eval PairwisePermutationSigDiff), one-sided"
    value_a = float(statistic(outcomes, outcomes.sums_a, undefined))
    value_b = float(statistic(outcomes, outcomes.sums_b, undefined))
    delta = value_a - value_b
    if math.isnan(delta):
        return PairedTest(value_a, value_b, math.nan, math.nan, name, 0)
    hits = done = 0
    while done < n_permutations:
        size = min(_CHUNK, n_permutations - done, block_size - done % block_size)
        swapped = rng.binomial(np.broadcast_to(outcomes.counts, (size, *outcomes.counts.shape)), 0.5)
        moved = swapped @ outcomes.steps  # [size, G, q]: B's outcomes taken into A's hybrid
        differences = statistic(outcomes, outcomes.sums_a + moved, undefined) - statistic(outcomes, outcomes.sums_b - moved, undefined)
        reached = differences >= delta - ROUNDING
        hits += int(reached.sum())
        done += size
        if stops_early(bool(reached[-1]), done, hits, block_size, early_min, early_max):
            break
    return PairedTest(value_a, value_b, delta, hits / done, name, done)


__all__ = ["BLOCK_SIZE", "EARLY_MAX", "EARLY_MIN", "PAIR_VARIANTS", "PairOutcomes", "pair_outcomes", "pairs_permutation_test",
           "statistic", "stops_early"]
