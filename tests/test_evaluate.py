"""Tests of metaeval.stats.evaluate: hand-counted synthetic judgments and real WMT24 ESA data."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from metaeval.corpora.model import Judgments
from metaeval.errors import UsageError
from metaeval.stats.evaluate import evaluate, RESULT_COLUMNS
from metaeval.stats.paired import compare
from metaeval.scoretable import ConfigScores

SHARED = Path(os.environ.get("METAEVAL_SHARED", Path(__file__).resolve().parents[1] / ".." / "shared"))
WMT24_ZH = SHARED / "data" / "wmt24-esa" / "en-zh"


def config(seg: np.ndarray, systems: list[str], name: str = "toy", segmenter: str = "char", **kw) -> ConfigScores:
    seg = np.asarray(seg, float)
    seg_ids = [str(i + 1) for i in range(seg.shape[1])]
    return ConfigScores(name, segmenter, f"{name}|{segmenter}", systems, seg_ids, seg, seg.mean(1), **kw)


def judgments(rows: list[tuple], system_scores: pd.DataFrame | None = None) -> Judgments:
    table = pd.DataFrame(rows, columns=["seg_id", "system", "judge", "kind", "value"])
    return Judgments(table, system_scores)


# Three scored systems on two segments, plus a judged human translation that is not scored.
#   adequacy  s1: A=5 B=3 C=3 H=4   s2: A=2 B=4 C=1 H=5
#   metric    s1: A=.9 B=.5 C=.1    s2: A=.3 B=.6 C=.3
#   s1: A-B concordant, A-C concordant, B-C human tie
#   s2: A-B (B better for both) concordant, A-C metric tie, B-C concordant
#   -> C=4, D=0, metric ties T=1, human ties H=1
SYSTEMS = ["A", "B", "C"]
METRIC = np.array([[0.9, 0.3], [0.5, 0.6], [0.1, 0.3]])
ADEQUACY = {("1", "A"): 5, ("1", "B"): 3, ("1", "C"): 3, ("1", "H"): 4, ("2", "A"): 2, ("2", "B"): 4, ("2", "C"): 1, ("2", "H"): 5}
# Ranks by one judge, consistent with adequacy: s1 A=1 B=2 C=2; s2 B=1 A=2 C=3.
RANKS = {("1", "A"): 1, ("1", "B"): 2, ("1", "C"): 2, ("2", "A"): 2, ("2", "B"): 1, ("2", "C"): 3}


def small_judgments() -> Judgments:
    rows = [(seg, sys, f"j{seg}{sys}", "adequacy", v) for (seg, sys), v in ADEQUACY.items()]
    rows += [(seg, sys, "r1", "rank", v) for (seg, sys), v in RANKS.items()]
    given = pd.DataFrame({"da_z": [0.1, 0.3, -0.2, 0.5]}, index=pd.Index(["A", "B", "C", "H"], name="system"))
    return judgments(rows, given)


def pick(table: pd.DataFrame, **keys: str) -> pd.Series:
    rows = table
    for k, v in keys.items():
        rows = rows[rows[k] == v]
    assert len(rows) == 1, (keys, len(rows))
    return rows.iloc[0]


@pytest.mark.parametrize(("policy", "value", "n"), [("exclude", 4 / 4, 4), ("discordant", 4 / 5, 5), ("half", 4.5 / 5, 5)])
def test_hand_counted_consistency(policy: str, value: float, n: int) -> None:
    table = evaluate([config(METRIC, SYSTEMS)], small_judgments(), ["adequacy", "rank"], tie_policy=policy, n_bootstrap=50)
    for kind in ("adequacy", "rank"):  # ranks (lower better) give the same pairs as adequacy
        row = pick(table, judgment_kind=kind, statistic="consistency")
        assert row["value"] == pytest.approx(value) and row["n"] == n
        assert (row["concordant"], row["discordant"], row["metric_ties"], row["human_ties"]) == (4, 0, 1, 1)
        # One judge ranked all systems: pairs are formed per (segment, judge); adequacy cells
        # each have their own judge, so pairs are formed per segment.
        assert row["tie_policy"] == policy
        assert row["grouping"] == {"adequacy": "segment", "rank": "segment+judge"}[kind]
    like = pick(table, judgment_kind="adequacy", statistic="kendall_like")
    assert like["value"] == pytest.approx((2 * value - 1))  # (C-D)/(C+D) = 2*C/(C+D) - 1


def test_threshold_on_human_differences() -> None:
    # threshold 1.5 on adequacy: s1 A-B (diff 2) C, A-C (diff 2) C, B-C (tie) H;
    # s2 A-B (diff 2) C, A-C (diff 1 <= 1.5) H, B-C (diff 3) C -> C=4, D=0, T=0, H=2
    table = evaluate([config(METRIC, SYSTEMS)], small_judgments(), ["adequacy"], threshold=1.5, n_bootstrap=0)
    row = pick(table, statistic="consistency")
    assert (row["value"], row["n"], row["concordant"], row["discordant"], row["metric_ties"], row["human_ties"]) == (
        1.0, 4, 4, 0, 0, 2,
    )  # fmt: skip


def test_columns_levels_and_human_sources() -> None:
    table = evaluate([config(METRIC, SYSTEMS)], small_judgments(), n_bootstrap=20, dataset="toy")
    assert list(table.columns) == list(RESULT_COLUMNS)
    assert set(table["judgment_kind"]) == {"adequacy", "rank", "da_z"}
    # da_z exists only as given system scores: system level only, human H dropped with a note.
    da = table[table["judgment_kind"] == "da_z"]
    assert set(da["level"]) == {"sys"} and set(da["sys_human"]) == {"given"}
    assert all("dropped: H" in note for note in da["note"])
    spearman = pick(table, judgment_kind="da_z", statistic="spearman")
    assert spearman["value"] == pytest.approx(scipy.stats.spearmanr(METRIC.mean(1), [0.1, 0.3, -0.2]).statistic)
    assert spearman["n"] == 3 and spearman["grouping"] == "-"
    # Derived adequacy per system: A (5+2)/2 = 3.5, B (3+4)/2 = 3.5, C (3+1)/2 = 2.
    pearson = pick(table, judgment_kind="adequacy", level="sys", statistic="pearson")
    expected = scipy.stats.pearsonr(METRIC.mean(1), [3.5, 3.5, 2.0])
    assert pearson["value"] == pytest.approx(expected.statistic) and pearson["p_value"] == pytest.approx(expected.pvalue)
    assert pearson["sys_human"] == "derived" and "recomputed" in pearson["note"]
    # Derived mean ranks A 1.5, B 1.5, C 2.5 (lower better): the sign is flipped.
    rank = pick(table, judgment_kind="rank", level="sys", statistic="pearson")
    assert rank["value"] == pytest.approx(scipy.stats.pearsonr(METRIC.mean(1), [-1.5, -1.5, -2.5]).statistic)
    seg = pick(table, judgment_kind="adequacy", level="seg", statistic="pearson")
    human = [5, 2, 3, 4, 3, 1]  # A s1, A s2, B s1, ... (H is not scored)
    assert seg["value"] == pytest.approx(scipy.stats.pearsonr(METRIC.ravel(), human).statistic) and seg["n"] == 6
    assert math.isnan(seg["concordant"]) and seg["tie_policy"] == ""


def test_lower_is_better_metric_is_flipped() -> None:
    ter_like = config(1.0 - METRIC, SYSTEMS, higher_is_better=False)
    table = evaluate([ter_like], small_judgments(), ["adequacy"], n_bootstrap=0)
    assert pick(table, statistic="consistency")["value"] == 1.0
    assert pick(table, level="seg", statistic="pearson")["note"].startswith("no bootstrap;")


def test_one_scored_system_gives_undefined_rows_with_reasons() -> None:
    table = evaluate([config(METRIC[:1], ["A"])], small_judgments(), ["adequacy"], n_bootstrap=10)
    for statistic in ("consistency", "kendall_like"):
        row = pick(table, statistic=statistic)
        assert math.isnan(row["value"]) and row["note"].startswith("no pair of systems")
    for row in table[table["level"] == "sys"].itertuples():
        assert math.isnan(row.value) and "at least 2 systems, got 1" in row.note and math.isnan(row.ci_low)
    assert all("dropped: B, C, H" in note for note in table["note"])


def test_per_judge_groups_when_judges_ranked_several_systems() -> None:
    # Two judges rank A, B, C on segment 1 in opposite orders; the metric says A > B > C.
    # Per (segment, judge): judge 1 gives 3 concordant pairs, judge 2 gives 3 discordant -> 0.5.
    # Averaged over judges first, every system has mean rank 2: all pairs tie -> undefined.
    rows = [("1", s, "j1", "rank", r) for s, r in zip(SYSTEMS, (1, 2, 3))]
    rows += [("1", s, "j2", "rank", r) for s, r in zip(SYSTEMS, (3, 2, 1))]
    metric = config(np.array([[0.9], [0.5], [0.1]]), SYSTEMS)
    auto = pick(evaluate([metric], judgments(rows), n_bootstrap=0), statistic="consistency")
    assert (auto["value"], auto["n"], auto["grouping"]) == (0.5, 6, "segment+judge")
    averaged = pick(evaluate([metric], judgments(rows), n_bootstrap=0, pair_groups="segment"), statistic="consistency")
    assert math.isnan(averaged["value"]) and "tied by the human" in averaged["note"]
    assert averaged["human_ties"] == 3


def random_setup(seed: int = 0, n_seg: int = 120):  # noqa: ANN201
    rng = np.random.default_rng(seed)
    systems = [f"S{i}" for i in range(6)]
    human = rng.normal(size=(6, n_seg)) + np.arange(6)[:, None] * 0.2
    rows = [(str(j + 1), s, "j", "da", human[i, j]) for i, s in enumerate(systems) for j in range(n_seg)]
    good = config(human + 0.3 * rng.normal(size=human.shape), systems, "good")
    bad = config(human + 2.0 * rng.normal(size=human.shape), systems, "bad")
    return judgments(rows), good, bad, human


def test_deterministic_and_seeded() -> None:
    judg, good, bad, _ = random_setup()
    a = evaluate([good, bad], judg, seed=1, n_bootstrap=200)
    b = evaluate([good, bad], judg, seed=1, n_bootstrap=200)
    c = evaluate([good, bad], judg, seed=2, n_bootstrap=200)
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a["ci_low"], c["ci_low"])
    np.testing.assert_array_equal(a["value"], c["value"])
    assert ((a["ci_low"] <= a["value"]) & (a["value"] <= a["ci_high"])).all()


def test_compare_and_clusters() -> None:
    judg, good, bad, _ = random_setup()
    twin = config(good.seg_scores.copy(), good.systems, "twin")
    pairs = compare([bad, good, twin], judg, "da", "pearson", n_bootstrap=500)
    assert len(pairs) == 3
    first = pairs.iloc[0]
    assert {first["metric_a"], first["metric_b"]} == {"good", "twin"}
    assert first["p_value"] == 1.0 and first["delta"] == 0.0 and first["cluster_a"] == first["cluster_b"] == 1
    vs_bad = pairs[pairs["metric_b"] == "bad"]
    assert (vs_bad["p_value"] < 0.01).all() and (vs_bad["cluster_b"] == 2).all()
    perm = compare([bad, good], judg, "da", "consistency", method="permutation", n_bootstrap=100)
    assert perm.iloc[0]["metric_a"] == "good" and perm.iloc[0]["p_value"] == pytest.approx(1 / 101)
    table = evaluate([bad, good, twin], judg, statistics=["seg:pearson"], clusters=True, n_bootstrap=500)
    assert table.set_index("metric")["cluster"].to_dict() == {"good": "1", "twin": "1", "bad": "2"}
    assert table.set_index("metric")["rank"].to_dict() == {"good": 1, "twin": 1, "bad": 3}


def test_compare_reads_the_items_an_evaluation_stored_for_more_statistics(tmp_path, monkeypatch) -> None:
    import metaeval.stats.evaluate as evaluate_module

    judg, good, bad, _ = random_setup()
    plain = [compare([bad, good], judg, "da", s, level, n_bootstrap=200) for s, level in (("pearson", "seg"), ("spearman", "sys"))]
    evaluate([good, bad], judg, n_bootstrap=200, store=tmp_path)  # the default statistics
    calls: list[int] = []
    items_on = evaluate_module._items_on
    monkeypatch.setattr(evaluate_module, "_items_on", lambda *a, **k: calls.append(1) or items_on(*a, **k))
    for (statistic, level), before in zip((("pearson", "seg"), ("spearman", "sys")), plain):
        stored = compare([bad, good], judg, "da", statistic, level, n_bootstrap=200, store=tmp_path)
        pd.testing.assert_frame_equal(stored, before, check_exact=True)  # the same numbers, bit for bit
    assert calls == []  # read from the evaluation's entries
    compare([bad, good], judg, "da", "kendall_c", "sys", n_bootstrap=200, store=tmp_path)
    assert calls  # not among the default statistics: computed
    calls.clear()
    compare([bad, good], judg, "da", "pearson", n_bootstrap=200, seed=2, store=tmp_path)
    assert calls  # another seed: other resamples


def test_system_level_permutation_compare() -> None:
    judg, good, bad, human = random_setup()
    pairs = compare([bad, good], judg, "da", "pearson", "sys", method="permutation", n_bootstrap=50)
    row = pairs.iloc[0]
    derived = human.mean(1)  # one judgment per cell: the derived system score is the row mean
    assert row["value_a"] == pytest.approx(max(
        scipy.stats.pearsonr(c.sys_scores, derived).statistic for c in (good, bad)
    ))  # fmt: skip
    assert 1 / 51 <= row["p_value"] <= 1.0 and row["method"] == "permutation"


def test_usage_errors() -> None:
    judg, good, _, _ = random_setup()
    with pytest.raises(UsageError, match="tie policy"):
        evaluate([good], judg, tie_policy="drop")
    with pytest.raises(UsageError, match="statistic"):
        evaluate([good], judg, statistics=["sys:consistency"])
    with pytest.raises(UsageError, match="kind 'mqm'"):
        evaluate([good], judg, ["mqm"])
    shorter = config(good.seg_scores[:, :10], good.systems, "short")
    with pytest.raises(UsageError, match="different segments"):
        evaluate([good, shorter], judg)


# ------------------------------------------------------------------ real data


@pytest.fixture(scope="module")
def wmt24():  # noqa: ANN201
    if not WMT24_ZH.is_dir():
        pytest.skip(f"shared data folder not found: {WMT24_ZH} (set METAEVAL_SHARED)")
    from metaeval import corpora

    corpus, judg = corpora.read(WMT24_ZH)
    ref = corpus.references["refA"]
    systems = list(corpus.systems)
    # Toy metric: minus the relative length difference to the reference, in characters.
    seg = np.array([[-abs(len(h) - len(r)) / max(len(r), 1) for h, r in zip(corpus.systems[s], ref)] for s in systems])
    toy = ConfigScores("length", "char", "length|char", systems, list(corpus.seg_ids), seg, seg.mean(1))
    return corpus, judg, toy


def test_wmt24_esa_with_a_length_metric(wmt24) -> None:  # noqa: ANN001
    corpus, judg, toy = wmt24
    table = evaluate([toy], judg, ["esa"], statistics=["consistency", "pearson", "sys:spearman"], n_bootstrap=200)
    human = judg.segment_matrix("esa", toy.systems, toy.seg_ids)
    seg = pick(table, level="seg", statistic="pearson")
    expected = scipy.stats.pearsonr(toy.seg_scores.ravel(), human.ravel())
    assert seg["value"] == pytest.approx(expected.statistic) and seg["n"] == 12 * 634
    assert seg["ci_low"] < seg["value"] < seg["ci_high"]
    sys = pick(table, level="sys", statistic="spearman")
    given = judg.system_scores.loc[toy.systems, "esa"].to_numpy()
    assert sys["value"] == pytest.approx(scipy.stats.spearmanr(toy.sys_scores, given).statistic)
    assert sys["sys_human"] == "given" and sys["n"] == 12
    # The shared README: ranks derived from ESA within each segment give the same pairwise
    # consistency as ESA itself.
    ranks = pd.read_csv(WMT24_ZH / "iwslt_ranks.tsv", sep="\t", dtype={"seg_id": str})
    rank_judg = Judgments(ranks.rename(columns={"rank": "value"}).assign(kind="rank"))
    from_ranks = evaluate([toy], rank_judg, n_bootstrap=0, statistics=["consistency"])
    esa_row = pick(table, statistic="consistency")
    rank_row = pick(from_ranks, statistic="consistency")
    for column in ("value", "n", "concordant", "discordant", "metric_ties", "human_ties"):
        assert rank_row[column] == esa_row[column], column


def test_configurations_with_the_same_scores_are_evaluated_once(monkeypatch) -> None:
    """chrF ignores spaces, so its scores are the same under every segmenter: such twins (same
    metric, scores and statistics) are evaluated once, and each gets the numbers it would get alone."""
    import metaeval.stats.evaluate as evaluate_module

    judg, good, bad, _ = random_setup()
    twin = config(good.seg_scores.copy(), good.systems, "good", segmenter="jieba")
    evaluated: list[list[str]] = []
    items_on = evaluate_module._items_on
    monkeypatch.setattr(evaluate_module, "_items_on",
                        lambda configs, *a, **k: evaluated.append([c.config for c in configs]) or items_on(configs, *a, **k))
    table = evaluate([good, bad, twin], judg, n_bootstrap=200)
    assert evaluated == [["good|char", "bad|char"]]
    alone = evaluate([twin], judg, n_bootstrap=200)
    got = table[table["segmenter"] == "jieba"].drop(columns=["rank", "cluster"], errors="ignore").reset_index(drop=True)
    pd.testing.assert_frame_equal(got, alone.drop(columns=["rank", "cluster"], errors="ignore").reset_index(drop=True),
                                  check_exact=True)
    assert len(got) == len(table[table["segmenter"] == "char"]) / 2 > 0


def test_the_numbers_do_not_depend_on_the_threads_blas_may_use(wmt24) -> None:  # noqa: ANN001
    """Bootstrap samples are weighted sums that BLAS splits differently over more threads; the
    items are computed with one BLAS thread wherever they run (this process, a pool's worker, a
    Dask worker), so a machine's core count or --jobs cannot move a digit."""
    from threadpoolctl import threadpool_limits

    _, judg, toy = wmt24
    tables = []
    for threads in (1, 2):
        with threadpool_limits(limits=threads, user_api="blas"):
            tables.append(evaluate([toy], judg, ["esa"], statistics=["pearson", "sys:pearson", "sys:soft_pairwise_accuracy"],
                                   n_bootstrap=300))
    pd.testing.assert_frame_equal(tables[0], tables[1], check_exact=True)
