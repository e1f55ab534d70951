"""Invariances of every statistic of the registry, values and intervals alike, on generated tables:
the unit of either side (1e-300 to 1e300), rank statistics under any strictly increasing map,
every statistic under positive affine maps, relabelled systems, reordered judgments and segments,
and lower-is-better scores or judgments equal to negated higher-is-better ones."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st

from metaeval.stats.registry import REGISTRY

from ._tables import NUMBERS, PROPERTIES, Table, close, differences, keyed, run, tables

#: Segment-level statistics that see only the order of each side's scores (and their ties).
RANK_STATISTICS = ("consistency", "kendall_like", "spearman", "kendall", "kendall_b", "kendall_c", "kendall_23", "kendall_acc23")
#: ... and those that see only the order of the human scores (tie calibration moves the metric's ties).
HUMAN_RANK_STATISTICS = (*RANK_STATISTICS, "acc_eq", "tau_eq")
#: Soft pairwise accuracy orients each system pair as "system i beats system j" in the order of
#: the systems (mt-metrics-eval pce.py), and a permutation sum equal to the observed one counts
#: for both orientations; its swaps are drawn per segment position. So it is invariant under
#: renaming systems and reordering judgments, not under reordering systems or segments.
ORDER_DEPENDENT = ("soft_pairwise_accuracy",)
#: Powers of two near 1e-300 and 1e300 (and nearer 1): every sum and difference scales exactly,
#: so ties among differences (which tie calibration sees) and among system means stay ties.
POWERS_OF_TWO = (1.0, 2.0**-996, 2.0**996, 2.0**-20, 2.0**20)
#: Decimal units. Sums of scaled judgments then round differently: two systems whose mean
#: judgments tie may differ in the last digit once multiplied by 1e300, and a system-level rank
#: statistic of resampled means sees the difference. Those are compared on powers of two only.
DECIMAL = (1e-300, 1e300, 1e-5, 1e6)
SYSTEM_RANKS = ("spearman", "kendall", "kendall_c", "pairwise_accuracy")


def _same_under_scaling(table: Table, metric: float, human: float, exact: bool = True) -> None:
    base, scaled = run(table), run(table.scaled(metric, human))
    if not exact:
        base, scaled = (t[~((t.level == "sys") & t.statistic.isin(SYSTEM_RANKS))] for t in (base, scaled))
    assert not differences(base, scaled)
    assert list(base.note) == list(scaled.note)
    for a, b in zip(base.epsilon, scaled.epsilon):
        assert close(a * metric, b), (a, b)


@PROPERTIES
@given(table=tables(), metric=st.sampled_from(POWERS_OF_TWO), human=st.sampled_from(POWERS_OF_TWO))
@example(  # a system whose segments have no judgment but one: the chance level's mean of an empty group warned
    table=Table(metric=np.array([[0.0, 0, 0, 0, 0], [0, 0, 0, 0.25, 0], [0, 0, 0, 0, 0]]),
                human=np.array([[0.0, 0, np.nan, 0, np.nan], [np.nan, np.nan, np.nan, 0, np.nan],
                                [np.nan, np.nan, np.nan, 1, np.nan]]),
                judges=np.zeros((3, 5), dtype=np.int8), human_kind="esa", metric_higher=True),
    metric=1.0, human=1.0,
)  # fmt: skip
def test_the_unit_of_either_side_changes_no_value_interval_or_note(table, metric, human):
    """Judgments or scores multiplied by about 1e300 or 1e-300 (any unit is legal) give the values,
    intervals and notes of the unscaled ones, and no warning; epsilon is in the metric's unit."""
    _same_under_scaling(table, metric, human if (metric, human) != (1.0, 1.0) else 2.0**996)


@PROPERTIES
@given(table=tables(), human=st.sampled_from(DECIMAL))
def test_judgments_in_decimal_units_of_1e300_and_1e_300_change_no_value_or_interval(table, human):
    """The same with judgments in decimal units, every statistic but the system-level rank ones
    (see DECIMAL). (A metric in decimal units can turn two equal differences of its scores into
    unequal ones, and tie calibration sees that: the metric is scaled by powers of two above.)"""
    _same_under_scaling(table, 1.0, human, exact=False)


def _increasing(draw: st.DrawFn, values: np.ndarray) -> np.ndarray:
    """``values`` under a strictly increasing map drawn at random (NaN kept)."""
    distinct = np.unique(values[~np.isnan(values)])
    steps = draw(st.lists(st.integers(1, 1000), min_size=len(distinct), max_size=len(distinct)))
    image = dict(zip(distinct.tolist(), np.cumsum(np.exp(np.array(steps) / 100.0)).tolist()))
    return np.vectorize(lambda v: v if np.isnan(v) else image[v])(values) if len(distinct) else values


@PROPERTIES
@given(table=tables(), side=st.sampled_from(["metric", "human"]), data=st.data())
def test_rank_statistics_see_only_the_order_of_the_scores(table, side, data):
    """Segment-level rank statistics (and the human side of tie calibration) give the same values
    and intervals under any strictly increasing map of either side's scores."""
    names = RANK_STATISTICS if side == "metric" else HUMAN_RANK_STATISTICS
    statistics = [f"seg:{name}" + (f"@{g}" if REGISTRY[name].groupings else "") for name in names
                  for g in (REGISTRY[name].groupings or ("",))]  # fmt: skip
    mapped = _increasing(data.draw, getattr(table, side))
    changed = Table(mapped, table.human, table.judges) if side == "metric" else Table(table.metric, mapped, table.judges)
    assert not differences(run(table, statistics), run(changed, statistics))


@PROPERTIES
@given(table=tables(), scale=st.sampled_from([0.5, 4.0, 1024.0]), shift=st.sampled_from([-3.0, 0.5, 7.25]),
       side=st.sampled_from(["metric", "human"]))  # fmt: skip
def test_every_statistic_is_invariant_under_positive_affine_maps(table, scale, shift, side):
    """Every statistic (Pearson and pdp included) gives the same values and intervals when either
    side is multiplied by a positive number and shifted (exact maps of the grid, so that ties stay
    ties); epsilon is in the metric's unit."""
    metric, human = (table.metric * scale + shift, table.human) if side == "metric" else (table.metric, table.human * scale + shift)
    base, moved = run(table), run(Table(metric, human, table.judges))
    assert not differences(base, moved)
    if side == "metric":
        for a, b in zip(base.epsilon, moved.epsilon):
            assert close(a * scale, b), (a, b)


@PROPERTIES
@given(table=tables(), data=st.data())
def test_relabelled_systems_and_reordered_judgments_change_nothing(table, data):
    """Systems renamed and listed in another order, and the judgment rows in any order, give the
    same values and intervals (soft pairwise accuracy: renamed only, see ORDER_DEPENDENT)."""
    n_sys = table.shape[0]
    order = np.array(data.draw(st.permutations(range(n_sys))))
    labels = [f"sys-{data.draw(st.text('abcxyz', min_size=1, max_size=3))}-{k}" for k in range(n_sys)]
    relabelled = Table(table.metric[order], table.human[order], table.judges[order])
    rows = np.array(data.draw(st.permutations(range(int((~np.isnan(table.human)).sum())))))
    base = run(table)
    renamed = run(table, systems=labels)
    assert not differences(base, renamed)
    moved = run(relabelled, systems=[labels[k] for k in order], order=rows)
    assert not differences(base, moved, skip=ORDER_DEPENDENT)
    assert list(base.note) == list(renamed.note)


@PROPERTIES
@given(table=tables(), data=st.data())
def test_reordered_segments_give_the_same_values(table, data):
    """Segments listed in another order give the same values (the intervals differ: resamples are
    drawn by position)."""
    order = np.array(data.draw(st.permutations(range(table.shape[1]))))
    moved = Table(table.metric[:, order], table.human[:, order], table.judges[:, order])
    seg_ids = [str(j + 1) for j in order]
    assert not differences(run(table, n_bootstrap=0), run(moved, seg_ids=seg_ids, n_bootstrap=0), ("value", "epsilon"),
                           skip=ORDER_DEPENDENT)  # fmt: skip


@PROPERTIES
@given(table=tables(), side=st.sampled_from(["metric", "human", "both"]))
def test_lower_is_better_equals_the_negated_higher_is_better(table, side):
    """A lower-is-better metric (or judgment kind, here MQM) with negated scores gives the values
    and intervals of the higher-is-better one."""
    flipped = table
    if side in ("metric", "both"):
        flipped = Table(-flipped.metric, flipped.human, flipped.judges, flipped.human_kind, metric_higher=False)
    if side in ("human", "both"):
        flipped = Table(flipped.metric, -flipped.human, flipped.judges, "mqm", flipped.metric_higher)
    base, other = run(table), run(flipped)
    assert not differences(base, other)
    assert list(keyed(base).epsilon.fillna(-1)) == list(keyed(other).epsilon.fillna(-1))
    assert set(NUMBERS) <= set(base.columns)
