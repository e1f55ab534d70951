"""The README's Speed section is what ``python -m benchmarks.readme`` writes from the committed
``benchmarks/results.json``, and its targets table computes every ratio from the stored timings."""

from __future__ import annotations

import pytest

from pathlib import Path

from benchmarks.readme import BEGIN, END, README, rewrite, section
from benchmarks.targets import markdown, read_results, read_runtime, targets, work_bound

REPO = Path(__file__).resolve().parents[1]


def test_speed_section_is_generated_from_the_committed_results():
    text = README.read_text(encoding="utf-8")
    assert text.count(BEGIN) == 1 and text.count(END) == 1
    assert rewrite(text, section(read_results(), read_runtime())) == text, (
        "README.md's Speed section differs from benchmarks/results.json: run python -m benchmarks.readme"
    )


def _results() -> dict:
    """Stored results of a made-up machine, with round numbers to check by hand."""
    return {
        "scale": {
            "dataset": "wmt24-esa/en-zh", "jobs": "0", "cpus": 2, "segmentation_floor_seconds": 16.0,
            "cold": {"seconds": 12.0, "peak_pss_mb": 1600.0, "peak_rss_mb": 2048.0},
            "warm": {"seconds": 2.0, "peak_pss_mb": 200.0, "peak_rss_mb": 250.0},
            "load_average_1_5_15_at_start": [0.5, 0.4, 0.3],
        },
        "large": {"lines": 10000, "systems": 50, "segmenters": ["char", "jieba"], "metrics": ["bleu", "ter", "chrf"],
                  "seconds": 120.0, "peak_pss_mb": 3584.0, "peak_rss_mb": 4096.0,
                  "load_average_1_5_15_at_start": [1.0, 1.0, 1.0]},
        "ter_setup": {"word_level_min_speedup": 2.5, "all_numbers_identical": True},
    }


def test_targets_compute_ratios_from_the_stored_timings_by_hand():
    rows = {row.target: row for row in targets(_results(), {"seconds": 100.0, "warm_seconds": 30.0, "datasets": ["a"] * 7})}
    cold = rows["≤ 0.75× single-process segmentation"]
    assert cold.ratio == 12.0 / 16.0 and cold.met is True and cold.ratio_text == "0.75× segmentation" and cold.load == 0.5
    warm = rows["≤ 10% of cold"]
    assert warm.ratio == 2.0 / 12.0 and warm.met is False and warm.ratio_text == "16.7% of cold"
    memory = rows["≤ 1.5 GB"]
    assert memory.value == 1600.0 / 1024 and memory.met is False  # 1.5625 GB
    assert rows["≤ 2 min"].met is True and rows["≤ 20 s"].met is False and rows["≤ 20 s"].ratio == 1.5
    assert rows["≤ 150 s"].met is True and rows["≤ 3 GB"].value == 3.5 and rows["≤ 3 GB"].met is False
    assert rows["2× faster, identical"].met is True and rows["2× faster, identical"].ratio == 1.25


def test_the_cold_run_row_gives_the_bound_the_machine_sets_by_hand():
    results = _results()
    assert "can take less than" not in targets(results, None)[0].measured  # stored before the bound was
    # 40 CPU-s of work in one process on 2 CPUs: no run beats 20 s, 1.25x the 16 s floor; 24 of
    # the 40 are not segmentation, and 0.75x on 2 CPUs allows 0.75 * 2 * 16 - 16 = 8
    results["scale"]["one_process"] = {"seconds": 41.0, "cpu_seconds": 40.0}
    assert work_bound(16.0, 40.0, 2) == {
        "lower_bound_seconds": 20.0, "ratio_lower_bound_to_segmentation": 1.25,
        "non_segmentation_cpu_seconds": 24.0, "non_segmentation_cpu_seconds_allowed_by_target": 8.0,
    }
    measured = targets(results, None)[0].measured
    assert measured.endswith("; no run on 2 CPUs can take less than 20.0 s (1.25×): the run's work in one process "
                             "is 40.0 CPU-s, of which 24.0 besides segmentation, where 0.75× allows 8.0")


def test_targets_not_measured_are_shown_as_such():
    table = markdown(targets({}, None))
    assert table.count("not measured") + table.count("not recorded") == 8 and "yes" not in table
    results = _results()
    results["ter_setup"]["all_numbers_identical"] = False
    row = [r for r in targets(results, None) if r.target == "2× faster, identical"][0]
    assert row.met is False and "NOT identical" in row.measured


def _cpu_entry(load: float) -> dict:
    """A made-up measurement of the CPU-time targets, round numbers to check by hand."""
    one = {"seconds": 30.0, "cpu_seconds": 28.0}
    return {
        "cpus": 2, "repeat": 1, "load_average_1_5_15_at_start": [load, load, load],
        "stages": {"run_cpu_seconds": 28.0, "segmentation_floor_cpu_seconds": 16.0, "work_besides_segmentation_ratio": 0.75},
        "workload_rounds": [{"parallel": {"seconds": 16.8, "cpu_seconds": 30.0}, "one_process": one}],
        "memory": {"seconds": 20.0, "cpu_seconds": 31.0, "peak_pss_mb": 1331.2, "peak_rss_mb": 2048.0},
        "li2011_rounds": [{"parallel": {"seconds": 100.0, "cpu_seconds": 160.0}, "one_process": {"seconds": 170.0, "cpu_seconds": 150.0}}],
        "bleu_process": {"metaeval_cpu_seconds": 2.0, "sacrebleu_cpu_seconds": 90.0, "speedup": 45.0},
    }  # fmt: skip


def test_cpu_targets_are_ratios_of_the_figures_beside_them():
    from benchmarks import cpu_targets

    rows = {measure: (measured, met) for measure, measured, _, met in cpu_targets.rows(_cpu_entry(0.1))}
    work, efficiency, memory, li2011, bleu = rows.values()
    assert work == ("28.0 CPU-s run, 16.0 CPU-s segmentation floor: 0.75×", "yes")
    # 16.8 s against 28 CPU-s over 2 CPUs = 1.2: over the 1.15 target
    # of which 30 / 28 = 1.07 the parallel run's work and (2 x 16.8 - 30) / 28 = 0.13 idle cores
    assert efficiency == ("16.8 s against 28.0 CPU-s / 2: 1.20×; over the one-process CPU-s, the parallel run's CPU-s 1.07× "
                          "and its idle cores 0.13×", "**no**")
    assert memory == ("1.30 GB", "**no**")
    # 100 / (150 / 2) = 1.33: 160 / 150 = 1.07 work and (200 - 160) / 150 = 0.27 idle; 160 / 16 = 10.0 floors
    assert li2011 == ("160.0 CPU-s (10.0× the segmentation floor above); efficiency 1.33×; over the one-process CPU-s, the parallel run's CPU-s 1.07× and its idle "
                      "cores 0.27×", "yes / **no**")
    assert bleu == ("2.00 CPU-s against 90.0 for sacrebleu: 45.0×", "yes")


def test_parallel_efficiency_is_the_median_of_each_rounds_ratio():
    """Rounds measured on this machine: their ratios are 1.204, 1.129 and 1.241, median 1.20.
    The two sides' separate medians (16.97 s, 30.07 CPU-s) both come from round 2 here, the
    round with the lowest ratio, and would give 1.13."""
    from benchmarks import cpu_targets

    entry = _cpu_entry(0.1)
    entry["repeat"] = 3
    entry["workload_rounds"] = [
        {"parallel": {"seconds": p, "cpu_seconds": 30.0}, "one_process": {"seconds": o, "cpu_seconds": o}}
        for p, o in ((16.79, 27.89), (16.97, 30.07), (19.27, 31.06))
    ]
    assert cpu_targets.figures(entry)["parallel_efficiency"] == pytest.approx(16.79 / (27.89 / 2))
    measured, met = {m: (v, ok) for m, v, _, ok in cpu_targets.rows(entry)}["parallel efficiency, fixed workload, default `--jobs`"]
    # parts per round: work 30/27.89, 30/30.07, 30/31.06 (median 0.998); idle (33.58-30)/27.89 = 0.128,
    # (33.94-30)/30.07 = 0.131, (38.54-30)/31.06 = 0.275 (median 0.131)
    assert measured == ("17.0 s against 30.1 CPU-s / 2: 1.20× (median of the rounds' ratios 1.20, 1.13, 1.24); over the "
                        "one-process CPU-s, the parallel run's CPU-s 1.00× and its idle cores 0.13× (medians of the rounds)")
    # the median is over 1.15, one round under it: the measurement does not settle the target
    assert met == "not resolved (rounds on both sides of the limit)"


def test_work_besides_segmentation_is_the_median_of_each_rounds_ratio():
    """Rounds (run, floor) of (33.3, 15.3), (36.1, 18.2), (31.0, 15.8): their ratios are 1.176,
    0.984 and 0.962, median 0.98; the medians of the two sides (33.3, 15.8) come from different
    rounds and would give 1.11."""
    from benchmarks import cpu_targets, stages

    entry = _cpu_entry(0.1)
    entry["stages"]["rounds"] = [{"run_cpu_seconds": run, "segmentation_floor_cpu_seconds": floor}
                                 for run, floor in ((33.3, 15.3), (36.1, 18.2), (31.0, 15.8))]
    assert stages.work_ratio(entry["stages"]["rounds"]) == pytest.approx((36.1 - 18.2) / 18.2)
    entry["stages"]["work_besides_segmentation_ratio"] = stages.work_ratio(entry["stages"]["rounds"])
    assert cpu_targets.figures(entry)["work_besides_segmentation"] == pytest.approx((36.1 - 18.2) / 18.2)
    measured, met = {m: (v, ok) for m, v, _, ok in cpu_targets.rows(entry)}["work besides segmentation, fixed workload, `--jobs 1`"]
    assert measured == "28.0 CPU-s run, 16.0 CPU-s segmentation floor: 0.98× (median of the rounds' ratios 1.18, 0.98, 0.96)"
    assert met == "**no**"


def test_a_target_is_met_or_missed_only_when_every_round_agrees():
    from benchmarks import cpu_targets

    def verdicts(parallel_walls: tuple, li2011_cpus: tuple, stage_rounds: tuple) -> list[str]:
        entry = _cpu_entry(0.1)
        entry["workload_rounds"] = [{"parallel": {"seconds": w, "cpu_seconds": 30.0},
                                     "one_process": {"seconds": 28.0, "cpu_seconds": 28.0}} for w in parallel_walls]
        entry["li2011_rounds"] = [{"parallel": {"seconds": 80.0, "cpu_seconds": c},
                                   "one_process": {"seconds": 150.0, "cpu_seconds": 150.0}} for c in li2011_cpus]
        entry["stages"]["rounds"] = [{"run_cpu_seconds": run, "segmentation_floor_cpu_seconds": 16.0} for run in stage_rounds]
        entry["stages"]["work_besides_segmentation_ratio"] = (sorted(stage_rounds)[1] - 16.0) / 16.0  # every floor 16
        return [met for _, _, _, met in cpu_targets.rows(entry)]

    # ratios 15 / 14 = 1.07 and 16.8 / 14 = 1.20 against 1.15; 160 and 180 CPU-s against 170;
    # (28 - 16) / 16 = 0.75 and (30 - 16) / 16 = 0.875 against 0.77; li2011's efficiency 80 / 75 = 1.07
    work, efficiency, _, li2011, _ = verdicts((15.0, 15.0, 16.8), (160.0, 160.0, 180.0), (28.0, 28.0, 30.0))
    straddle = "not resolved (rounds on both sides of the limit)"
    assert (work, efficiency, li2011) == (straddle, straddle, straddle + " / yes")
    work, efficiency, _, li2011, _ = verdicts((16.8, 16.8, 16.8), (180.0, 190.0, 175.0), (30.0, 30.0, 30.0))
    assert (work, efficiency, li2011) == ("**no**", "**no**", "**no** / yes")
    work, efficiency, _, li2011, _ = verdicts((15.0, 15.0, 15.0), (160.0, 150.0, 165.0), (28.0, 28.0, 28.0))
    assert (work, efficiency, li2011) == ("yes", "yes", "yes / yes")


def test_wall_clock_ratios_measured_under_load_are_not_stored():
    from benchmarks import cpu_targets

    busy = cpu_targets.stored_entry(_cpu_entry(3.0))
    assert "seconds" not in busy["workload_rounds"][0]["parallel"] and "seconds" not in busy["memory"]
    assert busy["li2011_rounds"][0]["parallel"] == {"cpu_seconds": 160.0}
    rows = {measure: measured for measure, measured, _, _ in cpu_targets.rows(busy)}
    assert rows["parallel efficiency, fixed workload, default `--jobs`"].startswith("not stored (wall clock under load")
    assert cpu_targets.stored_entry(_cpu_entry(0.1)) == _cpu_entry(0.1)


def test_rows_left_out_with_skip_keep_their_stored_figures_marked_as_earlier():
    from benchmarks import cpu_targets

    previous = cpu_targets.stored_entry(_cpu_entry(3.0))
    now = {k: v for k, v in _cpu_entry(0.1).items() if k not in ("li2011_rounds", "bleu_process")}
    kept = cpu_targets.carry_over(now, previous, {"li2011", "bleu"})
    assert kept["li2011_rounds"] == previous["li2011_rounds"] and kept["bleu_process"] == previous["bleu_process"]
    rows = {measure: measured for measure, measured, _, _ in cpu_targets.rows(kept)}
    note = " (not measured this time: kept from an earlier measurement, load average 3.00 at its start)"
    assert rows["li2011 study (`benchmarks/li2011_study.toml`), empty store, default `--jobs`"] == "160.0 CPU-s; efficiency not stored" + note
    assert rows["BLEU orders 1..30, characters, whole processes"] == "2.00 CPU-s against 90.0 for sacrebleu: 45.0×" + note
    # carried again by a later skip, it keeps the load average of the run that measured it
    again = cpu_targets.carry_over(now, kept, {"bleu"})
    assert again["carried_over"] == {"bleu_process": "load average 3.00"} and "li2011_rounds" not in again
    # a row measured this time is not replaced, and nothing is carried from nothing
    assert cpu_targets.carry_over(_cpu_entry(0.1), previous, {"bleu"}) == _cpu_entry(0.1)
    assert cpu_targets.carry_over(now, None, {"li2011", "bleu"}) == now

def test_scaling_document_is_generated_from_the_committed_results():
    from benchmarks.scaling import DOC, document

    assert DOC.read_text(encoding="utf-8") == document(read_results()), (
        "docs/scaling.md differs from benchmarks/results.json: run python -m benchmarks.scaling"
    )


def test_scaling_model_divides_the_work_until_the_longest_task():
    from benchmarks.scaling import study_model

    stages = {"workload": {"segmenters": ["a", "b"], "metrics": ["m1", "m2"]},
              "stages_cpu_seconds": {"statistics: x": 3.0, "answer": 1.0, "imports": 1.5, "kernels m1": 0.5,
                                     "reading corpus and judgments": 0.5, "command line, rest": 0.5}}
    seg = {"segmentation_cpu_seconds": 10.0, "metric_cpu_seconds": {"1-ter": 4.0, "chrf": 2.0}, "pairs": 634 * 2,
           "peak_rss_mb": 700.0, "segmenter_rss_mb": 500.0}
    costs = {"metrics": ["1-ter", "chrf"], "datasets": {"d": {"s1": seg, "s2": dict(seg, segmenter_rss_mb=100.0)}}}
    model = study_model(costs, stages)  # fmt: skip
    d = model["datasets"]["d"]
    # statistics: 4 CPU-s over the fixed workload's 4 configurations = 1 per configuration; chrF once
    assert (d["segmentation"], d["scoring"], d["statistics"]) == (20.0, 10.0, 4.0)
    # TER splits the 2 systems apart (4 / 2), chrF scores both in one task (2)
    assert d["longest_task"] == 2.0
    assert d["worker_mb_keeping_models"] == 200.0 + 500.0 + 100.0
    assert model["seconds"][1] == 1.0 + 34.0 + 2.0 and model["seconds"][64] == 1.0 + 2.0 + 2.0
    # chrF taking longer over both systems than TER over one: that task is the longest
    seg["metric_cpu_seconds"] = {"1-ter": 4.0, "chrf": 2.5}
    assert study_model(costs, stages)["datasets"]["d"]["longest_task"] == 2.5
