"""Chance levels and tie-free references on WMT24 English-Chinese (``../shared/data/wmt24-esa/en-zh``,
12 systems, 634 paragraphs, ESA and z-normalised ESA), each against what is worked out here pair by
pair from the data.

- With raw ESA, 6.0% of the pairs of systems within a paragraph are human ties, so the tie-free
  ``acc_eq`` (item) reference is (1 - 0.060)/2 = 0.470; with ``esa_z`` there are next to none: 0.50.
- BLEU at character level ties some pairs of its own; the permutation keeps them, so its chance
  level of acc23 by item (``acc_eq`` at epsilon 0) is the mean over paragraphs of
  ``t_m t_h + (1 - t_m)(1 - t_h) / 2``: a permuted pair is a metric tie with probability t_m.
- Li et al.'s consistency leaves ties out on both sides: its chance level is 1/2.
- The same seed gives the same bands; another seed other ones.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tests.golden_util import DATA

CORPUS = DATA / "wmt24-esa" / "en-zh"
STATISTICS = ("seg:acc_eq@item", "seg:kendall_acc23@item", "seg:consistency")


@pytest.fixture(scope="module")
def bleu_char():
    if not CORPUS.is_dir():
        pytest.skip(f"shared data folder not found: {CORPUS} (set METAEVAL_SHARED)")
    from metaeval import api

    corpus, judgments = api.read_corpus(CORPUS)
    scored = api.score(corpus, segmenters=["char"], metrics=["bleu"])
    configs = api.configs_from_table(scored)
    return configs, judgments


def _tie_share(values) -> float:
    pairs = list(itertools.combinations(values, 2))
    return sum(a == b for a, b in pairs) / len(pairs)


def _evaluate(configs, judgments, **options):
    from metaeval.stats.evaluate import evaluate

    return evaluate(configs, judgments, statistics=STATISTICS, n_bootstrap=0, **options)


def _row(table, kind, statistic):
    rows = table[(table.judgment_kind == kind) & (table.statistic == statistic)]
    assert len(rows) == 1
    return rows.iloc[0]


def test_tie_free_references_of_acc_eq_by_item(bleu_char):
    from metaeval.stats.evaluate import tie_free_references

    configs, judgments = bleu_char
    table = tie_free_references(configs, judgments, statistics=STATISTICS)
    got = {(r.judgment_kind, r.statistic): r.tie_free for r in table.itertuples()}
    systems, seg_ids = list(configs[0].systems), list(configs[0].seg_ids)
    for kind, expected in (("esa", 0.470), ("esa_z", 0.50)):
        human = judgments.segment_matrix(kind, systems, seg_ids)
        t = np.mean([_tie_share(human[:, j]) for j in range(human.shape[1])])
        assert got[(kind, "acc_eq")] == pytest.approx((1 - t) / 2, abs=1e-12)
        assert got[(kind, "acc_eq")] == pytest.approx(expected, abs=0.005), kind
        assert got[(kind, "consistency")] == 0.5
    human = judgments.segment_matrix("esa", systems, seg_ids)
    assert np.mean([_tie_share(human[:, j]) for j in range(human.shape[1])]) == pytest.approx(0.060, abs=0.0005)


def test_chance_levels_of_bleu_at_character_level_keep_its_own_ties(bleu_char):
    configs, judgments = bleu_char
    table = _evaluate(configs, judgments)
    metric = configs[0].seg_scores
    human = judgments.segment_matrix("esa", list(configs[0].systems), list(configs[0].seg_ids))
    t_m = np.array([_tie_share(metric[:, j]) for j in range(metric.shape[1])])
    t_h = np.array([_tie_share(human[:, j]) for j in range(human.shape[1])])
    expected = float(np.mean(t_m * t_h + (1 - t_m) * (1 - t_h) / 2))
    assert 0.02 < t_m.mean() < 0.06  # BLEU at character level ties about 4% of the pairs within a paragraph
    at_zero = _row(table, "esa", "kendall_acc23")
    assert at_zero.chance == pytest.approx(expected, abs=0.005)
    assert at_zero.chance_low < expected < at_zero.chance_high
    calibrated = _row(table, "esa", "acc_eq")  # tie calibration re-fitted on each permutation can only gain
    assert calibrated.chance >= at_zero.chance - 1e-12 and calibrated.chance < 0.470
    consistency = _row(table, "esa", "consistency")
    assert consistency.chance == pytest.approx(0.50, abs=0.01)
    assert consistency.chance_low < 0.5 < consistency.chance_high < consistency.value


def test_chance_bands_are_reproducible_from_their_seed(bleu_char):
    configs, judgments = bleu_char
    columns = ["chance", "chance_low", "chance_high"]
    first = _evaluate(configs, judgments, chance_permutations=50)
    again = _evaluate(configs, judgments, chance_permutations=50)
    other = _evaluate(configs, judgments, chance_permutations=50, chance_seed=7)
    assert first[columns].notna().all().all()
    assert first[columns].equals(again[columns])
    assert not first[columns].equals(other[columns])
    off = _evaluate(configs, judgments, chance_permutations=0)
    assert off[columns].isna().all().all() and off["value"].equals(first["value"])
