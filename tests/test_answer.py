"""The answer's choice of metrics: those that say nothing about granularity are left out."""

from __future__ import annotations

import math

import pandas as pd

from metaeval.answer import answer, characters_only, granularity_free
from metaeval.scoretable import ConfigScores


def test_characters_only_are_the_metrics_that_ignore_the_split() -> None:
    specs = ["chrf", "chrf:word_order=2", "bleu", "1-ter", "meteor", "no-such-metric"]
    assert characters_only(specs) == {"chrf"}


def _row(metric: str, segmenter: str, value: float) -> dict:
    return {"dataset": "d", "judgment_kind": "esa", "level": "seg", "statistic": "acc_eq", "grouping": "item",
            "tie_policy": "", "metric": metric, "segmenter": segmenter, "value": value, "ci_low": math.nan,
            "ci_high": math.nan}  # fmt: skip


def test_chrf_is_left_out_even_where_segmenters_keep_different_characters() -> None:
    # chrF differs a little between char and jieba (char drops invisible characters), and its
    # jieba configuration has the highest value of the ranking: it is left out of the best
    # configuration too, and the comparison is made on BLEU.
    results = pd.DataFrame([_row("chrf", "char", 0.4975), _row("chrf", "jieba", 0.4976),
                            _row("bleu", "char", 0.40), _row("bleu", "jieba", 0.30)])  # fmt: skip
    [row] = answer(results).to_dict("records")
    assert (row["best_metric"], row["best_segmenter"]) == ("bleu", "char")
    assert (row["metric"], row["word_segmenter"], row["left_out"], row["metrics"]) == ("bleu", "jieba", "chrf", 1)
    assert math.isclose(row["delta"], 0.10)


def test_the_best_configuration_falls_back_to_every_metric_when_all_are_left_out() -> None:
    results = pd.DataFrame([_row("chrf", "char", 0.4975), _row("chrf", "jieba", 0.4976)])
    [row] = answer(results).to_dict("records")
    assert (row["best_metric"], row["best_segmenter"], row["left_out"]) == ("chrf", "jieba", "chrf")


def test_granularity_free_joins_identical_scores_and_character_only_metrics() -> None:
    def config(metric: str, segmenter: str, scores: list[float]) -> ConfigScores:
        return ConfigScores(metric, segmenter, f"{metric}|{segmenter}", ["s"], ["1", "2"],
                            pd.Series(scores).to_numpy()[None, :], pd.Series([sum(scores)]).to_numpy())  # fmt: skip

    configs = [config("chrf", "char", [0.5, 0.6]), config("chrf", "jieba", [0.5, 0.61]),
               config("gtm", "char", [0.2, 0.3]), config("gtm", "jieba", [0.2, 0.3]),
               config("bleu", "char", [0.1, 0.2]), config("bleu", "jieba", [0.1, 0.3])]  # fmt: skip
    assert granularity_free(configs) == ["chrf", "gtm"]


# --- significance: selection-aware comparisons and adjusted p-values ----------------------------

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from metaeval.stats.adjust import adjust_p_values  # noqa: E402

WORDS = ("jieba", "pkuseg", "thulac")


def synthetic(seed: int = 0, n_boot: int = 400, metrics: int = 5, ahead: float = 0.004) -> tuple[pd.DataFrame, np.ndarray]:
    """Two rankings (esa and esa_z) of ``metrics`` metrics x char, cjk-char and three word
    segmenters, with bootstrap samples that share a resample effect (paired) and values equal to
    the samples' means plus noise, char ahead of the words by about ``ahead``."""
    rng = np.random.default_rng(seed)
    rows, samples = [], []
    for kind in ("esa", "esa_z"):
        for m in range(metrics):
            shared = rng.normal(0, 0.01, n_boot)
            for segmenter in ("char", "cjk-char") + WORDS:
                value = 0.5 + (ahead if segmenter == "char" else 0.0) + rng.normal(0, 0.002)
                draws = value + shared + rng.normal(0, 0.003, n_boot)
                rows.append({"dataset": "d", "judgment_kind": kind, "level": "seg", "statistic": "pearson", "grouping": "none",
                             "tie_policy": "", "metric": f"m{m}", "segmenter": segmenter, "value": value,
                             "ci_low": float(np.quantile(draws, 0.025)), "ci_high": float(np.quantile(draws, 0.975))})
                samples.append(draws)
    return pd.DataFrame(rows), np.array(samples)


def slow_test(char: float, word: float, a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """The paired bootstrap test and percentile interval of char - word, one resample at a time."""
    delta = char - word
    diffs = [x - y for x, y in zip(a, b) if not (math.isnan(x) or math.isnan(y))]
    if delta == 0:
        p = 1.0
    else:
        against = sum(1 for d in diffs if (d <= 1e-12 if delta > 0 else d >= -1e-12))
        p = min(1.0, 2 * against / len(diffs))
    low, high = np.quantile(diffs, [0.025, 0.975])
    return p, float(low), float(high)


def reference_answer(results: pd.DataFrame, samples: np.ndarray, selection: bool, adjust: str) -> dict:
    """Per judgment kind: the compared metric's numbers and the counts, computed the slow way.
    ``selection=False, adjust="none"`` is the answer as it was before adjustments existed."""
    out = {}
    for kind, ranking in results.groupby("judgment_kind"):
        tests = {}
        for metric, rows in ranking.groupby("metric"):
            char = rows[rows.segmenter == "char"].iloc[0]
            words = rows[rows.segmenter.isin(WORDS)]
            best = words.sort_values(["value", "segmenter"], ascending=[False, True]).iloc[0]
            if selection:
                opponent = np.array([max(samples[i, b] for i in words.index) for b in range(samples.shape[1])])
            else:
                opponent = samples[best.name]
            p, low, high = slow_test(char.value, best.value, samples[char.name], opponent)
            tests[metric] = {"delta": char.value - best.value, "p": p, "low": low, "high": high, "word": best.segmenter}
        adjusted = dict(zip(tests, adjust_p_values([t["p"] for t in tests.values()], adjust)))
        best_row = ranking.sort_values(["value", "metric", "segmenter"], ascending=[False, True, True]).iloc[0]
        out[kind] = {
            "metric": best_row.metric, **tests[best_row.metric], "p_adjusted": adjusted[best_row.metric],
            "char_ahead": sum(t["delta"] > 0 for t in tests.values()),
            "char_significant": sum(t["delta"] > 0 and adjusted[m] <= 0.05 for m, t in tests.items()),
            "word_significant": sum(t["delta"] < 0 and adjusted[m] <= 0.05 for m, t in tests.items()),
        }
    return out


@pytest.mark.parametrize("adjust", ["holm", "bh", "none"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_answer_equals_a_slow_implementation_of_its_definition(adjust, seed):
    results, samples = synthetic(seed)
    got = answer(results, samples, left_out=[], adjust=adjust).set_index("judgment_kind")
    expected = reference_answer(results, samples, selection=adjust != "none", adjust=adjust)
    for kind, e in expected.items():
        r = got.loc[kind]
        assert (r.metric, r.word_segmenter) == (e["metric"], e["word"])
        assert r.delta == pytest.approx(e["delta"], abs=1e-15)
        assert r.p_value == pytest.approx(e["p"], abs=1e-12) and r.p_adjusted == pytest.approx(e["p_adjusted"], abs=1e-12)
        assert (r.delta_ci_low, r.delta_ci_high) == pytest.approx((e["low"], e["high"]), abs=1e-12)
        assert (r.char_ahead, r.char_significant, r.word_significant) == (e["char_ahead"], e["char_significant"], e["word_significant"])


def test_adjust_none_is_the_answer_as_it_was():
    """Before p-values were adjusted, char was compared with the word segmenter best on the full
    sample and a difference counted as significant at raw p <= 0.05: adjust="none" gives exactly that."""
    for seed in range(6):
        results, samples = synthetic(seed, ahead=0.003)
        got = answer(results, samples, left_out=[], adjust="none").set_index("judgment_kind")
        for kind, e in reference_answer(results, samples, selection=False, adjust="none").items():
            assert got.loc[kind, "p_adjusted"] == got.loc[kind, "p_value"] == pytest.approx(e["p"], abs=1e-12)
            assert tuple(got.loc[kind, ["char_significant", "word_significant"]]) == (e["char_significant"], e["word_significant"])


def test_choosing_the_best_word_segmenter_in_each_resample_is_harder_to_beat():
    """The maximum over word segmenters is at least the full-sample best in every resample, so a
    char advantage has a larger p-value and a lower interval than against the fixed segmenter."""
    results, samples = synthetic(3, ahead=0.006)
    fixed = answer(results, samples, left_out=[], adjust="none")
    chosen = answer(results, samples, left_out=[], adjust="holm")
    assert (chosen.delta == fixed.delta).all() and (fixed.delta > 0).all()
    assert (chosen.p_value >= fixed.p_value).all() and (chosen.delta_ci_high <= fixed.delta_ci_high + 1e-15).all()
    assert (chosen.p_value > fixed.p_value).any()


def test_one_word_segmenter_needs_no_selection():
    results, samples = synthetic(4)
    keep = results.segmenter.isin(["char", "jieba"]).to_numpy()
    results, samples = results[keep].reset_index(drop=True), samples[keep]
    fixed = answer(results, samples, left_out=[], adjust="none")
    holm = answer(results, samples, left_out=[], adjust="holm")
    for column in ("p_value", "delta_ci_low", "delta_ci_high"):
        assert np.array_equal(fixed[column], holm[column]), column


def test_counts_use_the_adjusted_p_values_of_the_rankings_metrics():
    # five metrics of one ranking, char ahead on each; raw p of each test known from its samples
    rows, samples = [], []
    flips = [0, 4, 10, 20, 15]  # resamples (of 1000) where char is not ahead: p = 2 * flips / 1000
    for m, k in enumerate(flips):
        for segmenter, value in (("char", 0.6), ("jieba", 0.5)):
            rows.append({"dataset": "d", "judgment_kind": "esa", "level": "seg", "statistic": "pearson", "grouping": "none",
                         "tie_policy": "", "metric": f"m{m}", "segmenter": segmenter, "value": value, "ci_low": 0.0, "ci_high": 1.0})
            draws = np.full(1000, value)
            if segmenter == "char":
                draws[:k] = 0.4
            samples.append(draws)
    results = pd.DataFrame(rows)
    raw = [1 / 1001, 0.008, 0.02, 0.04, 0.03]  # no resample crossed for m0: p is the bound 1/(B+1)
    # Holm over m = 5: 5/1001, 4*0.008 = 0.032, 3*0.02 = 0.06, max(0.06, 0.04) = 0.06, 2*0.03 = 0.06
    expected = {"holm": 2, "bh": 5, "none": 5}  # BH: 0.04*5/5 = 0.04 is the largest, so all five are <= 0.05
    for adjust, count in expected.items():
        row = answer(results, np.array(samples), left_out=[], adjust=adjust).iloc[0]
        assert row.char_significant == count and row.word_significant == 0, adjust
        assert row.metric == "m0" and row.p_value == raw[0] and row.p_bound
    bh = adjust_p_values(raw, "bh")
    assert max(bh) == pytest.approx(0.04) and sorted(adjust_p_values(raw, "holm")) == pytest.approx([5 / 1001, 0.032, 0.06, 0.06, 0.06])


def test_without_samples_there_is_no_p_value_to_adjust():
    results, _ = synthetic(5)
    row = answer(results, None, left_out=[]).iloc[0]
    assert math.isnan(row.p_value) and math.isnan(row.p_adjusted) and row.char_significant == 0


def test_a_word_segmenter_undefined_in_a_resample_is_left_out_of_its_maximum():
    results, samples = synthetic(6)
    jieba = results.index[(results.segmenter == "jieba") & (results.judgment_kind == "esa")]
    samples[jieba, :50] = np.nan
    got = answer(results, samples, left_out=[], adjust="holm").set_index("judgment_kind")
    expected = reference_answer(results.assign(), np.where(np.isnan(samples), -np.inf, samples), selection=True, adjust="holm")
    assert got.loc["esa", "p_value"] == pytest.approx(expected["esa"]["p"], abs=1e-12)
    assert got.loc["esa", "n_samples"] == samples.shape[1]


def test_an_unknown_adjustment_is_a_usage_error():
    from metaeval.errors import UsageError

    results, samples = synthetic(0)
    with pytest.raises(UsageError, match="holm, bh, none"):
        answer(results, samples, adjust="sidak")


def test_a_p_value_no_resample_reached_is_written_as_its_bound():
    """1000 resamples, char ahead in every one: the file says p = 1/1001 and that it is a bound; a
    p-value some resample reached is itself, p_bound false."""
    rows, samples = [], []
    for metric, crossed in (("m0", 0), ("m1", 5)):
        for segmenter, value in (("char", 0.6), ("jieba", 0.5)):
            rows.append({"dataset": "d", "judgment_kind": "esa", "level": "seg", "statistic": "pearson", "grouping": "none",
                         "tie_policy": "", "metric": metric, "segmenter": segmenter, "value": value + (metric == "m0") * 0.1,
                         "ci_low": 0.0, "ci_high": 1.0})  # fmt: skip
            draws = np.full(1000, value)
            draws[:crossed] = 0.4 if segmenter == "char" else 0.5
            samples.append(draws)
    row = answer(pd.DataFrame(rows), np.array(samples), left_out=[], adjust="none").iloc[0]
    assert row.metric == "m0" and row.p_value == 1 / 1001 and bool(row.p_bound) is True
    other = answer(pd.DataFrame(rows[2:]), np.array(samples[2:]), left_out=[], adjust="none").iloc[0]
    assert other.p_value == pytest.approx(0.01) and bool(other.p_bound) is False


def test_the_best_configuration_carries_its_own_interval():
    results, samples = synthetic(5)
    for row in answer(results, samples, left_out=[]).itertuples():
        best = results[(results.judgment_kind == row.judgment_kind) & (results.metric == row.best_metric)
                       & (results.segmenter == row.best_segmenter)].iloc[0]  # fmt: skip
        assert (row.best_value, row.best_ci_low, row.best_ci_high) == (best.value, best.ci_low, best.ci_high)


def test_a_ranking_with_an_empty_key_read_back_as_nan_is_still_answered():
    results, samples = synthetic(5)
    results["tie_policy"] = np.nan  # an empty column of a TSV read back with pandas
    assert len(answer(results, samples, left_out=[])) == 2


def test_characters_alone_give_no_metric_to_count():
    results, _ = synthetic(5)
    row = answer(results[results.segmenter == "char"].reset_index(drop=True), None, left_out=[]).iloc[0]
    assert (row.metrics, row.char_ahead, row.char_significant, row.word_significant) == (0, 0, 0, 0)
    assert row.note == "no word-level segmenter to compare with"
