"""How much data a char-vs-word difference needs (metaeval.stats.power and the answer's columns
delta_se, mde, mde_alpha, n_needed, n_unit): the formula checked by hand, and a synthetic case
whose variance is known in closed form."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from metaeval.answer import SYSTEMS_NOT_RESAMPLED, answer
from metaeval.corpora.model import Judgments
from metaeval.errors import UsageError
from metaeval.report.headline import answer_legend, answer_section
from metaeval.scoretable import ConfigScores
from metaeval.stats.evaluate import evaluate
from metaeval.stats.power import detectable_difference, standard_error, units_needed

# z_{0.975} + z_{0.80} = 1.959964 + 0.841621 = 2.801585 (tables of the normal distribution)
Z = 2.801585


def test_the_formula_by_hand():
    assert detectable_difference(0.01) == pytest.approx(0.02801585, abs=1e-8)
    # alpha = 0.01: 2.575829 + 0.841621 = 3.417450
    assert detectable_difference(0.01, alpha=0.01) == pytest.approx(0.0341745, abs=1e-7)
    # 600 segments, SE 0.01, delta 0.01: 600 x 2.801585^2 = 600 x 7.848879 = 4709.33 -> 4710
    assert units_needed(0.01, 0.01, 600) == 4710
    # delta four times the SE: 600 x (2.801585 / 4)^2 = 294.3 -> 295 (fewer than the 600 there are)
    assert units_needed(-0.04, 0.01, 600) == 295
    # 12 systems, SE 0.05, delta 0.03: 12 x (0.1400793 / 0.03)^2 = 12 x 21.80244 = 261.6 -> 262
    assert units_needed(0.03, 0.05, 12) == 262
    assert math.isnan(units_needed(0.0, 0.01, 600)) and math.isnan(units_needed(0.01, 0.01, 0))
    assert standard_error(np.array([1.0, 2.0, 3.0, np.nan])) == pytest.approx(1.0)
    with pytest.raises(UsageError, match="alpha and power must be in"):
        detectable_difference(0.01, alpha=1.5)


def test_the_quantiles_are_scipy_stats_norm_ppf_to_the_bit():
    """The answer's detectable differences use scipy.special.ndtri, the function scipy.stats.norm.ppf
    calls, so that the answer never imports scipy.stats (0.8 s) for them; the sums are the same bits."""
    import scipy.stats

    for alpha, power in ((0.05, 0.8), (0.01, 0.9), (0.05 / 7, 0.8), (1e-12, 0.999), (0.9, 0.05)):
        z = float(scipy.stats.norm.ppf(1.0 - alpha / 2.0) + scipy.stats.norm.ppf(power))
        assert detectable_difference(1.0, alpha=alpha, power=power) == z


def test_the_detectable_difference_does_not_import_scipy_stats():
    import subprocess
    import sys

    code = ("import sys; from metaeval.stats.power import detectable_difference as d; "
            "print(round(d(1.0), 6), 'scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["2.801585", "False"]


# ------------------------------------------------------------------ a synthetic case with a known variance

N = 500


def synthetic(n_bootstrap: int = 4000) -> tuple[pd.DataFrame, np.ndarray, float, float]:
    """Two systems per segment, the humans preferring the first everywhere: each segment has one
    pair, so acc23 by item is the share of segments a metric orders correctly. ``char`` orders
    the first 60% correctly, ``jieba`` segments 40% to 90% ... arranged so that per segment
    ``d = correct(char) - correct(jieba)`` is +1 on 30%, -1 on 20% and 0 on 50% of the segments:
    delta = 0.1, var(d) = 0.5 - 0.01 = 0.49, so the bootstrap SE of delta is sqrt(0.49 / N)."""
    seg = np.arange(N)
    char_ok = seg < 0.6 * N  # segments 0..299
    word_ok = (seg >= 0.3 * N) & (seg < 0.7 * N)  # 150..349: char alone 0..149 (30%), word alone 300..349 (10%)...
    word_ok |= (seg >= 0.9 * N)  # ... and 450..499 (10%): -1 on 20%
    systems, seg_ids = ["first", "second"], [str(s + 1) for s in seg]
    rows = [(sid, system, "", "esa", value) for sid in seg_ids for system, value in (("first", 2.0), ("second", 1.0))]
    judged = Judgments(pd.DataFrame(rows, columns=["seg_id", "system", "judge", "kind", "value"]))
    configs = []
    for segmenter, ok in (("char", char_ok), ("jieba", word_ok)):
        scores = np.vstack([np.where(ok, 1.0, 0.0), np.where(ok, 0.0, 1.0)])
        configs.append(ConfigScores("m", segmenter, f"m|{segmenter}", systems, seg_ids, scores, scores.mean(1)))
    results, samples = evaluate(configs, judged, ["esa"], statistics=["seg:kendall_acc23@item"], n_bootstrap=n_bootstrap,
                                seed=3, return_samples=True)
    d = char_ok.astype(float) - word_ok.astype(float)
    assert d.mean() == pytest.approx(0.1) and d.var() == pytest.approx(0.49)
    return results, samples, float(d.mean()), float(d.var())


def test_a_synthetic_case_with_a_known_variance():
    results, samples, delta, variance = synthetic()
    (row,) = answer(results, samples, sizes={("", "seg"): N}).itertuples()
    assert row.delta == pytest.approx(delta)
    # exactly the formula on the bootstrap differences
    se = np.std(samples[0] - samples[1], ddof=1)
    assert row.delta_se == pytest.approx(se, rel=1e-12)
    assert row.mde == pytest.approx(Z * se, rel=1e-6) and row.mde_alpha == 0.05
    assert row.n_needed == math.ceil(N * (Z * se / delta) ** 2)
    # and the known variance: SE = sqrt(0.49 / 500) = 0.031305; MDE = 2.801585 x 0.031305 = 0.087704;
    # segments needed = 2.801585^2 x 0.49 / 0.1^2 = 384.6 (the bootstrap's SE within Monte Carlo error)
    assert row.delta_se == pytest.approx(math.sqrt(variance / N), rel=0.05)
    assert row.mde == pytest.approx(0.087704, rel=0.05)
    assert row.n_needed == pytest.approx(384.6, rel=0.1)
    assert row.n_unit == "segments" and row.note == ""


def test_without_sizes_or_samples_the_numbers_are_missing():
    results, samples, _, _ = synthetic(200)
    (row,) = answer(results, samples).itertuples()
    assert math.isfinite(row.mde) and math.isnan(row.n_needed)
    (row,) = answer(results).itertuples()
    assert math.isnan(row.mde) and math.isnan(row.n_needed) and math.isnan(row.delta_se)


def system_case(resample: str) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(0)
    systems = [f"s{i}" for i in range(9)]
    seg_ids = [str(j + 1) for j in range(40)]
    quality = np.linspace(0, 1, 9)[:, None]
    human = quality + rng.normal(0, 0.3, (9, 40))
    rows = [(seg_ids[j], systems[i], "", "esa", human[i, j]) for i in range(9) for j in range(40)]
    judged = Judgments(pd.DataFrame(rows, columns=["seg_id", "system", "judge", "kind", "value"]))
    configs = []
    for segmenter, noise in (("char", 0.2), ("jieba", 0.5)):
        seg = quality + rng.normal(0, noise, (9, 40))
        configs.append(ConfigScores("m", segmenter, f"m|{segmenter}", systems, seg_ids, seg, seg.mean(1)))
    return evaluate(configs, judged, ["esa"], statistics=["sys:pearson"], n_bootstrap=500, seed=1, resample=resample,
                    return_samples=True)


def test_system_level_counts_systems_only_when_they_are_resampled():
    results, samples = system_case("segments")
    (row,) = answer(results, samples, resample="segments").itertuples()
    assert math.isfinite(row.mde) and math.isnan(row.n_needed)
    assert row.n_unit == "systems" and row.note == SYSTEMS_NOT_RESAMPLED
    for mode in ("systems", "both"):
        results, samples = system_case(mode)
        (row,) = answer(results, samples, resample=mode).itertuples()
        se = np.nanstd(samples[0] - samples[1], ddof=1)
        assert row.n_needed == math.ceil(9 * (Z * se / row.delta) ** 2), mode
        assert row.note == ""


def test_the_answer_table_shows_the_numbers_and_says_how_they_are_made():
    results, samples, _, _ = synthetic(500)
    summary = answer(results, samples, sizes={("", "seg"): N})
    section = answer_section(summary)
    assert section is not None
    cells = dict(zip(section.columns, section.rows[0]))
    assert cells["MDE"] == f"{summary.mde.iloc[0]:.3f}"
    legend = " ".join(answer_legend(summary, {"n_bootstrap": 500}))
    assert "80% power at alpha = 0.05" in legend and "n x (MDE / delta)^2" in legend


def test_the_adjusted_level_of_the_family_beside_the_unadjusted_one():
    from metaeval.answer import family_level

    assert family_level(0.05, 5, "holm") == pytest.approx(0.01) and family_level(0.05, 4, "bh") == pytest.approx(0.0125)
    assert family_level(0.05, 5, "none") == 0.05 and family_level(0.05, 1, "holm") == 0.05
    # two metrics in the row: the family's level is 0.05 / 2 = 0.025, and
    # z_{1 - 0.0125} + z_{0.80} = 2.241403 + 0.841621 = 3.083024 (tables of the normal distribution)
    results, samples, _, _ = synthetic(1000)
    twice = pd.concat([results, results.assign(metric="m2")], ignore_index=True)
    (row,) = answer(twice, np.vstack([samples, samples]), sizes={("", "seg"): N}).itertuples()
    assert row.metrics == 2 and row.alpha_adjusted == pytest.approx(0.025)
    assert row.mde == pytest.approx(Z * row.delta_se, rel=1e-6)
    assert row.mde_adjusted == pytest.approx(3.083024 * row.delta_se, rel=1e-6)
    (row,) = answer(twice, np.vstack([samples, samples]), sizes={("", "seg"): N}, adjust="none").itertuples()
    assert row.alpha_adjusted == 0.05 and row.mde_adjusted == pytest.approx(row.mde)
