"""The analysis code of the Li et al. 2011 reproduction on hand-built tables: the best word-level
segmenter, the char-vs-word rows, the headline counts and the Markdown built from them."""

from __future__ import annotations

import json
import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import experiments.li2011.__main__ as li
from experiments.li2011.config import Dataset


def config(metric: str, segmenter: str) -> SimpleNamespace:
    return SimpleNamespace(metric=metric, segmenter=segmenter)


def fake_measure(values: dict[tuple[str, str], float], samples: dict[tuple[str, str], np.ndarray], calls: list):
    """A stand-in for metaeval.stats.paired.measure: each given configuration's item, with the
    value and the bootstrap samples chosen here (none where ``samples`` has none)."""
    from metaeval.stats.result import Correlation

    def measure(configs, judgments, kind, statistic, level, *, grouping, n_bootstrap, seed, store=None):
        calls.append({"segmenters": [c.segmenter for c in configs], "kind": kind, "statistic": statistic, "level": level,
                      "grouping": grouping, "n_bootstrap": n_bootstrap, "seed": seed})
        return [SimpleNamespace(config=c, result=Correlation(values[(c.metric, c.segmenter)], samples=samples.get((c.metric, c.segmenter))))
                for c in configs]

    return measure


DS = Dataset("wmt24-esa/en-zh", "wmt24-esa/en-zh", "test", tables=())


def test_char_against_the_best_word_segmenter_chosen_in_each_resample(monkeypatch):
    configs = [config("bleu", s) for s in ("char", "cjk-char", "jieba", "pkuseg")] + [
        config("ter", s) for s in ("pkuseg", "jieba", "char")
    ] + [config("chrf", s) for s in ("char", "jieba")]
    values = {
        ("bleu", "char"): 0.50, ("bleu", "cjk-char"): 0.90, ("bleu", "jieba"): 0.40, ("bleu", "pkuseg"): 0.45,
        ("ter", "char"): 0.30, ("ter", "jieba"): 0.35, ("ter", "pkuseg"): 0.20, ("chrf", "char"): 0.6, ("chrf", "jieba"): 0.6,
    }  # fmt: skip
    # ten resamples: char drops to 0.40 in the first two, jieba rises to 0.55 in the sixth
    char = np.full(10, 0.50)
    char[:2] = 0.40
    jieba = np.full(10, 0.40)
    jieba[5] = 0.55
    ter_char = np.full(10, 0.30)
    ter_char[:3] = 0.40
    samples = {
        ("bleu", "char"): char, ("bleu", "jieba"): jieba, ("bleu", "pkuseg"): np.full(10, 0.45),
        ("ter", "char"): ter_char, ("ter", "jieba"): np.full(10, 0.35), ("ter", "pkuseg"): np.full(10, 0.20),
        ("chrf", "char"): np.full(10, 0.6), ("chrf", "jieba"): np.full(10, 0.6),
    }  # fmt: skip
    calls: list = []
    monkeypatch.setattr(li, "measure", fake_measure(values, samples, calls))
    study = SimpleNamespace(configs=configs)
    rows = li.char_vs_word(study, "J", DS, " ref A", "esa", "seg", "consistency", "none", 77)
    assert [r["metric"] for r in rows] == ["bleu", "ter", "chrf"]
    bleu, ter, chrf = rows
    # cjk-char (0.90) is not a word-level segmenter; pkuseg 0.45 beats jieba 0.40 on the full sample
    assert bleu["best_word"] == "pkuseg" and bleu["best_word_value"] == 0.45
    assert bleu["char"] == 0.50 and bleu["delta"] == pytest.approx(0.05, abs=1e-15)
    # in each resample char meets the larger of jieba and pkuseg: 0.45, but 0.55 in the sixth, so
    # the difference is -0.05 in resamples 1, 2 and 6 and +0.05 elsewhere: p = 2 * 3 / 10
    differences = [-0.05, -0.05, 0.05, 0.05, 0.05, -0.05, 0.05, 0.05, 0.05, 0.05]
    assert bleu["p_value"] == pytest.approx(0.6)
    assert (bleu["delta_ci_low"], bleu["delta_ci_high"]) == pytest.approx(tuple(np.quantile(differences, [0.025, 0.975])), abs=1e-12)
    # ter: jieba is best in every resample; char is behind except in the first three (0.40 > 0.35)
    assert ter["best_word"] == "jieba" and ter["delta"] == pytest.approx(-0.05, abs=1e-15) and ter["p_value"] == pytest.approx(0.6)
    # the family is bleu and ter (chrF is left out): Holm gives 2 * 0.6 -> 1 for both
    assert bleu["p_adjusted"] == ter["p_adjusted"] == 1.0 and math.isnan(chrf["p_adjusted"])
    assert bleu["dataset"] == "wmt24-esa/en-zh ref A"
    assert {k: bleu[k] for k in ("judgment_kind", "level", "statistic", "grouping")} == {
        "judgment_kind": "esa", "level": "seg", "statistic": "consistency", "grouping": "none"}
    # measure sees char and the word segmenters only, with the options given and the study seed
    assert calls[0] == {"segmenters": ["char", "jieba", "pkuseg"], "kind": "esa", "statistic": "consistency", "level": "seg",
                        "grouping": "none", "n_bootstrap": 77, "seed": li.SEED}
    assert calls[1]["segmenters"] == ["pkuseg", "jieba", "char"]
    # without adjustment the word segmenter is the full sample's best, pkuseg: char is behind it in two resamples
    fixed = li.char_vs_word(study, "J", DS, " ref A", "esa", "seg", "consistency", "none", 77, adjust="none")
    assert fixed[0]["p_value"] == pytest.approx(0.4) and fixed[0]["p_adjusted"] == fixed[0]["p_value"]


def test_equal_word_values_pick_the_first_name_alphabetically(monkeypatch):
    configs = [config("bleu", s) for s in ("pkuseg", "char", "jieba")]
    values = {("bleu", "char"): 0.3, ("bleu", "jieba"): 0.4, ("bleu", "pkuseg"): 0.4}
    monkeypatch.setattr(li, "measure", fake_measure(values, {}, []))
    rows = li.char_vs_word(SimpleNamespace(configs=configs), None, DS, "", "esa", "sys", "spearman", "none", 10)
    assert rows[0]["best_word"] == "jieba"


def test_metrics_without_char_or_words_are_skipped(monkeypatch):
    configs = [config("chrf", "char"), config("nist", "jieba"), config("nist", "pkuseg"),
               config("gtm", "char"), config("gtm", "cjk-char")]
    values = {("chrf", "char"): 0.1, ("nist", "jieba"): 0.2, ("nist", "pkuseg"): 0.3, ("gtm", "char"): 0.4,
              ("gtm", "cjk-char"): 0.5}
    calls: list = []
    monkeypatch.setattr(li, "measure", fake_measure(values, {}, calls))
    rows = li.char_vs_word(SimpleNamespace(configs=configs), None, DS, "", "esa", "seg", "pearson", "none", 10)
    assert rows == []
    assert [c["segmenters"] for c in calls] == [["jieba", "pkuseg"]]  # chrf and gtm have < 2 candidates


def test_without_samples_p_and_interval_are_undefined_and_an_undefined_side_is_skipped(monkeypatch):
    configs = [config("bleu", "char"), config("bleu", "mecab"), config("nist", "char"), config("nist", "mecab")]
    values = {("bleu", "char"): 0.3, ("bleu", "mecab"): 0.2, ("nist", "char"): float("nan"), ("nist", "mecab"): 0.2}
    monkeypatch.setattr(li, "measure", fake_measure(values, {}, []))
    rows = li.char_vs_word(SimpleNamespace(configs=configs), None, DS, "", "esa", "seg", "pearson", "none", 10)
    assert len(rows) == 1 and math.isnan(rows[0]["p_value"]) and rows[0]["delta"] == pytest.approx(0.1)
    assert math.isnan(rows[0]["delta_ci_low"]) and math.isnan(rows[0]["delta_ci_high"]) and math.isnan(rows[0]["p_adjusted"])


def hand_table() -> pd.DataFrame:
    row = lambda dataset, metric, level, statistic, kind, delta, p, adjusted: {
        "dataset": dataset, "metric": metric, "level": level, "statistic": statistic, "judgment_kind": kind, "grouping": "none",
        "char": 0.5 + delta, "best_word": "jieba", "best_word_value": 0.5, "delta": delta, "p_value": p, "p_adjusted": adjusted}
    return pd.DataFrame([
        row("wmt24-esa/en-zh", "bleu", "seg", "consistency", "esa", 0.02, 0.01, 0.05),  # adjusted p == .05 counts
        row("wmt24-esa/en-zh", "nist", "seg", "consistency", "esa", 0.014, 0.03, 0.09),  # significant before adjustment only
        row("wmt24-esa/en-zh", "ter", "seg", "consistency", "esa", -0.03, 0.051, 0.153),  # not significant
        row("wmt24-esa/en-zh", "gtm", "seg", "consistency", "esa", 0.0, 1.0, 1.0),  # neither ahead
        row("wmt24-esa/en-zh", "chrf", "seg", "consistency", "esa", 0.5, 0.0, float("nan")),  # left out
        row("wmt21/en-zh ref A", "bleu", "sys", "spearman", "da_z", -0.1, 0.01, 0.01),
        row("wmt21/en-zh ref B", "bleu", "sys", "spearman", "da_z", 0.2, 0.3, 0.3),
        row("wmt24-esa/en-ja", "bleu", "seg", "consistency", "esa", -0.04, 0.02, 0.02),
    ])  # fmt: skip


def test_headline_counts_by_hand():
    head = li.headline(hand_table())
    assert list(head[["language", "level", "statistic", "human"]].itertuples(index=False, name=None)) == [
        ("Chinese", "seg", "consistency", "esa"), ("Chinese", "sys", "spearman", "da_z"),
        ("Japanese", "seg", "consistency", "esa")]
    zh_seg, zh_sys, ja = (head.iloc[i] for i in range(3))
    assert (zh_seg.comparisons, zh_seg.char_ahead, zh_seg.words_ahead) == (4, 2, 1)
    assert (zh_seg.char_significant, zh_seg.words_significant) == (1, 0)  # the adjusted p-values count
    assert zh_seg.mean_delta == pytest.approx((0.02 + 0.014 - 0.03 + 0.0) / 4, abs=1e-15)
    assert zh_seg.datasets == "wmt24-esa/en-zh"
    assert (zh_sys.comparisons, zh_sys.char_ahead, zh_sys.words_ahead, zh_sys.char_significant, zh_sys.words_significant) == (2, 1, 1, 0, 1)
    assert zh_sys.datasets == "wmt21/en-zh ref A, wmt21/en-zh ref B"
    assert zh_sys.mean_delta == pytest.approx(0.05, abs=1e-15)
    assert (ja.comparisons, ja.words_ahead, ja.words_significant, ja.char_ahead) == (1, 1, 1, 0)


def test_summary_markdown_rows():
    text = li.summary_markdown(hand_table())
    assert "| Chinese | seg | consistency | esa | wmt24-esa/en-zh | 4 | 2 (1) | 1 (0) | +0.001 |" in text
    assert "| Chinese | sys | spearman | da_z | wmt21/en-zh ref A, wmt21/en-zh ref B | 2 | 1 (0) | 1 (1) | +0.050 |" in text
    assert "| Japanese | seg | consistency | esa | wmt24-esa/en-ja | 1 | 0 (0) | 1 (1) | -0.040 |" in text
    assert "| wmt24-esa/en-zh | seg | consistency | esa | ter | 0.470 | jieba | 0.500 | -0.030 | 0.051 | 0.153 |" in text
    # chrF stays in the list of every comparison, out of the counts and the families
    assert "| chrf | 1.000 | jieba | 0.500 | +0.500 | 0.000 |  |" in text


def test_references_markdown_pivots_the_reference_variants():
    rows = []
    for variant, values in ((" ref A", (0.5, 0.6)), (" ref B", (0.4, 0.45)), (" refs A+B", (0.55, 0.61))):
        for segmenter, value in zip(("char", "pkuseg"), values):
            rows.append({"dataset": "wmt21/en-zh" + variant, "level": "sys", "statistic": "spearman", "judgment_kind": "da_z",
                             "metric": "bleu", "segmenter": segmenter, "value": value})
    rows.append({"dataset": "wmt21/en-zh ref A", "level": "sys", "statistic": "pearson", "judgment_kind": "da_z",
                     "metric": "bleu", "segmenter": "char", "value": 0.99})
    rows.append({"dataset": "wmt21/en-ja", "level": "sys", "statistic": "spearman", "judgment_kind": "da_z",
                     "metric": "bleu", "segmenter": "char", "value": 0.98})
    text = li.references_markdown(pd.DataFrame(rows))
    assert "| metric | segmenter | ref A | ref B | refs A+B |" in text
    assert "| bleu | char | 0.500 | 0.400 | 0.550 |" in text
    assert "| bleu | pkuseg | 0.600 | 0.450 | 0.610 |" in text
    assert "0.99" not in text
    assert li.references_markdown(pd.DataFrame(rows[-1:])) == ""


def test_the_study_file_declares_the_datasets_of_the_analysis():
    """study.toml holds what is computed; config.DATASETS what is tabulated: every analysed
    dataset is in the study (WMT21 en-zh once per reference set), in the same order."""
    from types import SimpleNamespace as NS

    from experiments.li2011.config import DATASETS, SPEC
    from metaeval.studyspec import load_spec

    spec = load_spec(SPEC)
    assert spec.settings["seed"] == li.SEED and spec.settings["bootstrap"] == 1000
    assert list(dict.fromkeys(d.path for d in spec.datasets)) == [ds.path for ds in DATASETS]
    variants = [(d.name, d.references) for d in spec.datasets if d.path == "wmt21/en-zh"]
    assert variants == [("wmt21/en-zh ref A", ("A",)), ("wmt21/en-zh ref B", ("B",)), ("wmt21/en-zh refs A+B", ("A", "B"))]
    # the reference variants of a dataset come back labelled, in the study's order
    result = NS(runs=[(d, f"study of {d.name}") for d in spec.datasets])
    wmt21 = next(ds for ds in DATASETS if ds.name == "wmt21/en-zh")
    assert li.dataset_runs(result, wmt21) == [(" ref A", "study of wmt21/en-zh ref A"), (" ref B", "study of wmt21/en-zh ref B"),
                                              (" refs A+B", "study of wmt21/en-zh refs A+B")]  # fmt: skip
    assert li.dataset_runs(result, DATASETS[0]) == [("", "study of wmt24-esa/en-zh")]
    assert Dataset("x/y", "x/y", "d", tables=()).slug == "x_y"
    assert np.isfinite(li.SEED)


def test_runtime_keeps_the_cold_run_beside_the_warm_one(tmp_path):
    from experiments import runtime

    assert runtime.store_is_empty(tmp_path / "store")
    (tmp_path / "store" / "stats").mkdir(parents=True)
    assert runtime.store_is_empty(tmp_path / "store")  # folders only
    (tmp_path / "store" / "stats" / "x.npz").write_bytes(b"x")
    assert not runtime.store_is_empty(tmp_path / "store")
    path = tmp_path / "runtime.json"
    record = {"datasets": ["a", "b"], "jobs": 2}
    runtime.write_runtime(path, 100.04, True, record, {"cpu_seconds": 150.0})
    runtime.write_runtime(path, 9.96, False, record, {"cpu_seconds": 8.0})
    assert json.loads(path.read_text()) == {"seconds": 100.0, "datasets": ["a", "b"], "jobs": 2, "cpu_seconds": 150.0,
                                            "warm_seconds": 10.0, "warm_cpu_seconds": 8.0}  # fmt: skip
    runtime.write_runtime(path, 5.0, False, {"datasets": ["a"], "jobs": 2})  # another set of datasets: no cold run to keep
    assert json.loads(path.read_text()) == {"seconds": 5.0, "datasets": ["a"], "jobs": 2, "warm_seconds": 5.0}
    runtime.write_runtime(path, 50.0, True, record)  # a new cold run drops the old warm one
    assert json.loads(path.read_text()) == {"seconds": 50.0, "datasets": ["a", "b"], "jobs": 2}


def test_an_unknown_dataset_name_is_a_usage_error_naming_the_known_ones(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        li.main(["--only", "wmt21/en-zh refs A+B", "--out", str(tmp_path / "out")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--only: unknown dataset 'wmt21/en-zh refs A+B'; known: wmt24-esa/en-zh," in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()  # refused before any work


def test_analyses_in_worker_processes_come_back_in_dataset_order(monkeypatch):
    import os

    def analyse(result, ds, n_bootstrap, store):  # noqa: ANN001, ANN202
        return pd.DataFrame({"pid": [os.getpid()]}), {"name": ds.name, "n": n_bootstrap}, [ds.name]

    monkeypatch.setattr(li, "analyse_dataset", analyse)
    monkeypatch.setattr(li, "dataset_markdown", lambda ds, results, signature: f"# {ds.name}\n")
    datasets = list(li.DATASETS)
    serial = li.analyse_all(None, datasets, 10, None, 1)
    parallel = li.analyse_all(None, datasets, 10, None, 2)
    assert [r[1:] for r in parallel] == [r[1:] for r in serial] and len(serial) == len(datasets) > 2
    assert {int(r[0].pid[0]) for r in serial} == {os.getpid()}
    assert {int(r[0].pid[0]) for r in parallel} - {os.getpid()}  # computed in the forked workers
    assert li._SHARED == {}  # nothing of the study is kept after the analyses
