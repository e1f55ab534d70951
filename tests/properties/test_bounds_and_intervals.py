"""Bounds, symmetries and intervals of every statistic of the registry on generated tables:
correlations in [-1, 1], accuracies in [0, 1], intervals included; the statistics whose
definition is symmetric unchanged when metric and human swap; an interval present, finite and
ordered whenever the value is, and containing it (percentile bootstrap, 1000 resamples) unless
the row's note says why not; an undefined value with its reason and no interval."""

from __future__ import annotations

import math

from hypothesis import given

from metaeval.stats.registry import REGISTRY

from ._tables import PROPERTIES, Table, differences, run, tables

#: Statistics that are shares of pairs (or one minus a mean distance of p-values): in [0, 1].
ACCURACIES = ("consistency", "kendall_acc23", "acc_eq", "pairwise_accuracy", "soft_pairwise_accuracy")
#: Statistics whose definition treats metric and human alike (consistency leaves out the pairs
#: the humans tie and tie calibration moves the metric's ties only; kendall_23 and kendall_acc23
#: and system-level pairwise accuracy are undefined where the humans tie every pair, and take
#: their formula on a constant metric).
SYMMETRIC = ("pearson", "spearman", "kendall", "kendall_b", "kendall_c", "pdp",
             "soft_pairwise_accuracy")  # fmt: skip
#: What a note says when the percentile interval leaves out the value.
OUTSIDE = "outside its percentile bootstrap interval"


def _bounds(name: str) -> tuple[float, float]:
    return (0.0, 1.0) if name in ACCURACIES else (-1.0, 1.0)


@PROPERTIES
@given(table=tables())
def test_values_and_intervals_keep_their_bounds_and_intervals_their_promises(table):
    result = run(table)
    assert set(result.statistic) == set(REGISTRY)
    for row in result.itertuples():
        where = f"{row.level}:{row.statistic}@{row.grouping}: {row.value}, [{row.ci_low}, {row.ci_high}]; {row.note}"
        if math.isnan(row.value):
            assert math.isnan(row.ci_low) and math.isnan(row.ci_high) and row.note, where
            continue
        low, high = _bounds(row.statistic)
        assert low <= row.value <= high, where
        assert math.isfinite(row.ci_low) and math.isfinite(row.ci_high), where
        assert low <= row.ci_low <= row.ci_high <= high, where
        tolerance = 1e-12 * max(1.0, abs(row.value))
        inside = row.ci_low - tolerance <= row.value <= row.ci_high + tolerance
        assert inside or OUTSIDE in row.note, where
        assert not inside or OUTSIDE not in row.note, where


@PROPERTIES
@given(table=tables(unjudged=False))
def test_symmetric_statistics_do_not_change_when_metric_and_human_swap(table):
    swapped = Table(table.human, table.metric, table.judges)
    statistics = [f"{level}:{name}" + (f"@{g}" if g else "") for name in SYMMETRIC for level in REGISTRY[name].levels
                  for g in (REGISTRY[name].groupings if level == "seg" and REGISTRY[name].groupings else ("",))]  # fmt: skip
    assert not differences(run(table, statistics), run(swapped, statistics))
