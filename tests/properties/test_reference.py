"""Every statistic of the registry, at every level and grouping, equals the pair-by-pair
reference of :mod:`tests.properties._reference` on generated tables: its value, its epsilon, its
note on undefined groups, and its bootstrap values on the resamples the run drew (each the
statistic of the explicitly resampled table, as the definitions of the resamples say)."""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from metaeval.stats.grouping import AVERAGES, UNDEFINED_POLICIES
from metaeval.stats.registry import REGISTRY
from metaeval.stats.settings import Settings

from . import _reference as ref
from ._tables import PROPERTIES, Table, close, run, tables

#: Resamples compared one by one with the reference (each costs a reference computation).
RESAMPLES = 6
#: Statistics whose resamples are not the statistic of the resampled table, and what they are.
FIXED_EPSILON = ("acc_eq", "tau_eq")  # grouped none and sys: the full sample's epsilon (the row's note says so)


def columns(n_seg: int) -> list[int]:
    return list(range(n_seg))


def expected(table: Table, level: str, name: str, grouping: str, cols: list[int], options: dict, eps: float | None = None,
             resample: bool = False) -> float:  # fmt: skip
    """The reference value of one row of the ResultTable on the segments ``cols``."""
    m, h = table.metric, table.human
    if level == "sys":
        if name == "soft_pairwise_accuracy":
            return ref.soft_pairwise_accuracy(m[:, cols], h[:, cols], spa_signs(len(cols), options))
        return ref.system(name, *ref.system_scores(m, h, cols), resample=resample)
    if name in ("consistency", "kendall_like"):
        return ref.consistency(name, m, h, table.judges, cols)
    if name not in REGISTRY:
        raise KeyError(name)
    return ref.segment(name, m, h, cols, grouping, average=options["average"], undefined=options["undefined"], eps=eps,
                       resample=resample)  # fmt: skip


def spa_signs(n_seg: int, options: dict) -> np.ndarray:
    """The segment swaps of soft pairwise accuracy: one seeded draw, a swap with probability 1/2."""
    rng = np.random.default_rng(options["permutation_seed"])
    return np.where(rng.random((options["permutations"], n_seg)) < 0.5, -1.0, 1.0)


def spa_resamples(table: Table, value: float, weights: np.ndarray) -> list[float]:
    """Resampled soft pairwise accuracy: p-values by the normal approximation of the permutation
    test (the swapped sum has mean 0 and variance sum w^2 d^2), re-centred on the permutation value."""
    used = [i for i in range(table.shape[0]) if not np.all(np.isnan(table.human[i]))]
    h = table.human[used]
    m = np.where(np.isnan(h), np.nan, table.metric[used])

    def p_values(scores: np.ndarray, w: np.ndarray) -> list[float]:
        out = []
        for i, j in itertools.combinations(range(len(used)), 2):
            d = [0.0 if math.isnan(scores[i, s] - scores[j, s]) else scores[i, s] - scores[j, s] for s in range(scores.shape[1])]
            spread = math.sqrt(sum(wk * wk * dk * dk for wk, dk in zip(w, d)))
            observed = sum(wk * dk for wk, dk in zip(w, d))
            out.append(0.5 * math.erfc(observed / spread / math.sqrt(2)) if spread > 0 else 1.0)
        return out

    def accuracy(w: np.ndarray) -> float:
        return 1.0 - float(np.mean(np.abs(np.subtract(p_values(h, w), p_values(m, w)))))

    full = accuracy(np.ones(h.shape[1]))
    return [accuracy(w) + (value - full) for w in weights]


def undefined_groups(table: Table, name: str, grouping: str, options: dict) -> int:
    """The groups a grouped statistic's ``--undefined`` policy acts on (two items or more, undefined)."""
    groups = ref.cells(table.metric, table.human, columns(table.shape[1]), grouping)
    if name in ("pearson", "spearman", "kendall"):
        return ref.undefined_groups(groups, lambda g: ref.correlation(g, name))
    if name in ("kendall_b", "kendall_c", "kendall_23", "kendall_acc23"):
        return ref.undefined_groups(groups, lambda g: ref.variant(g, name))
    return 0


@PROPERTIES
@given(table=tables(), average=st.sampled_from(AVERAGES), undefined=st.sampled_from(UNDEFINED_POLICIES))
def test_every_statistic_and_grouping_equals_the_pair_by_pair_reference(table, average, undefined):
    settings = Settings()
    options = {"average": average, "undefined": undefined, "permutations": 200, "permutation_seed": settings.permutation_seed}
    result, samples = run(table, n_bootstrap=RESAMPLES, samples=True, **options)
    n_seg = table.shape[1]
    indices = np.random.default_rng(settings.seed).integers(0, n_seg, size=(RESAMPLES, n_seg))
    weights = np.stack([np.bincount(row, minlength=n_seg) for row in indices]).astype(float)
    assert set(result.statistic) == set(REGISTRY)
    for row, drawn in zip(result.itertuples(), samples):
        grouping = "" if row.level == "sys" or not REGISTRY[row.statistic].groupings else row.grouping
        where = f"{row.level}:{row.statistic}@{row.grouping}"
        value = expected(table, row.level, row.statistic, grouping, columns(n_seg), options)
        assert close(row.value, value, 1e-12), (where, row.value, value, row.note)
        if row.statistic in FIXED_EPSILON and not math.isnan(value):
            groups = ref.cells(table.metric, table.human, columns(n_seg), grouping)
            assert row.epsilon == ref.best_epsilon(groups, "kendall_acc23", average)[1], (where, row.epsilon)
        if grouping and row.statistic not in ("pdp", "acc_eq", "tau_eq") and not math.isnan(row.value):
            count = undefined_groups(table, row.statistic, grouping, options)
            said = f"{count} " in row.note and ("counted as 0" if undefined == "zero" else "skipped") in row.note
            assert said if count else "undefined" not in row.note.split(";")[0], (where, count, row.note)
        if math.isnan(row.value):
            continue
        if row.statistic == "soft_pairwise_accuracy":
            wanted = spa_resamples(table, row.value, weights)
        else:
            eps = row.epsilon if row.statistic in FIXED_EPSILON and grouping in ("none", "sys") else None
            wanted = [expected(table, row.level, row.statistic, grouping, list(cols), options, eps, True) for cols in indices]
        for b, (got, want) in enumerate(zip(drawn, wanted)):
            assert close(got, want, 1e-9), (where, "resample", b, list(indices[b]), got, want)
