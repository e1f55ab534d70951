"""Chance levels: the statistic of a metric whose scores are permuted within the statistic's own
grouping. The permutations are permutations of the valid cells of each group; the generic
estimate equals permutations applied by hand; every faster function of a registry entry equals
the generic estimate; the mean of acc23 by segment meets its closed form; bands are reproducible
from the seed; and a constant metric gets what its definition gives, which is its chance level."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pandas as pd
import pytest

from metaeval.corpora.model import Judgments
from metaeval.scoretable import ConfigScores
from metaeval.stats import chance
from metaeval.stats.evaluate import case_of, evaluate, item_keys
from metaeval.stats.human import human_side
from metaeval.stats.registry import REGISTRY
from metaeval.stats.settings import Settings


def _data(seed: int = 0, gaps: bool = True, n_sys: int = 5, n_seg: int = 14, judges: int = 1):
    """Configurations and judgments with human ties, metric ties and (``gaps``) unjudged cells."""
    rng = np.random.default_rng(seed)
    systems, seg_ids = [f"s{i}" for i in range(n_sys)], [str(j) for j in range(1, n_seg + 1)]
    human = rng.integers(0, 5, size=(n_sys, n_seg)).astype(float) * 20
    rows = []
    for i, sys in enumerate(systems):
        for j, seg in enumerate(seg_ids):
            if gaps and (i + 2 * j) % 11 == 0:
                continue
            for k in range(judges):  # a second judge ranks the odd systems only
                if k == 0 or i % 2:
                    rows.append((seg, sys, f"j{k}", "esa", human[i, j] + 10 * k * (j % 3)))
    judgments = Judgments(pd.DataFrame(rows, columns=["seg_id", "system", "judge", "kind", "value"]))
    configs = []
    for k, noise in enumerate((0.3, 1.0)):
        seg = np.round(human / 100 + rng.normal(scale=noise, size=human.shape), 1)  # rounded: the metric ties too
        configs.append(ConfigScores(metric=f"m{k}", segmenter="char", config=f"m{k}+char", systems=systems, seg_ids=seg_ids,
                                    seg_scores=seg, sys_scores=np.nanmean(seg, axis=1), higher_is_better=True))
    return configs, judgments


def _every_statistic() -> list[str]:
    specs = []
    for name, entry in REGISTRY.items():
        for level in entry.levels:
            groupings = entry.groupings if level == "seg" and entry.groupings else ("",)
            specs += [f"{level}:{name}" + (f"@{g}" if g else "") for g in groupings]
    return specs


def _cases(configs, judgments, settings):
    seg_ids = list(configs[0].seg_ids)
    human = human_side(judgments, "esa", list(configs[0].systems), seg_ids, settings.pair_groups, None)
    for config in configs:
        for level, entry, grouping, label in item_keys(human, settings):
            case = case_of(entry, level, grouping, human, settings, config)
            yield entry, case, entry.compute[level](case)


def test_permutations_move_valid_cells_within_their_row_and_keep_the_others():
    valid = np.array([[True, False, True, True, False], [False, False, False, False, False], [True, True, True, True, True]])
    orders = chance.permutation_orders(valid, 300, np.random.default_rng(3))
    for p in range(len(orders)):
        for g in range(valid.shape[0]):
            row = orders[p, g]
            assert sorted(row[valid[g]]) == list(np.flatnonzero(valid[g]))
            assert list(row[~valid[g]]) == list(np.flatnonzero(~valid[g]))
    # uniform: each valid cell takes each valid position about equally often
    counts = np.zeros((5, 5))
    for row in orders[:, 2]:
        counts[np.arange(5), row] += 1
    assert counts.min() > 300 / 5 * 0.55 and counts.max() < 300 / 5 * 1.45
    again = chance.permutation_orders(valid, 300, np.random.default_rng(3))
    assert np.array_equal(orders, again)


def _consistency_by_hand(metric: np.ndarray, human: np.ndarray) -> float:
    """Li et al.'s consistency (metric ties left out) of ``[n_sys, n_seg]``, pair by pair."""
    con = dis = 0
    for j in range(human.shape[1]):
        for a, b in itertools.combinations(range(human.shape[0]), 2):
            if np.isnan(human[a, j]) or np.isnan(human[b, j]) or np.isnan(metric[a, j]) or np.isnan(metric[b, j]):
                continue
            dh, dm = human[a, j] - human[b, j], metric[a, j] - metric[b, j]
            if dh == 0 or dm == 0:
                continue
            con += (dh > 0) == (dm > 0)
            dis += (dh > 0) != (dm > 0)
    return con / (con + dis)


def test_the_generic_estimate_applies_each_permutation_within_the_segments():
    configs, judgments = _data(1)
    settings = Settings(statistics=("seg:consistency",), pair_groups="segment", chance_permutations=40)
    entry, case, result = next(_cases(configs, judgments, settings))
    found = chance.values(entry, case, 40, settings.chance_seed, fast=False)
    layout = chance.layout_of(entry, case)
    orders = chance.orders_for(case.human, layout, 40, settings.chance_seed)
    metric, human = case.seg_scores, case.human.seg
    for p in range(40):
        moved = metric.copy()
        for g, j in enumerate(case.human.group_segments):  # group g (segment j): system i takes the score of system orders[p, g, i]
            moved[:, j] = metric[orders[p, g], j]
        assert found[p] == pytest.approx(_consistency_by_hand(moved, human), abs=1e-12)
    band = chance.chance_band(entry, case, result)
    assert band.value == pytest.approx(found.mean()) and band.low <= band.value <= band.high


SETTINGS = [
    {},
    {"average": "micro", "undefined": "zero", "tie_policy": "discordant", "threshold": 20.0},
    {"tie_policy": "half", "pair_groups": "judge"},
]


@pytest.mark.parametrize("options", SETTINGS)
@pytest.mark.parametrize("gaps", [False, True])
def test_every_faster_function_equals_the_generic_estimate(options, gaps):
    configs, judgments = _data(2, gaps=gaps, judges=2 if options.get("pair_groups") == "judge" else 1)
    settings = Settings(statistics=tuple(_every_statistic()), chance_permutations=25, permutations=50, **options)
    checked = set()
    for entry, case, result in _cases(configs, judgments, settings):
        if entry.chance is None or not result.defined:
            continue
        extra = entry.chance_options(case, result) if entry.chance_options is not None else {}
        case = dataclasses.replace(case, weights=None, options={**case.options, **extra})
        layout = chance.layout_of(entry, case)
        orders = chance.orders_for(case.human, layout, 25, 7)
        fast = entry.chance(case, layout, orders)
        if fast is None:
            continue
        slow = chance.generic(entry, case, layout, orders)
        np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-12, err_msg=f"{case.level}:{entry.name}@{case.grouping}")
        checked.add((case.level, entry.name, case.grouping))
    expected = {("seg", "consistency", ""), ("seg", "kendall_like", ""), ("seg", "pearson", "none"), ("seg", "pearson", "item"),
                ("seg", "spearman", "sys"), ("seg", "kendall", "item"), ("seg", "kendall_c", "item"), ("seg", "acc_eq", "item"),
                ("seg", "tau_eq", "item"), ("seg", "kendall_acc23", "item"), ("seg", "kendall", "none"), ("seg", "kendall_b", "sys"),
                ("seg", "kendall_c", "none"), ("seg", "kendall_23", "sys"), ("seg", "acc_eq", "none"), ("seg", "tau_eq", "sys")}
    if not gaps:
        expected.add(("sys", "soft_pairwise_accuracy", ""))
    assert expected <= checked, expected - checked


@pytest.mark.parametrize("eps", [0.0, 0.1, 0.25])
def test_pooled_tallies_of_permutations_equal_the_tallies_of_the_permuted_scores(eps):
    from metaeval.stats.permuted import _pooled_tallies
    from metaeval.stats.tallies import tallies

    rng = np.random.default_rng(4)
    x = np.round(rng.normal(size=40), 1)  # ties and near ties
    y = rng.integers(0, 6, size=40).astype(float)
    landing = np.array([rng.permutation(40) for _ in range(30)])
    got = _pooled_tallies(x, y, landing, eps)
    for p in range(30):
        moved = np.empty(40)
        moved[landing[p]] = x  # the score of cell a lands on cell landing[p, a]
        expected = tallies(moved[None], y[None], eps)[0]
        np.testing.assert_array_equal(got[p], expected)


def test_tied_pairs_counts_equal_codes_per_row_whatever_their_range():
    """Counted by hand on one row, then against pair-by-pair counting on rows whose codes run up to
    10^12 (a table of every possible code would not fit in memory)."""
    from metaeval.stats.permuted import _tied_pairs

    # runs 3, 2, 1: 3 + 1 + 0 pairs
    np.testing.assert_array_equal(_tied_pairs(np.array([[7, 2, 7, 5, 7, 2]])), [4])
    assert _tied_pairs(np.zeros((3, 0), dtype=np.int64)).tolist() == [0, 0, 0]
    rng = np.random.default_rng(11)
    for top in (1, 3, 50, 10**12):
        codes = rng.integers(0, top, size=(5, 30)) if top < 100 else rng.choice(rng.integers(0, top, size=12), size=(5, 30))
        by_pairs = [sum(int(row[a] == row[b]) for a, b in itertools.combinations(range(30), 2)) for row in codes]
        np.testing.assert_array_equal(_tied_pairs(codes), by_pairs)


def _tie_share(values: np.ndarray) -> float:
    pairs = list(itertools.combinations(values, 2))
    return sum(a == b for a, b in pairs) / len(pairs)


def test_the_chance_level_of_acc23_by_segment_is_its_closed_form():
    """A permuted pair is a metric tie with probability t_m and a human tie with probability t_h,
    independently: it is correct with probability t_m t_h + (1 - t_m)(1 - t_h) / 2. 2000
    permutations: the standard error of the mean is below 0.001 here."""
    configs, judgments = _data(3, gaps=False, n_sys=6, n_seg=30)
    configs = [dataclasses.replace(c, seg_scores=np.round(c.seg_scores * 2) / 2) for c in configs]  # coarser: more metric ties
    table = evaluate(configs, judgments, statistics=("seg:kendall_acc23@item",), n_bootstrap=0, chance_permutations=2000)
    human = judgments.segment_matrix("esa", list(configs[0].systems), list(configs[0].seg_ids))
    t_h = np.array([_tie_share(human[:, j]) for j in range(human.shape[1])])
    for config in configs:
        t_m = np.array([_tie_share(config.seg_scores[:, j]) for j in range(human.shape[1])])
        assert t_m.mean() > 0.1  # the rounded metric ties pairs of its own
        expected = float(np.mean(t_m * t_h + (1 - t_m) * (1 - t_h) / 2))
        row = table[table.metric == config.metric].iloc[0]
        assert row.chance == pytest.approx(expected, abs=0.004), config.metric
        assert row.chance_low < expected < row.chance_high


def test_a_constant_metric_gets_what_the_definitions_give_which_is_its_chance_level():
    """A constant metric ties every pair: acc23 and acc_eq count the pairs the humans tie as correct
    (mt-metrics-eval's acc23), so they are the share t of human-tied pairs and the taus 2 t - 1;
    pairwise accuracy of systems likewise. Correlations, tau-b/c and consistency (ties left out)
    are undefined. Permuting constant scores changes nothing: chance = value, a band of width 0."""
    configs, judgments = _data(4, gaps=False, n_sys=6, n_seg=12)
    systems, seg_ids = configs[0].systems, configs[0].seg_ids
    flat = np.full((len(systems), len(seg_ids)), 0.5)
    constant = ConfigScores(metric="flat", segmenter="char", config="flat+char", systems=systems, seg_ids=seg_ids,
                            seg_scores=flat, sys_scores=flat.mean(axis=1), higher_is_better=True)  # fmt: skip
    stats = ("seg:acc_eq@item", "seg:kendall_acc23@item", "seg:tau_eq@item", "seg:kendall_23@none", "seg:kendall_b@item",
             "seg:pearson@none", "seg:consistency", "sys:pairwise_accuracy")  # fmt: skip
    table = evaluate([constant], judgments, statistics=stats, n_bootstrap=0, chance_permutations=20)
    got = {r.statistic: r for r in table.itertuples()}
    human = judgments.segment_matrix("esa", list(systems), list(seg_ids))
    t_item = np.mean([_tie_share(human[:, j]) for j in range(human.shape[1])])
    t_none = _tie_share(human.ravel())
    assert got["acc_eq"].value == pytest.approx(t_item) and got["kendall_acc23"].value == pytest.approx(t_item)
    assert got["tau_eq"].value == pytest.approx(2 * t_item - 1) and got["kendall_23"].value == pytest.approx(2 * t_none - 1)
    assert got["pairwise_accuracy"].value == pytest.approx(_tie_share(human.mean(axis=1)))
    for name in ("acc_eq", "kendall_acc23", "tau_eq", "kendall_23"):
        r = got[name]
        assert r.chance == pytest.approx(r.value) and r.chance_low == pytest.approx(r.value) == pytest.approx(r.chance_high), name
    for name in ("kendall_b", "pearson", "consistency"):
        assert math.isnan(got[name].value) and math.isnan(got[name].chance) and got[name].note, name


def test_the_same_seed_gives_the_same_bands_at_every_statistic():
    configs, judgments = _data(5)
    options = dict(statistics=tuple(_every_statistic()), n_bootstrap=0, chance_permutations=15, permutations=40)
    first, again = evaluate(configs, judgments, **options), evaluate(configs, judgments, **options)
    other = evaluate(configs, judgments, chance_seed=99, **options)
    columns = ["chance", "chance_low", "chance_high"]
    assert first[columns].notna().any(axis=1).sum() >= len(first) * 0.8
    pd.testing.assert_frame_equal(first[columns], again[columns])
    assert not first[columns].equals(other[columns])


def test_at_or_below_chance_of_single_numbers_is_a_bool():
    from metaeval.stats.chance import at_or_below

    assert at_or_below(0.5, 0.4, 0.45) is True  # the interval reaches into the band
    assert at_or_below(0.5, 0.46, 0.45) is False  # above the band
    assert at_or_below(0.45, float("nan"), 0.45) is True  # no interval: the value itself
    assert at_or_below(0.5, 0.4, float("nan")) is False  # no band known


def test_an_unknown_comparison_method_names_the_known_ones():
    from metaeval.errors import UsageError
    from metaeval.stats.paired import compare

    with pytest.raises(UsageError, match=r"^unknown comparison method 'magic'; known: bootstrap, permutation, williams, pairs-permutation$"):
        compare([], None, "esa", method="magic")


@pytest.mark.parametrize("statistic", ["pearson", "spearman"])
def test_chance_of_a_correlation_by_segment_is_the_same_for_humans_rescaled_per_segment_to_1e300_and_1e_300(statistic):
    """Within a segment, Pearson (and Spearman) do not see a positive scale of the human scores,
    so scaling the odd segments by 1e300 and the even ones by 1e-300 leaves every permuted value
    unchanged: each segment is brought to unit scale on its own."""
    configs, judgments = _data(3)
    settings = Settings(statistics=(f"seg:{statistic}@item",), chance_permutations=25)
    table = judgments.table.copy()
    table["value"] = table["value"] * np.where(table["seg_id"].astype(int) % 2 == 1, 1e300, 1e-300)
    bands = []
    for judged in (judgments, Judgments(table)):
        [(entry, case, result)] = list(_cases(configs[:1], judged, settings))
        layout = chance.layout_of(entry, case)
        orders = chance.orders_for(case.human, layout, 25, 7)
        bands.append(entry.chance(case, layout, orders))
    np.testing.assert_allclose(bands[1], bands[0], rtol=1e-12, atol=0)


def test_a_permuted_pearson_stays_within_minus_one_where_rounding_would_pass_it():
    """Metric and human scores on one line, falling: Pearson is -1, and these four systems'
    sums round it to -1 - 1 ulp; the permuted value (here the order that keeps every score in
    place) is kept within [-1, 1], as the statistic's own value is."""
    metric, human = [0.27, 0.04, 0.02, 0.81], [0.973, 0.996, 0.998, 0.919]
    systems = [f"s{i}" for i in range(4)]
    judgments = Judgments(pd.DataFrame([("1", s, "", "esa", v) for s, v in zip(systems, human)],
                                       columns=["seg_id", "system", "judge", "kind", "value"]))  # fmt: skip
    seg = np.array(metric)[:, None]
    config = ConfigScores(metric="m", segmenter="char", config="m+char", systems=systems, seg_ids=["1"], seg_scores=seg,
                          sys_scores=seg[:, 0], higher_is_better=True)  # fmt: skip
    [(entry, case, result)] = list(_cases([config], judgments, Settings(statistics=("seg:pearson@item",), chance_permutations=25)))
    kept_in_place = np.arange(4)[None, None, :]
    assert entry.chance(case, chance.layout_of(entry, case), kept_in_place).tolist() == [-1.0]
