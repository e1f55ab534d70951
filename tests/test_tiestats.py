"""Tie-aware statistics (WMT23-24): mt-metrics-eval's golden values through ``metaeval
correlate``, hand-computed small cases, and independent oracles (scipy, an O(n^2) search)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from metaeval.cli import main
from metaeval.stats.resampling import bootstrap_indices, resample_weights
from metaeval.stats.significance import williams_test
from metaeval.stats.syspairs import pairwise_accuracy, soft_pairwise_accuracy, system_kendall_c
from metaeval.stats.kendall import tie_statistic
from tests.golden_util import GOLDEN

MTME = GOLDEN / "mtme-stats" / "en-zh"
GOLDEN_ROWS = 46


def _cli_table(capsys, *args: str) -> pd.DataFrame:
    code = main(list(args))
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = [line for line in out.splitlines() if not line.startswith("#")]
    return pd.read_csv(pd.io.common.StringIO("\n".join(lines)), sep="\t", keep_default_na=False)


def test_every_mtme_golden_row_through_correlate(capsys, tmp_path) -> None:
    golden = pd.read_csv(MTME / "golden.tsv", sep="\t", keep_default_na=False)
    assert len(golden) == GOLDEN_ROWS
    common = ["--scores", str(MTME / "scores.tsv"), "--judgments", str(MTME / "judgments.tsv"),
              "--human-sys", str(MTME / "human_sys.tsv"), "--bootstrap", "0", "--format", "tsv"]  # fmt: skip
    stats = sorted({f"{r.level}:{r.statistic}" for r in golden.itertuples() if r.statistic != "williams_p"})
    ours = _cli_table(capsys, "correlate", *common, "--statistic", ",".join(stats), "--grouping", "none", "--grouping", "item")
    comparisons = tmp_path / "williams.tsv"
    _cli_table(capsys, "correlate", *common, "--statistic", "seg:pearson", "--compare", "williams", "--comparisons", str(comparisons))
    tests = pd.read_csv(comparisons, sep="\t")
    checked, worst = 0, 0.0
    for row in golden.itertuples():
        if row.statistic == "williams_p":
            a, b = row.config.split(" vs ")
            hit = tests[(tests.config_a == a) & (tests.config_b == b) & (tests.statistic == "pearson")]
            assert len(hit) == 1
            r1, r2 = (float(part.split("=")[1]) for part in row.extra.split())
            assert hit.value_a.iloc[0] == pytest.approx(r1, abs=1e-12) and hit.value_b.iloc[0] == pytest.approx(r2, abs=1e-12)
            value = float(hit.p_value.iloc[0])
        else:
            hit = ours[(ours.config == row.config) & (ours.level == row.level) & (ours.statistic == row.statistic)
                       & (ours.grouping == row.grouping)]  # fmt: skip
            assert len(hit) == 1, row
            value = float(hit.value.iloc[0])
            if row.statistic in ("acc_eq", "tau_eq"):
                assert float(hit.epsilon.iloc[0]) == pytest.approx(float(row.extra), abs=1e-15)
        worst = max(worst, abs(value - float(row.value)) if row.tolerance == "1e-09" else 0.0)
        assert value == pytest.approx(float(row.value), abs=float(row.tolerance)), row
        checked += 1
    assert checked == GOLDEN_ROWS
    assert worst < 1e-12


# --------------------------------------------------------------------------- hand-computed


def one_item(human: list[float], metric: list[float]) -> tuple[np.ndarray, np.ndarray]:
    """A single segment judged for len(human) systems: matrices [n_sys, 1]."""
    return np.array(metric, float)[:, None], np.array(human, float)[:, None]


def test_hand_counted_variants_with_a_pair_tied_on_both_sides() -> None:
    # pairs: A-B con, A-C con, B-C tied by both -> C=2, D=0, Tb=1, N=3
    m, h = one_item([3, 2, 2], [0.9, 0.5, 0.5])
    got = {s: tie_statistic(m, h, s).value for s in ("kendall_b", "kendall_c", "kendall_23", "kendall_acc23")}
    assert got["kendall_acc23"] == pytest.approx(3 / 3)
    assert got["kendall_23"] == pytest.approx((2 + 1 - 0) / 3)
    assert got["kendall_b"] == pytest.approx(2 / math.sqrt(2) / math.sqrt(2))
    assert got["kendall_c"] == pytest.approx(2 * 2 / (9 * (2 - 1) / 2))


def test_tie_calibration_picks_the_threshold_that_adds_a_correct_tie() -> None:
    # human 1,1,2,3; metric .50,.52,.60,.90: one human tie (metric diff .02), five concordant
    # pairs (diffs .10 .40 .08 .38 .30). eps=0: 5/6; eps=.02: 6/6; eps=.08: 5/6 ...
    m, h = one_item([1, 1, 2, 3], [0.50, 0.52, 0.60, 0.90])
    acc = tie_statistic(m, h, "acc_eq")
    tau = tie_statistic(m, h, "tau_eq")
    assert acc.value == pytest.approx(1.0) and tau.value == pytest.approx(1.0)
    assert acc.epsilon == pytest.approx(0.02) and tau.epsilon == acc.epsilon
    assert tie_statistic(m, h, "kendall_acc23").value == pytest.approx(5 / 6)


def test_equal_maxima_keep_the_smallest_threshold() -> None:
    # human 1,1,2; metric 0,.1,.1: eps=0 -> 1 correct of 3; eps=.1 gains the human tie and
    # loses the concordant pair -> still 1 of 3: epsilon stays 0
    m, h = one_item([1, 1, 2], [0.0, 0.1, 0.1])
    acc = tie_statistic(m, h, "acc_eq")
    assert acc.value == pytest.approx(1 / 3) and acc.epsilon == 0.0


def test_all_ties_and_constant_scores_are_undefined_with_a_reason() -> None:
    m, h = one_item([2, 2, 2], [0.1, 0.5, 0.9])
    for statistic in ("kendall_b", "kendall_acc23", "acc_eq"):  # acc_eq would reach 1 trivially
        r = tie_statistic(m, h, statistic)
        assert math.isnan(r.value) and "human scores tie in all 3 pairs" in r.undefined_reason
    m, h = one_item([1, 2, 3], [0.4, 0.4, 0.4])
    for statistic in ("kendall_b", "kendall_c"):  # tau-b and tau-c divide by the metric's untied pairs
        r = tie_statistic(m, h, statistic)
        assert math.isnan(r.value) and "metric scores tie in all 3 pairs" in r.undefined_reason
    # a constant metric gets what the tie-counting definitions give (mt-metrics-eval): every pair a metric tie,
    # none tied by the humans here, so acc23 = 0 of 3 and tau23 = (0 - 3) / 3
    for statistic, value in (("kendall_acc23", 0.0), ("acc_eq", 0.0), ("kendall_23", -1.0), ("tau_eq", -1.0)):
        assert tie_statistic(m, h, statistic).value == pytest.approx(value), statistic
    # one segment with all human ties among others is a defined group (mt-metrics-eval)
    metric = np.array([[0.1, 0.9], [0.5, 0.5], [0.9, 0.1]])
    human = np.array([[2.0, 3.0], [2.0, 2.0], [2.0, 1.0]])
    # segment 1: 3 human ties, metric differs -> 0/3; segment 2: A-B con, A-C con, B-C con -> 3/3
    assert tie_statistic(metric, human, "kendall_acc23", "item").value == pytest.approx(0.5)
    assert math.isnan(pairwise_accuracy(np.array([0.2, 0.3]), np.array([1.0, 1.0])).value)
    assert "constant human" in soft_pairwise_accuracy(np.array([[0.2, 0.3], [0.1, 0.4]]), np.ones((2, 2))).undefined_reason


def test_one_system_is_undefined_at_item_level_and_system_level() -> None:
    m, h = np.array([[0.3, 0.4]]), np.array([[1.0, 2.0]])
    r = tie_statistic(m, h, "acc_eq", "item")
    assert math.isnan(r.value) and "two judged items" in r.undefined_reason
    for fn in (pairwise_accuracy, system_kendall_c):
        out = fn(np.array([0.5]), np.array([1.0]))
        assert math.isnan(out.value) and "2 systems" in out.undefined_reason
    assert "2 systems" in soft_pairwise_accuracy(m, h).undefined_reason


def test_item_grouping_macro_micro_and_undefined_as_zero() -> None:
    # segment 1: 3 systems, kendall_b = 1; segment 2: 2 systems, discordant -> -1;
    # segment 3: 2 systems tied by the humans -> kendall_b undefined
    metric = np.array([[0.9, 0.1, 0.5], [0.5, 0.2, 0.7], [0.1, np.nan, np.nan]])
    human = np.array([[3.0, 2.0, 4.0], [2.0, 1.0, 4.0], [1.0, np.nan, np.nan]])
    macro = tie_statistic(metric, human, "kendall_b", "item")
    micro = tie_statistic(metric, human, "kendall_b", "item", average="micro")
    zero = tie_statistic(metric, human, "kendall_b", "item", undefined="zero")
    assert macro.value == pytest.approx((1 - 1) / 2) and macro.counts["skipped"] == 1
    assert micro.value == pytest.approx((3 * 1 + 2 * -1) / 5)
    assert zero.value == pytest.approx((1 - 1 + 0) / 3)


def test_system_level_hand_cases() -> None:
    human = np.array([1.0, 2.0, 3.0, 3.0])
    metric = np.array([0.1, 0.3, 0.2, 0.2])  # pairs: 12 ok, 13 ok, 14 ok, 23 wrong, 24 wrong, 34 tie/tie ok
    assert pairwise_accuracy(metric, human).value == pytest.approx(4 / 6)
    seg = np.array([[1.0, 2.0, 0.0], [3.0, 1.0, 2.0], [0.0, 0.0, 5.0]])
    assert soft_pairwise_accuracy(seg, seg, rng=np.random.default_rng(0)).value == 1.0


# --------------------------------------------------------------------------- oracles


def brute_force_acc_eq(metric: np.ndarray, human: np.ndarray) -> tuple[float, float]:
    """The definition itself: every candidate threshold, every pair, in Python."""
    pairs = [(abs(metric[i] - metric[j]), human[i] - human[j], metric[i] - metric[j])
             for i, j in itertools.combinations(range(len(metric)), 2)]  # fmt: skip
    best, best_eps = -1.0, 0.0
    for eps in sorted({0.0} | {p[0] for p in pairs}):
        correct = sum((dh == 0 and d <= eps) or (dh != 0 and d > eps and (dh > 0) == (dm > 0)) for d, dh, dm in pairs)
        if correct / len(pairs) > best:
            best, best_eps = correct / len(pairs), eps
    return best, best_eps


@pytest.mark.parametrize("seed", range(5))
def test_exact_search_equals_brute_force_and_scipy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    human = rng.integers(0, 4, size=(5, 8)).astype(float)
    metric = np.round(human + rng.normal(scale=1.5, size=human.shape), 1)
    value, eps = brute_force_acc_eq(metric.ravel(), human.ravel())
    ours = tie_statistic(metric, human, "acc_eq")
    assert ours.value == pytest.approx(value, abs=1e-12) and ours.epsilon == eps
    for variant in ("b", "c"):
        expected = scipy.stats.kendalltau(metric.ravel(), human.ravel(), variant=variant).statistic
        assert tie_statistic(metric, human, f"kendall_{variant}").value == pytest.approx(expected, abs=1e-12)


def test_bootstrap_with_unit_weights_reproduces_the_point_value() -> None:
    rng = np.random.default_rng(3)
    human = rng.integers(0, 5, size=(4, 10)).astype(float)
    metric = np.round(human + rng.normal(size=human.shape), 1)
    ones = np.ones((1, 10))
    for grouping in ("none", "item", "sys"):
        for statistic in ("kendall_b", "kendall_c", "kendall_23", "acc_eq", "tau_eq"):
            r = tie_statistic(metric, human, statistic, grouping, weights=ones)
            assert r.samples[0] == pytest.approx(r.value, abs=1e-12), (grouping, statistic)


def test_resampled_pooled_statistic_equals_the_statistic_of_the_resampled_data() -> None:
    # a resample drawing each segment once or not at all is just a subset: no copies
    rng = np.random.default_rng(5)
    human = rng.integers(0, 5, size=(4, 9)).astype(float)
    metric = np.round(human + rng.normal(size=human.shape), 1)
    weights = resample_weights(np.array([[0, 2, 3, 5, 8]]), 9)
    for statistic in ("kendall_b", "kendall_c", "kendall_acc23"):
        r = tie_statistic(metric, human, statistic, "none", weights=weights)
        subset = tie_statistic(metric[:, [0, 2, 3, 5, 8]], human[:, [0, 2, 3, 5, 8]], statistic)
        assert r.samples[0] == pytest.approx(subset.value, abs=1e-12), statistic


@pytest.mark.parametrize("scale", [1, 3, 100_000])
def test_resampled_pair_counts_are_the_float64_products_bit_for_bit(scale: int) -> None:
    from metaeval.stats.kendall import _product

    rng = np.random.default_rng(scale)
    n = 300
    weights = resample_weights(rng.integers(0, n, size=(50, n)), n)
    low = -scale if scale < 100_000 else scale // 2  # C - D block counts; at the largest scale all large
    matrix = rng.integers(low, scale + 1, size=(n, n)).astype(float)
    exact = weights @ matrix
    got = _product(weights, matrix)
    assert got.dtype == np.float64 and np.array_equal(got, exact)
    in_float32 = (weights.astype(np.float32) @ matrix.astype(np.float32)).astype(np.float64)
    # sums past 2**24 round in float32: there the product must not be formed in float32
    assert np.array_equal(in_float32, exact) == (scale < 100_000)
    fractions = weights + 0.1  # not counts: never the float32 path (where 0.1 would round)
    assert np.array_equal(_product(fractions, matrix), fractions @ matrix)


def test_williams_matches_its_formula_on_a_textbook_case() -> None:
    # r12=.5, r13=.3, r23=.4, n=100 worked by hand: K = 1-.25-.09-.16+2*.5*.3*.4 = .62
    k = 0.62
    t = (0.2 * math.sqrt(99 * 1.4)) / math.sqrt(2 * 99 / 97 * k + 0.16 * 0.6**3)
    assert williams_test(0.5, 0.3, 0.4, 100) == pytest.approx(scipy.stats.t.sf(t, 97))


# --------------------------------------------------------------------------- command line


def _golden_args() -> list[str]:
    return ["correlate", "--scores", str(MTME / "scores.tsv"), "--judgments", str(MTME / "judgments.tsv"), "--format", "tsv"]


def test_cli_grouping_in_the_spec_bootstrap_off_and_refit_note(capsys) -> None:
    table = _cli_table(capsys, *_golden_args(), "--statistic", "seg:acc_eq@none,seg:tau_eq", "--bootstrap", "0")
    assert set(zip(table.statistic, table.grouping)) == {("acc_eq", "none"), ("tau_eq", "item")}
    assert (table.ci_low == "").all() and (table.note == "no bootstrap").all()
    table = _cli_table(capsys, *_golden_args(), "--statistic", "seg:acc_eq", "--bootstrap", "30")
    assert table.ci_low.astype(float).notna().all() and table.note.str.contains("epsilon re-fitted on every resample").all()
    table = _cli_table(capsys, *_golden_args(), "--statistic", "seg:acc_eq", "--bootstrap", "30", "--fixed-epsilon")
    assert table.note.str.contains("epsilon fixed at the full-sample value").all()


def test_cli_rejects_unknown_statistics_and_groupings(capsys) -> None:
    for bad in (["--statistic", "sys:acc_eq"], ["--statistic", "seg:nonsense"], ["--statistic", "sys:pairwise_accuracy@item"],
                ["--grouping", "doc"]):  # fmt: skip
        assert main([*_golden_args(), *bad]) == 2
        err = capsys.readouterr().err
        assert err.startswith("metaeval: error:") and err.count("\n") == 1, err


def test_cli_williams_needs_pearson(capsys, tmp_path) -> None:
    code = main([*_golden_args(), "--statistic", "seg:acc_eq", "--bootstrap", "0", "--compare", "williams",
                 "--comparisons", str(tmp_path / "w.tsv")])  # fmt: skip
    assert code == 2 and "Williams" in capsys.readouterr().err


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_the_calibration_curve_is_acc23_at_every_threshold_by_brute_force(sparse, monkeypatch) -> None:
    """Both ways of binning the sweep (a dense array below ``BLOCK`` cells, sparse parts above it,
    which only very large runs reach) give, for every group and candidate threshold eps, the share
    of pairs the metric gets right when it ties the pairs it separates by at most eps: concordant
    and untied, or tied by both (acc23, Deutsch et al. 2023), counted pair by pair."""
    import metaeval.stats.calibration as calibration

    if sparse:
        monkeypatch.setattr(calibration, "BLOCK", 0)
    rng = np.random.default_rng(5)
    x = rng.integers(0, 6, size=(4, 7)).astype(float) / 4  # many metric and human ties
    y = rng.integers(0, 3, size=(4, 7)).astype(float)
    cal = calibration.calibrate(x, y)
    curve = cal.base[:, None] + np.cumsum(cal.gain.toarray(), axis=1)
    for g in range(x.shape[0]):
        for k, eps in enumerate(cal.thresholds):
            right = total = 0
            for i, j in itertools.combinations(range(x.shape[1]), 2):
                dx, dy = x[g, i] - x[g, j], y[g, i] - y[g, j]
                metric_tie = abs(dx) <= eps
                right += (metric_tie and dy == 0) or (not metric_tie and dy != 0 and np.sign(dx) == np.sign(dy))
                total += 1
            assert curve[g, k] == pytest.approx(right / total, abs=1e-12), (g, k, eps)


def test_a_calibration_over_no_groups_has_only_the_threshold_zero() -> None:
    """No group (every item left out, e.g. with fewer than two systems): nothing to sweep, and the
    one candidate threshold is eps = 0, with no gain."""
    import metaeval.stats.calibration as calibration

    cal = calibration.calibrate(np.zeros((0, 4)), np.zeros((0, 4)))
    assert cal.thresholds.tolist() == [0.0] and cal.base.shape == (0,) and cal.gain.shape == (0, 1)


def test_tau_b_of_a_perfect_order_is_scipys_and_within_one_in_either_direction() -> None:
    """C / sqrt(C) / sqrt(C) rounds to 1 - 1 ulp for some counts and to 1 + 1 ulp for others
    (3, 4, 18, 21... systems): as in scipy, the value is kept within [-1, 1], so a reversed
    order of 3 systems gives -1.0, not -1.0000000000000002."""
    for n in range(2, 40):
        for human in (list(range(n)), list(range(n, 0, -1))):
            m, h = one_item(human, list(range(n)))
            value = tie_statistic(m, h, "kendall_b").value
            assert value == scipy.stats.kendalltau(range(n), human)[0] and -1.0 <= value <= 1.0, (n, value)


def test_given_system_scores_leave_out_the_systems_they_do_not_score() -> None:
    """With segment judgments and given system-level scores of the same kind, the system level
    takes the systems the given column scores: one with no row in it, or a NaN there, is left
    out rather than read as a score."""
    from metaeval.corpora.model import Judgments
    from metaeval.stats.human import human_side

    table = pd.DataFrame([(str(seg), system, "", "esa", float(value)) for seg in range(3) for system, value in zip("ABC", (1, 2, 3))],
                         columns=["seg_id", "system", "judge", "kind", "value"])  # fmt: skip
    given = pd.DataFrame({"esa": [10.0, np.nan]}, index=pd.Index(["A", "B"], name="system"))
    side = human_side(Judgments(table, system_scores=given), "esa", ["A", "B", "C"], ["0", "1", "2"], "segment", None)
    assert side.sys_systems == ["A"] and side.sys.tolist() == [10.0] and side.sys_human == "given"
    assert side.systems == ["A", "B", "C"]  # the segment level keeps all three


def test_a_resample_without_an_untied_pair_is_nan_in_float_samples() -> None:
    """Pooled tau-b over resampled segments: a resample drawing only a segment where the metric
    ties every system has no pair the metric orders, so its value is NaN, in a float array."""
    rng = np.random.default_rng(1)
    metric, human = rng.random((4, 6)), rng.integers(0, 3, (4, 6)).astype(float)
    metric[:, 0] = 0.5
    weights = np.array([[1, 1, 1, 1, 1, 1], [6, 0, 0, 0, 0, 0], [0, 2, 2, 0, 1, 1]], float)
    samples = tie_statistic(metric, human, "kendall_b", "none", weights=weights).samples
    assert samples.dtype == np.float64 and math.isnan(samples[1]) and not np.isnan(samples[[0, 2]]).any()


def test_the_interval_of_a_tie_aware_statistic_is_at_the_level_asked_for() -> None:
    rng = np.random.default_rng(3)
    metric, human = rng.random((5, 30)), rng.integers(0, 4, (5, 30)).astype(float)
    weights = resample_weights(bootstrap_indices(30, 200, np.random.default_rng(7)), 30)
    for level in (0.5, 0.95):
        r = tie_statistic(metric, human, "kendall_acc23", "item", weights=weights, ci=level)
        alpha = (1 - level) / 2
        assert (r.ci_low, r.ci_high) == tuple(np.quantile(r.samples[~np.isnan(r.samples)], [alpha, 1 - alpha]))
