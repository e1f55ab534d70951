"""Chart axes (report.scale): fitted to the data, chance level or tie-free reference marked, exact
tick labels. Expected axes are worked out by hand in each comment."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from metaeval.report.layout import Bar, tie_free_reference
from metaeval.report.scale import chart_scale, decimals_for, fit_axis, nice_step, own_reference


@pytest.mark.parametrize("statistic, reference", [
    ("consistency", 0.5), ("pearson", 0.0), ("kendall_like", 0.0), ("spearman", 0.0), ("kendall_b", 0.0),
    # these depend on the share of pairs the humans tie: not known without the data
    ("acc_eq", math.nan), ("kendall_acc23", math.nan), ("tau_eq", math.nan), ("pairwise_accuracy", math.nan),
    ("soft_pairwise_accuracy", math.nan), ("no_such_statistic", math.nan),
])  # fmt: skip
def test_tie_free_reference_without_data_is_the_statistics_own_where_it_does_not_depend_on_it(statistic, reference):
    assert own_reference(statistic) == pytest.approx(reference, nan_ok=True)


def test_tie_free_reference_of_a_ranking_comes_from_the_table_computed_with_the_results():
    table = pd.DataFrame({"judgment_kind": ["esa", "esa"], "level": ["seg", "seg"], "statistic": ["acc_eq", "acc_eq"],
                          "grouping": ["item", "none"], "tie_free": [0.47, 0.45]})  # fmt: skip
    key = {"judgment_kind": "esa", "level": "seg", "statistic": "acc_eq", "grouping": "item"}
    assert tie_free_reference(key, table) == 0.47 and tie_free_reference({**key, "grouping": "none"}, table) == 0.45
    assert math.isnan(tie_free_reference({**key, "judgment_kind": "mqm"}, table))


def _bars(chances):
    return [Bar(f"c{k}", 0.50 + 0.01 * k, 0.49 + 0.01 * k, 0.51 + 0.01 * k, c, c - 0.008, c + 0.008) for k, c in enumerate(chances)]


def test_one_line_where_every_configuration_shares_the_chance_level_to_a_pixel():
    # values 0.49..0.53, chance ~0.46 within one span: axis [0.44, 0.54] (step 0.02); one pixel of 360 = 0.00028
    scale = chart_scale(_bars([0.4601, 0.4602, 0.4600]))
    assert scale.shared and scale.line == pytest.approx(0.4601) and scale.label == "chance 0.46" and scale.bands
    # 0.001 apart: more than a pixel -> no line, each configuration's band with a mark of its own
    apart = chart_scale(_bars([0.460, 0.461, 0.462]))
    assert not apart.shared and math.isnan(apart.line) and apart.bands and apart.label == "chance band of each configuration"


def test_without_chance_levels_the_tie_free_reference_is_marked_and_named_so():
    bars = [Bar("a", 0.54, 0.53, 0.55), Bar("b", 0.52, 0.51, 0.53)]
    scale = chart_scale(bars, 0.5)
    assert scale.line == 0.5 and scale.label == "tie-free reference 0.5" and not scale.bands
    far = chart_scale([Bar("a", 0.8, 0.75, 0.85)], 0.0)
    assert math.isnan(far.line) and far.label == "tie-free reference 0 (further left)"
    assert chart_scale(bars).label == "" and math.isnan(chart_scale(bars).line)


def test_an_unknown_chance_level_is_neither_drawn_nor_named():
    axis = fit_axis([0.46, 0.50], math.nan)
    assert axis.chance_side == "unknown" and axis.chance_text == ""
    assert axis.low <= 0.46 and axis.high >= 0.50 and axis.high - axis.low < 0.1


def test_consistency_values_close_together_stay_apart():
    # 0.527..0.556 (the 0.537-0.546 with intervals), chance 0.5 within one span (0.029) -> kept:
    # data 0.5..0.556, padded by 0.0028 -> [0.4972, 0.5588]; step 0.02 (0.0616/0.01 = 6.2 > 6 intervals)
    axis = fit_axis([0.537, 0.527, 0.547, 0.546, 0.536, 0.556], 0.5)
    assert (round(axis.low, 9), round(axis.high, 9), axis.step, axis.chance_side) == (0.48, 0.56, 0.02, "")
    # the two values are 0.009 apart: 11% of the axis, where an axis from 0 gave 1.6%
    assert axis.fraction(0.546) - axis.fraction(0.537) == pytest.approx(0.009 / 0.08)


def test_tick_labels_have_the_decimals_of_the_step():
    # 0..0.13 padded to [-0.0065, 0.1365]: 0.02 gives 7.2 intervals, 0.025 gives 5.7 -> step 0.025
    axis = fit_axis([0.0, 0.13], 0.0)
    assert axis.step == 0.025
    assert [axis.label(t) for t in axis.ticks()] == ["-0.025", "0.000", "0.025", "0.050", "0.075", "0.100", "0.125", "0.150"]
    assert decimals_for(0.025) == 3 and decimals_for(0.05) == 2 and decimals_for(0.2) == 1 and decimals_for(2.0) == 0


def test_far_chance_level_is_named_not_drawn():
    # Spearman 0.7..0.8 (span 0.1): 0 is more than one span below -> left off the axis, named as further left
    axis = fit_axis([0.7, 0.8], 0.0)
    assert (round(axis.low, 9), round(axis.high, 9), axis.chance_side) == (0.68, 0.82, "left")
    assert axis.chance_text == "chance 0 (further left)"


def test_bounded_statistics_stay_within_minus_one_and_one():
    # 0.95..1.0 padded to 1.0025 would need a 1.01 tick: the axis stops at 1; chance 0.5 is > 1 span away
    axis = fit_axis([0.95, 1.0], 0.5)
    assert axis.high == pytest.approx(1.0) and axis.chance_side == "left"


@pytest.mark.parametrize("span, step", [(1.0, 0.2), (0.06, 0.01), (0.0616, 0.02), (0.143, 0.025), (7.0, 2.0)])
def test_nice_step(span, step):
    assert nice_step(span) == pytest.approx(step)
