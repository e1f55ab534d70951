"""The statistics registry: every entry is complete and runs through the one dispatch at every
level and grouping it declares; its tie-free reference is the one worked out by hand; and the settings
of a request are checked once, naming the valid values."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pandas as pd
import pytest

from metaeval.corpora.model import Judgments
from metaeval.errors import UsageError
from metaeval.scoretable import ConfigScores
from metaeval.stats.evaluate import evaluate, tie_free_references
from metaeval.stats.registry import LEVELS, REGISTRY, STATISTICS
from metaeval.stats.settings import OPTIONS, Settings

FIELDS = {f.name for f in dataclasses.fields(Settings)}


@pytest.mark.parametrize("name", STATISTICS)
def test_every_entry_is_complete(name):
    entry = REGISTRY[name]
    assert entry.name == name and entry.levels and set(entry.compute) <= set(LEVELS)
    assert entry.description and entry.citation and "|" not in entry.description + entry.citation
    assert set(entry.options) <= FIELDS
    assert (entry.default_grouping in entry.groupings) if entry.groupings else not entry.groupings
    assert entry.higher_is_better


def test_every_option_names_a_settings_field_with_a_flag_and_a_key():
    assert {option.field for option in OPTIONS} == FIELDS
    assert len({option.flag for option in OPTIONS}) == len({option.key for option in OPTIONS}) == len(OPTIONS)


def _configs_and_judgments(seed: int = 0):
    rng = np.random.default_rng(seed)
    systems, seg_ids = [f"s{i}" for i in range(5)], [str(j) for j in range(1, 13)]
    human = rng.integers(0, 5, size=(5, 12)).astype(float) * 20  # many human ties
    # one judge per segment, who judged every system: pairwise consistency pairs them per (segment, judge)
    rows = [(seg, sys, f"j{j}", "esa", human[i, j]) for i, sys in enumerate(systems) for j, seg in enumerate(seg_ids)]
    judgments = Judgments(pd.DataFrame(rows, columns=["seg_id", "system", "judge", "kind", "value"]))
    configs = []
    for k in range(2):
        seg = human / 100 + rng.normal(scale=0.3, size=human.shape)
        configs.append(ConfigScores(metric=f"m{k}", segmenter="char", config=f"m{k}+char", systems=systems, seg_ids=seg_ids,
                                    seg_scores=seg, sys_scores=seg.mean(axis=1), higher_is_better=True))
    return configs, judgments, human


def test_every_statistic_at_every_level_and_grouping_runs_through_the_one_dispatch():
    configs, judgments, _ = _configs_and_judgments()
    specs = [f"{level}:{name}" + (f"@{g}" if level == "seg" else "") for name, entry in REGISTRY.items()
             for level in entry.levels for g in (entry.groupings if level == "seg" and entry.groupings else ("",))]
    specs = [s.rstrip("@") for s in specs]
    table = evaluate(configs, judgments, statistics=specs, n_bootstrap=20, permutations=30)
    keys = set(zip(table.level, table.statistic))
    assert keys == {(level, name) for name, entry in REGISTRY.items() for level in entry.levels}
    for row in table.itertuples():
        assert math.isnan(row.value) or -1.0 <= row.value <= 1.0, row
        assert math.isnan(row.value) or row.ci_low <= row.ci_high, row


def _tie_share(values: np.ndarray) -> float:
    """The share of pairs tied, pair by pair."""
    pairs = list(itertools.combinations([v for v in values if not np.isnan(v)], 2))
    return sum(a == b for a, b in pairs) / len(pairs)


def test_tie_free_references_are_the_analytic_ones_worked_out_by_hand():
    configs, judgments, human = _configs_and_judgments(1)
    stats = ["seg:consistency", "seg:pearson", "seg:acc_eq@item", "seg:acc_eq@none", "seg:tau_eq@sys", "sys:pairwise_accuracy"]
    table = tie_free_references(configs, judgments, settings=Settings(statistics=tuple(stats)))
    got = {(r.level, r.statistic, r.grouping): r.tie_free for r in table.itertuples()}
    per_segment = np.mean([_tie_share(human[:, j]) for j in range(human.shape[1])])
    per_system = np.mean([_tie_share(human[i]) for i in range(human.shape[0])])
    assert got[("seg", "consistency", "segment+judge")] == 0.5 and got[("seg", "pearson", "none")] == 0.0
    assert got[("seg", "acc_eq", "item")] == pytest.approx((1 - per_segment) / 2)
    assert got[("seg", "acc_eq", "none")] == pytest.approx((1 - _tie_share(human.ravel())) / 2)
    assert got[("seg", "tau_eq", "sys")] == pytest.approx(-per_system)
    assert got[("sys", "pairwise_accuracy", "-")] == pytest.approx((1 - _tie_share(human.mean(axis=1))) / 2)


def test_a_metric_scoring_at_random_meets_the_tie_free_reference_of_acc23():
    """kendall_acc23 by item of metrics that score at random averages (1 - t) / 2 (within the
    spread of 200 random metrics: its standard error here is about 0.001)."""
    configs, judgments, human = _configs_and_judgments(2)
    rng = np.random.default_rng(5)
    random_configs = [dataclasses.replace(configs[0], config=f"r{k}", metric=f"r{k}", seg_scores=rng.random(human.shape))
                      for k in range(200)]  # fmt: skip
    table = evaluate(random_configs, judgments, statistics=["seg:kendall_acc23@item"], n_bootstrap=0, chance_permutations=0)
    chance = tie_free_references(random_configs, judgments, statistics=("seg:kendall_acc23@item",)).tie_free.iloc[0]
    assert table.value.mean() == pytest.approx(chance, abs=0.005)
    assert chance < 0.45  # a third of these human pairs are ties: well below 0.5


@pytest.mark.parametrize("options, fragment", [
    ({"statistics": ["seg:acc_eqq"]}, "unknown statistic 'seg:acc_eqq'; known: seg:consistency"),
    ({"statistics": ["seg:consistency@item"]}, "takes no grouping 'item'"),
    ({"groupings": ["itme"]}, "unknown grouping 'itme'; known: none, item, sys"),
    ({"average": "mean"}, "unknown averaging 'mean'; known: macro, micro"),
    ({"tie_policy": "drop"}, "unknown tie policy 'drop'; known: exclude, discordant, half"),
    ({"n_bootstrap": 1}, "at least 2 resamples"),
    ({"ci": 1.5}, "ci must be in (0, 1)"),
    ({"permutation_seed": -1}, "permutation_seed must be a non-negative integer"),
    ({"frobnicate": 1}, "unknown statistics option 'frobnicate'"),
    ({"pair_groups": "judges"}, "unknown pair grouping 'judges'; known: auto,"),
    ({"permutations": 0}, "permutations must be a positive integer, got 0"),
    ({"threshold": -0.5}, "threshold"),
])  # fmt: skip
def test_a_bad_setting_is_one_usage_error_naming_the_valid_values(options, fragment):
    with pytest.raises(UsageError, match=None) as caught:
        Settings.build(**options)
    assert fragment in str(caught.value) and "\n" not in str(caught.value)


def test_a_threshold_below_one_is_a_threshold():
    """Any non-negative human-score difference is a valid threshold (judgments on a 0-1 scale)."""
    assert Settings.build(threshold=0.5).threshold == 0.5 and Settings.build(threshold=0).threshold == 0


@pytest.mark.parametrize("argv, fragment", [
    (["--statistic", "seg:acc_eqq"], "unknown statistic 'seg:acc_eqq'; known: seg:consistency"),
    (["--grouping", "itme"], "unknown grouping 'itme'; known: none, item, sys"),
])  # fmt: skip
def test_a_misspelt_name_fails_before_the_corpus_is_read(tmp_path, capsys, argv, fragment):
    from metaeval.cli import main

    missing = tmp_path / "no-such-corpus"  # never read: the names fail first
    assert main(["run", str(missing), *argv, "-q"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and fragment in err[0] and "no-such-corpus" not in err[0]


def _every_statistic() -> list[str]:
    specs = [f"{level}:{name}" + (f"@{g}" if level == "seg" and g else "") for name, entry in REGISTRY.items()
             for level in entry.levels for g in (entry.groupings if level == "seg" and entry.groupings else ("",))]  # fmt: skip
    return specs


def test_every_statistic_has_its_interval_at_the_level_asked_for():
    """Same resamples, two levels: wherever a value is defined it has both intervals, the 50%
    one inside the 95% one, and narrower wherever the 95% one has a width."""
    configs, judgments, _ = _configs_and_judgments(3)
    wide, narrow = (evaluate(configs, judgments, statistics=_every_statistic(), n_bootstrap=200, seed=4, permutations=30,
                             chance_permutations=0, ci=ci) for ci in (0.95, 0.5))  # fmt: skip
    assert (wide.value.equals(narrow.value)) and len(wide) > 20
    for w, n in zip(wide.itertuples(), narrow.itertuples()):
        if math.isnan(w.value):
            continue
        assert np.isfinite([w.ci_low, w.ci_high, n.ci_low, n.ci_high]).all(), (w.level, w.statistic, w.grouping)
        assert w.ci_low <= n.ci_low <= n.ci_high <= w.ci_high, (w.level, w.statistic, w.grouping)
        if w.ci_high > w.ci_low:
            assert n.ci_high - n.ci_low < w.ci_high - w.ci_low, (w.level, w.statistic, w.grouping)


def test_every_statistic_reads_the_direction_of_the_metric_and_of_the_humans():
    """Negated metric scores that say lower is better, and negated judgments of a kind that says
    lower is better (MQM), give every statistic the same value and interval."""
    configs, judgments, _ = _configs_and_judgments(4)
    flipped = [dataclasses.replace(c, seg_scores=-c.seg_scores, sys_scores=-c.sys_scores, higher_is_better=False) for c in configs]
    table = judgments.table.assign(kind="mqm", value=-judgments.table["value"])
    lower = Judgments(table)
    assert lower.direction("mqm") == -1 and judgments.direction("esa") == 1
    options = {"statistics": _every_statistic(), "n_bootstrap": 50, "seed": 2, "permutations": 30, "chance_permutations": 0}
    base = evaluate(configs, judgments, **options)
    both = evaluate(flipped, lower, **options)
    for column in ("value", "ci_low", "ci_high"):
        assert np.allclose(base[column], both[column], rtol=1e-12, atol=1e-12, equal_nan=True), column
