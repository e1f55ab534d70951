"""The pairs permutation test (mt-metrics-eval ``PairwisePermutationSigDiff``) against
mt-metrics-eval on its own test vectors and against the exact permutation distribution,
enumerated here pair by pair with exact fractions.

Provenance of the golden values: google-research/mt-metrics-eval at commit 68a481a,
``mt_metrics_eval/stats_test.py``, classes ``PairwisePermutationSigDiffTest`` (its vectors
``gold``, ``metric1``, ``metric2``, 4 systems) and ``PermutationSigDiffTest`` (vectors of the
same shape, reused here). ``stats.PairwisePermutationSigDiff(corr1, corr2, variant, average_by,
k=200000, PermutationSigDiffParams(block_size=200000), epsilon1, epsilon2, sample_rate=1.0)``
was run on each case with ``np.random.seed(s)`` (s = 1 .. 10 in the order of :data:`GOLDEN`),
and ``KendallWithTiesOpt(..., sample_rate=1.0)`` gave the calibrated thresholds; the numbers
below are copied from that run. mt-metrics-eval's vectors are packed system by system, so they
are ``[4 systems, 2 segments]`` matrices here; ``item`` groups the systems of a segment, ``sys``
the segments of a system.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from metaeval.errors import UsageError
from metaeval.stats.grouping import grouped
from metaeval.stats.kendall import tie_statistic
from metaeval.stats.pairperm import pair_outcomes, pairs_permutation_test, stops_early

GOLD = [1, 3, 3, 3, 1, 2, 1, 2]  # PairwisePermutationSigDiffTest
METRIC1 = [2, 4, 6, 6, 2, 6, 3, 7]
METRIC2 = [1, 5, 4, 4, 4, 3, 2, 1]
GOLD_B = [1, 2, 3, 4, 5, 5, 7, 8]  # PermutationSigDiffTest
METRIC1_B = [1, 2, 3, 3, 7, 3, 5, 5]
METRIC2_B = [2, 1, 2, 6, 8, 8, 7, 6]
CALIBRATED = {"acc23": "acc_eq", "23": "tau_eq"}

#: (vectors, variant, average_by, epsilon or None for calibrated) -> mt-metrics-eval's p, delta,
#: and the calibrated thresholds of metric1 and metric2.
GOLDEN = [
    ((GOLD, METRIC1, METRIC2), "acc23", "item", None, 0.63303, -0.08333333333333337, (2, 1)),
    ((GOLD, METRIC1, METRIC2), "23", "item", None, 0.77302, -0.1666666666666667, (2, 1)),
    ((GOLD, METRIC1, METRIC2), "b", "item", 1, 0.17583, 0.4523502691896257, None),
    ((GOLD, METRIC1, METRIC2), "acc23", "none", None, 0.83361, -0.1071428571428572, (1, 0)),
    ((GOLD, METRIC1, METRIC2), "acc23", "sys", None, 1.0, -0.5, (0, 0)),
    ((GOLD, METRIC1, METRIC2), "acc23", "none", 0, 0.709225, -0.0357142857142857, None),
    ((GOLD, METRIC1, METRIC2), "b", "none", 0, 0.45763, 0.04454354031873736, None),
    ((GOLD_B, METRIC1_B, METRIC2_B), "acc23", "item", None, 0.937885, -0.16666666666666674, (0, 0)),
    ((GOLD_B, METRIC2_B, METRIC1_B), "acc23", "none", 0, 0.500065, 0.0357142857142857, None),
    ((GOLD_B, METRIC1_B, METRIC2_B), "23", "sys", None, 0.49922, 0.5, (0, 0)),
]


def matrices(vectors):  # noqa: ANN001, ANN201
    return [np.asarray(v, float).reshape(4, 2) for v in vectors]


def thresholds(case) -> tuple[float, float]:  # noqa: ANN001
    (gold, m1, m2), variant, average_by, epsilon = case[:4]
    if epsilon is not None:
        return float(epsilon), float(epsilon)
    y, x1, x2 = matrices((gold, m1, m2))
    return tuple(tie_statistic(x, y, CALIBRATED[variant], average_by).epsilon for x in (x1, x2))  # type: ignore[return-value]


def outcomes_of(case):  # noqa: ANN001, ANN201
    """A = metric2, B = metric1: mt-metrics-eval's p is that metric2 is better."""
    (gold, m1, m2), variant, average_by = case[:3]
    y, x1, x2 = matrices((gold, m1, m2))
    eps1, eps2 = thresholds(case)
    g1, gy = grouped(x1, y, average_by)
    g2, _ = grouped(x2, y, average_by)
    return pair_outcomes(g2, g1, gy, variant, eps2, eps1), (g2, g1, gy, eps2, eps1)


# ---------------------------------------------------------------------------- exact, pair by pair


def pair_outcome(dx: float, dy: float, eps: float, variant: str) -> tuple[int, ...]:
    metric_tie, human_tie = abs(dx) <= eps, dy == 0
    if variant == "b":
        sign = 0 if metric_tie or human_tie else (1 if (dx > 0) == (dy > 0) else -1)
        return sign, int(metric_tie)
    correct = (metric_tie and human_tie) or (not metric_tie and not human_tie and (dx > 0) == (dy > 0))
    return (int(correct),)


def group_value(outcomes: list[tuple[int, ...]], human_untied: int, variant: str) -> Fraction | float:
    n = len(outcomes)
    if variant == "b":
        sign, ties = sum(o[0] for o in outcomes), sum(o[1] for o in outcomes)
        if ties == n or human_untied == 0:
            return math.nan
        return sign / math.sqrt((n - ties) * human_untied)
    correct = Fraction(sum(o[0] for o in outcomes), n)
    return 2 * correct - 1 if variant == "23" else correct


def exact_p(xa, xb, y, eps_a, eps_b, variant):  # noqa: ANN001, ANN201
    """Every assignment of the pairs whose outcomes differ between A and B (the others give both
    hybrids the same outcome): the share whose hybrid difference is at least the observed one."""
    groups = []
    for ga, gb, gy in zip(xa, xb, y):
        pairs = [(i, j) for i, j in itertools.combinations(range(len(gy)), 2)]
        out_a = [pair_outcome(ga[i] - ga[j], gy[i] - gy[j], eps_a, variant) for i, j in pairs]
        out_b = [pair_outcome(gb[i] - gb[j], gy[i] - gy[j], eps_b, variant) for i, j in pairs]
        untied = sum(gy[i] != gy[j] for i, j in pairs)
        groups.append((out_a, out_b, untied))

    def value(choice: dict[tuple[int, int], bool], side: int) -> float:
        values = []
        for g, (out_a, out_b, untied) in enumerate(groups):
            taken = [(b if choice.get((g, k), False) else a) if side == 0 else (a if choice.get((g, k), False) else b)
                     for k, (a, b) in enumerate(zip(out_a, out_b))]
            values.append(group_value(taken, untied, variant))
        kept = [v for v in values if not (isinstance(v, float) and math.isnan(v))]
        return sum(kept) / len(kept) if kept else 0

    delta = value({}, 0) - value({}, 1)
    differing = [(g, k) for g, (out_a, out_b, _) in enumerate(groups) for k in range(len(out_a)) if out_a[k] != out_b[k]]
    reached = 0
    for bits in itertools.product((False, True), repeat=len(differing)):
        choice = dict(zip(differing, bits))
        d = value(choice, 0) - value(choice, 1)
        reached += (d >= delta) if isinstance(d, Fraction) else (d >= delta - 1e-12)
    return Fraction(reached, 2 ** len(differing)), delta


@pytest.mark.parametrize("case", GOLDEN, ids=lambda c: f"{c[1]}-{c[2]}-eps{c[3]}")
def test_delta_and_thresholds_equal_mt_metrics_eval(case):
    golden_p, golden_delta, golden_eps = case[4:]
    outcomes, _ = outcomes_of(case)
    test = pairs_permutation_test(outcomes, np.random.default_rng(0), 10)
    assert test.delta == pytest.approx(golden_delta, abs=1e-12)
    assert test.n_samples == 10  # as mt-metrics-eval's own test: k = 10, no early stop before the first block
    if golden_eps is not None:
        assert thresholds(case) == golden_eps
    # delta is the statistic of metaeval's own tie-aware functions
    (gold, m1, m2), variant, average_by, epsilon = case[:4]
    if epsilon is None:
        y, x1, x2 = matrices((gold, m1, m2))
        values = [tie_statistic(x, y, CALIBRATED[variant], average_by).value for x in (x2, x1)]
        assert test.delta == pytest.approx(values[0] - values[1], abs=1e-12)


@pytest.mark.parametrize("case", GOLDEN, ids=lambda c: f"{c[1]}-{c[2]}-eps{c[3]}")
def test_p_value_is_the_exact_permutation_p_value_and_mt_metrics_eval_s(case):
    golden_p = case[4]
    outcomes, (xa, xb, y, eps_a, eps_b) = outcomes_of(case)
    exact, delta = exact_p(xa, xb, y, eps_a, eps_b, case[1])
    assert float(delta) == pytest.approx(case[5], abs=1e-12)
    test = pairs_permutation_test(outcomes, np.random.default_rng(7), 50_000, block_size=50_000)
    se = math.sqrt(float(exact) * (1 - float(exact)) / 50_000)
    assert abs(test.p_value - float(exact)) <= 4.5 * se + 1e-12, (test.p_value, float(exact))
    se = math.sqrt(float(exact) * (1 - float(exact)) / 200_000)  # mt-metrics-eval's 200,000 permutations
    if case is GOLDEN[0]:
        # mt-metrics-eval's float comparison drops hybrid differences that equal delta but for the
        # rounding of 1/12 steps: its acc23 p (0.633) differs from its 23 p (0.773) on the same
        # pairs, though 23 = 2 acc23 - 1 in every group makes the two tests the same
        assert golden_p < float(exact) - 0.1
    else:
        assert abs(golden_p - float(exact)) <= 4.5 * se + 1e-12, (golden_p, float(exact))


def test_the_two_variants_that_differ_by_an_affine_map_give_the_same_test():
    acc = outcomes_of(GOLDEN[0])[0]
    tau = outcomes_of(GOLDEN[1])[0]
    a = pairs_permutation_test(acc, np.random.default_rng(3), 5000)
    b = pairs_permutation_test(tau, np.random.default_rng(3), 5000)
    assert a.p_value == b.p_value and b.delta == pytest.approx(2 * a.delta)


def test_hybrid_draws_reproduce_and_depend_on_the_seed():
    outcomes = outcomes_of(GOLDEN[2])[0]
    first = pairs_permutation_test(outcomes, np.random.default_rng(5), 3000)
    assert first.p_value == pairs_permutation_test(outcomes, np.random.default_rng(5), 3000).p_value
    assert first.p_value != pairs_permutation_test(outcomes, np.random.default_rng(6), 3000).p_value


@pytest.mark.parametrize(
    ("hit", "permutations", "hits", "stop"),
    [
        (True, 1000, 10, True),  # p = 0.01 < 0.02 at a block boundary reached by a hit
        (False, 1000, 10, False),  # the same p, but the boundary's permutation did not reach delta
        (True, 999, 5, False),  # not a block boundary
        (True, 2000, 1200, True),  # p = 0.6 > 0.5
        (True, 2000, 600, False),  # 0.3: neither bound
        (True, 1000, 20, False),  # 0.02 is not below 0.02
    ],
)
def test_early_stopping_follows_mt_metrics_eval(hit, permutations, hits, stop):
    assert stops_early(hit, permutations, hits, 1000, 0.02, 0.5) is stop


def test_early_stopping_ends_at_a_block_boundary_with_the_p_value_so_far():
    # B far better than A: nearly every hybrid difference reaches delta (p near 1 > 0.5)
    y = np.arange(20.0)[None, :]
    outcomes = pair_outcomes(-y, y, y, "acc23")
    test = pairs_permutation_test(outcomes, np.random.default_rng(0), 10_000, block_size=100)
    assert test.n_samples == 100 and test.p_value > 0.5
    full = pairs_permutation_test(outcomes, np.random.default_rng(0), 10_000, block_size=10_000)
    assert full.n_samples == 10_000


def test_groups_are_averaged_as_every_grouped_statistic():
    (gold, m1, m2) = (GOLD, METRIC1, METRIC2)
    y, x1, x2 = matrices((gold, m1, m2))
    for average in ("macro", "micro"):
        g1, gy = grouped(x1, y, "item")
        g2, _ = grouped(x2, y, "item")
        outcomes = pair_outcomes(g2, g1, gy, "acc23", 0.0, 0.0, average=average)
        test = pairs_permutation_test(outcomes, np.random.default_rng(0), 10)
        want = [tie_statistic(x, y, "kendall_acc23", "item", average=average).value for x in (x2, x1)]
        assert (test.value_a, test.value_b) == pytest.approx(tuple(want), abs=1e-12)


def test_tau_c_is_refused():
    with pytest.raises(UsageError, match="Kendall variants acc23, 23, b"):
        pair_outcomes(np.zeros((1, 3)), np.zeros((1, 3)), np.zeros((1, 3)), "c")


# ---------------------------------------------------------------------------- through compare and the command line


def as_run(vectors):  # noqa: ANN001, ANN201
    """mt-metrics-eval's vectors as two configurations and ESA judgments of 4 systems x 2 segments."""
    import pandas as pd

    from metaeval.corpora.model import Judgments
    from metaeval.scoretable import ConfigScores

    y, x1, x2 = matrices(vectors)
    systems, seg_ids = [f"s{i}" for i in range(4)], ["1", "2"]
    configs = [ConfigScores(name, "char", f"{name}|char", systems, seg_ids, x, x.mean(1)) for name, x in (("m1", x1), ("m2", x2))]
    rows = [(seg_ids[j], systems[i], "", "esa", y[i, j]) for i in range(4) for j in range(2)]
    return configs, Judgments(pd.DataFrame(rows, columns=["seg_id", "system", "judge", "kind", "value"]))


def test_compare_runs_the_test_between_the_configurations_of_a_ranking():
    from metaeval.stats.paired import compare

    configs, judged = as_run((GOLD, METRIC1, METRIC2))
    table = compare(configs, judged, "esa", "acc_eq", "seg", grouping="item", method="pairs-permutation", n_bootstrap=3000, seed=9)
    (row,) = table.itertuples()
    assert (row.metric_a, row.metric_b) == ("m1", "m2")  # acc_eq 0.75 against 0.667: m1 ranked first
    _, (x2, x1, y, eps2, eps1) = outcomes_of(GOLDEN[0])  # grouped by item, metric2 first
    expected = pairs_permutation_test(pair_outcomes(x1, x2, y, "acc23", eps1, eps2), np.random.default_rng(9), 3000)
    assert (eps1, eps2) == (2.0, 1.0)
    assert row.delta == pytest.approx(-GOLDEN[0][5]) and row.p_value == expected.p_value
    assert row.method == "pairs permutation (one-sided)"


def test_compare_refuses_a_statistic_without_a_kendall_variant():
    from metaeval.stats.paired import compare

    configs, judged = as_run((GOLD, METRIC1, METRIC2))
    with pytest.raises(UsageError, match="pairs permutation test compares Kendall-type statistics over pairs "
                                         r"\(kendall, kendall_b, kendall_23, kendall_acc23, acc_eq, tau_eq, pairwise_accuracy\)"):
        compare(configs, judged, "esa", "pearson", "seg", method="pairs-permutation", n_bootstrap=10)


def test_the_command_line_writes_pairs_permutation_comparisons(tmp_path, capsys):
    import pandas as pd

    from metaeval.cli import main

    scores = tmp_path / "scores.tsv"
    (gold, m1, m2) = (GOLD, METRIC1, METRIC2)
    y, x1, x2 = matrices((gold, m1, m2))
    rows = [(name, "char", f"s{i}", str(j + 1), x[i, j]) for name, x in (("m1", x1), ("m2", x2)) for i in range(4) for j in range(2)]
    pd.DataFrame(rows, columns=["metric", "segmenter", "system", "seg_id", "score"]).to_csv(scores, sep="\t", index=False)
    judged = tmp_path / "judgments.tsv"
    pd.DataFrame([(str(j + 1), f"s{i}", "", "esa", y[i, j]) for i in range(4) for j in range(2)],
                 columns=["seg_id", "system", "judge", "kind", "value"]).to_csv(judged, sep="\t", index=False)
    out = tmp_path / "comparisons.tsv"
    code = main(["correlate", "--scores", str(scores), "--judgments", str(judged), "--statistic", "seg:acc_eq@item",
                 "--statistic", "sys:pairwise_accuracy", "--bootstrap", "200", "--compare", "pairs-permutation",
                 "--comparisons", str(out)])
    assert code == 0, capsys.readouterr().err
    table = pd.read_csv(out, sep="\t")
    assert set(table.statistic) == {"acc_eq", "pairwise_accuracy"}
    assert (table.method == "pairs permutation (one-sided)").all() and table.p_value.between(0, 1).all()
