"""The README's findings are copied from the committed result files, and the Denoual & Lepage
results are pinned: M* = 18 (Japanese→English), 20 (German→English), 7–8 (Chinese, Japanese).

Each check rebuilds the README's wording from the files in ``experiments/results/`` and looks
for it in README.md, so a rerun that moves a number, or an edit of the README that is not
copied from the files, fails here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "experiments" / "results"
README = (REPO / "README.md").read_text(encoding="utf-8")
DL = json.loads((RESULTS / "denoual2005" / "results.json").read_text(encoding="utf-8"))["runs"]
LI = pd.read_csv(RESULTS / "li2011" / "results.tsv", sep="\t", keep_default_na=False)
TESTS = pd.read_csv(RESULTS / "li2011" / "char_vs_word.tsv", sep="\t")
CJK_RUNS = ("wmt24-esa_en-zh.jieba", "wmt24-esa_en-zh.pkuseg", "wmt21_en-zh.jieba", "wmt21_en-zh.pkuseg",
            "wmt24-esa_en-ja.mecab", "wmt21_en-ja.mecab")


def n4(run: str) -> dict:
    (row,) = [r for r in DL[run]["tables"]["orders"] if r["N"] == 4]
    return row


def readme_section(title: str) -> str:
    start = README.index(title)
    end = README.find("\n## ", start)
    return README[start : end if end > 0 else None]


def prose(title: str) -> str:
    """A section with every run of whitespace (line breaks included) as one space."""
    return " ".join(readme_section(title).split())


def f3(value: float) -> str:
    return f"{value:.3f}"


def minus(text: str) -> str:
    """The README writes negative numbers with a typographic minus."""
    return text.replace("-", "−")


# ------------------------------------------------------------------ Denoual & Lepage 2005


def test_m_star_pinned():
    assert n4("wmt21_ja-en.13a")["analogical_M"] == 18
    assert n4("wmt21_de-en.13a")["analogical_M"] == 20
    assert {run: n4(run)["analogical_M"] for run in CJK_RUNS} == {
        "wmt24-esa_en-zh.jieba": 7, "wmt24-esa_en-zh.pkuseg": 8, "wmt21_en-zh.jieba": 8,
        "wmt21_en-zh.pkuseg": 8, "wmt24-esa_en-ja.mecab": 8, "wmt21_en-ja.mecab": 8,
    }  # fmt: skip
    for run in DL:
        row = n4(run)
        assert row["analogical_fraction"] >= 0.9  # the 90% criterion holds at M*
        agreement = next(r for r in DL[run]["tables"]["ranking_agreement"] if r["N"] == 4)
        assert agreement["M_star"] == row["analogical_M"] and agreement["criterion"] == "analogical"


def test_m_star_is_the_first_order_reaching_ninety_percent():
    for run in DL:
        fractions = [r["N=4"] for r in DL[run]["tables"]["analogical"]]
        first = next(i + 1 for i, f in enumerate(fractions) if f >= 0.9)
        assert n4(run)["analogical_M"] == first


DL_TABLE = {
    # README row label -> the runs its cells come from, in the order of "a / b" cells
    "WMT21 Japanese→English, 16 systems": ("wmt21_ja-en.13a",),
    "WMT21 German→English, 19 systems, 2 refs": ("wmt21_de-en.13a",),
    "WMT24 English→Chinese": ("wmt24-esa_en-zh.jieba", "wmt24-esa_en-zh.pkuseg"),
    "WMT21 English→Chinese": ("wmt21_en-zh.jieba", "wmt21_en-zh.pkuseg"),
    "WMT24 English→Japanese": ("wmt24-esa_en-ja.mecab",),
    "WMT21 English→Japanese": ("wmt21_en-ja.mecab",),
}


def test_denoual_table_in_the_readme_is_copied_from_the_results():
    section = readme_section("### Denoual & Lepage 2005")
    rows = {cells[0]: cells for cells in (
        [c.strip() for c in line.strip("|").split("|")] for line in section.splitlines() if line.startswith("| WMT"))}
    assert set(rows) == set(DL_TABLE)
    for label, runs in DL_TABLE.items():
        cells = rows[label]
        pearson = " / ".join(str(n4(r)["pearson_M"]) for r in runs)
        kappa = " / ".join(str(n4(r)["kappa_M"]) for r in runs)
        analogical = " / ".join(str(n4(r)["analogical_M"]) for r in runs)
        assert re.sub(r" \(r = [.0-9]+\)", "", cells[2]) == pearson
        assert cells[3] == kappa
        assert cells[4].strip("*") == analogical
        n_systems = {DL[r]["signature"]["n_systems"] for r in runs}
        match = re.search(r"(\d+) systems", label)
        if match:
            assert n_systems == {int(match.group(1))}
    ja = n4("wmt21_ja-en.13a")
    assert f"(r = {f3(ja['pearson'])[1:]})" in rows["WMT21 Japanese→English, 16 systems"][2]


def test_denoual_prose_is_copied_from_the_results():
    section = prose("### Denoual & Lepage 2005")
    english = [n4(r)["analogical_M"] for r in ("wmt21_ja-en.13a", "wmt21_de-en.13a")]
    english += [n4(r)["pearson_M"] for r in ("wmt21_ja-en.13a", "wmt21_de-en.13a")]
    assert f"four words behave like {min(english)}–{max(english)} characters" in section
    cjk = [n4(r)["analogical_M"] for r in CJK_RUNS]
    assert f"four words behave like {min(cjk)}–{max(cjk)} characters" in section
    ratios = []
    for run in CJK_RUNS:
        lengths = {(r["texts"], r["unit"]): r["mean"] for r in DL[run]["tables"]["lengths"]}
        ratios.append(lengths[("references", "characters")] / lengths[("references", "words")])
    assert f"a word averages {min(ratios):.1f}–{max(ratios):.1f} characters" in section
    spearman = {}
    for run in ("wmt21_ja-en.13a", "wmt21_de-en.13a"):
        spearman[run] = next(r for r in DL[run]["tables"]["ranking_agreement"] if r["N"] == 4)["spearman"]
    assert f"Japanese→English Spearman {f3(spearman['wmt21_ja-en.13a'])}" in section
    assert f"German→English {f3(spearman['wmt21_de-en.13a'])}" in section
    assert f"M* = {n4('wmt21_ja-en.13a')['analogical_M']} and {n4('wmt21_de-en.13a')['analogical_M']}" in section


# ------------------------------------------------------------------ Li, Zong & Ng 2011

HUMAN = {"ESA": "esa", "ESA z": "esa_z", "DA z": "da_z", "DA+SQM z": "dasqm_z_mean"}
DATA = {"WMT24": "wmt24-esa/en-", "MLQE-PE": "mlqe-pe/en-", "WMT21": "wmt21/en-", "WMT23": "wmt23/en-",
        "WMT21 (refs A, B, A+B)": "wmt21/en-"}


def headline_rows() -> pd.DataFrame:
    lines = (RESULTS / "li2011" / "summary.md").read_text(encoding="utf-8").split("## Every comparison")[0].splitlines()
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in lines if line.startswith(("| Chinese", "| Japanese"))]
    return pd.DataFrame(rows, columns=["language", "level", "statistic", "human", "datasets", "comparisons", "char", "words", "mean"])


def test_li_table_in_the_readme_is_copied_from_the_summary():
    section = readme_section("### Li, Zong & Ng 2011")
    summary = headline_rows()
    readme_rows = [[c.strip() for c in line.strip("|").split("|")] for line in section.splitlines()
                   if line.startswith(("| Chinese", "| Japanese"))]
    assert len(readme_rows) >= 10
    for language, level, statistic, human, data, char, words, mean in readme_rows:
        kind = HUMAN[human]
        prefix = DATA[data] + ("zh" if language == "Chinese" else "ja")
        match = summary[(summary.language == language) & (summary.level == level)
                        & (summary.statistic == statistic.lower()) & (summary.human == kind)
                        & summary.datasets.str.startswith(prefix)]
        assert len(match) == 1, (language, level, statistic, human, data)
        row = match.iloc[0]
        count, significant = re.fullmatch(r"(\d+) \((\d+)\)", row.char).groups()
        assert char == f"{count} of {row.comparisons} ({significant})"
        assert words == row.words
        assert mean == minus(row["mean"])


def li_tests(dataset: str, level: str, statistic: str, kind: str) -> pd.DataFrame:
    chosen = TESTS[(TESTS.dataset == dataset) & (TESTS.level == level) & (TESTS.statistic == statistic)
                   & (TESTS.judgment_kind == kind) & (TESTS.metric != "chrf")]
    assert len(chosen) == 5
    return chosen.set_index("metric")


def test_li_segment_level_prose_is_copied_from_the_results():
    section = prose("### Li, Zong & Ng 2011")
    zh = li_tests("wmt24-esa/en-zh", "seg", "consistency", "esa")
    assert (f"pairwise consistency (ties excluded) {f3(zh.char.min())}–{f3(zh.char.max())} for `char` against "
            f"{f3(zh.best_word_value.min())}–{f3(zh.best_word_value.max())} for the best word level") in section
    pearson = li_tests("wmt24-esa/en-zh", "seg", "pearson", "esa_z")
    assert f"higher by {f3(pearson.delta.min())}–{f3(pearson.delta.max())}" in section
    bleu = pearson.loc["bleu"]
    assert f"(BLEU {f3(bleu.char)} against {f3(bleu.best_word_value)} for {bleu.best_word};" in section
    # "no bootstrap sample reversed the sign, p < 0.002": p = 0 of 1000 samples
    assert (pearson.loc[["bleu", "nist", "meteor", "gtm"]].p_value == 0).all()
    assert pearson.loc["1-ter"].p_value > 0
    ja_cons = li_tests("wmt24-esa/en-ja", "seg", "consistency", "esa").loc["meteor"]
    ja_pear = li_tests("wmt24-esa/en-ja", "seg", "pearson", "esa_z").loc["1-ter"]
    assert f"METEOR's consistency ({f3(ja_cons.char)} against {f3(ja_cons.best_word_value)} for MeCab)" in section
    assert f"1−TER's Pearson ({f3(ja_pear.char)} against {f3(ja_pear.best_word_value)})" in section
    assert ja_cons.p_value > 0.05 and ja_pear.p_value > 0.05 and ja_cons.delta < 0 and ja_pear.delta < 0
    percent = round(100 * pd.concat([zh.char, zh.best_word_value]).mean())
    assert f"about {percent}% of the human-distinguished pairs" in section


def test_li_system_level_prose_is_copied_from_the_results():
    section = prose("### Li, Zong & Ng 2011")
    sys_tests = TESTS[(TESTS.level == "sys") & (TESTS.statistic == "spearman") & (TESTS.metric != "chrf")]  # the prose counts Spearman
    zh = sys_tests[sys_tests.dataset.str.contains("en-zh")]
    ja = sys_tests[sys_tests.dataset.str.contains("en-ja")]
    words_zh = int(((zh.delta < 0) & (zh.p_value <= 0.05)).sum())
    char_zh = int(((zh.delta > 0) & (zh.p_value <= 0.05)).sum())
    words_ja = int(((ja.delta < 0) & (ja.p_value <= 0.05)).sum())
    assert (f"{words_zh} of {len(zh)} for words and {char_zh} of {len(zh)} for characters in Chinese, "
            f"{words_ja} of {len(ja)} for words in Japanese") in section
    adjusted = {name: int(((t.delta < 0 if side == "words" else t.delta > 0) & (t.p_adjusted <= 0.05)).sum())
                for name, t, side in (("words_zh", zh, "words"), ("char_zh", zh, "char"), ("words_ja", ja, "words"))}
    char_zh_adj = "none" if adjusted["char_zh"] == 0 else str(adjusted["char_zh"])
    assert (f"after Holm over each row's five metrics, {adjusted['words_zh']} for words and {char_zh_adj} for characters "
            f"in Chinese, {adjusted['words_ja']} for words in Japanese") in section
    systems = LI[(LI.level == "sys") & (LI.statistic == "spearman") & (LI.value != "")].n.astype(int)
    assert f"With {systems.min()}–{systems.max()} strong systems" in section
    summary = headline_rows()
    means = summary[(summary.level == "sys") & (summary.statistic == "spearman")]["mean"].astype(float)
    assert f"mean Δ {minus(f'{means.max():.2f}')} to {minus(f'{means.min():.2f}')} Spearman" in section


def test_li_reference_and_hter_prose_is_copied_from_the_results():
    section = prose("### Li, Zong & Ng 2011")
    refs = LI[(LI.level == "sys") & (LI.statistic == "spearman") & (LI.judgment_kind == "da_z")
              & LI.dataset.str.startswith("wmt21/en-zh ")]
    value = lambda dataset, metric, seg: float(
        refs[(refs.dataset == dataset) & (refs.metric == metric) & (refs.segmenter == seg)].value.iloc[0])
    a, b, ab = "wmt21/en-zh ref A", "wmt21/en-zh ref B", "wmt21/en-zh refs A+B"
    assert (f"METEOR {f3(value(a, 'meteor', 'cjk-char'))} with reference A, against {f3(value(a, 'meteor', 'char'))} "
            f"for `char` and {f3(value(a, 'meteor', 'pkuseg'))} for pkuseg") in section
    assert (f"BLEU at word level: {f3(value(a, 'bleu', 'pkuseg'))} with A, {f3(value(b, 'bleu', 'pkuseg'))} with B, "
            f"{f3(value(ab, 'bleu', 'pkuseg'))} with both for pkuseg") in section
    hter = LI[(LI.dataset == "mlqe-pe/en-zh-test20") & (LI.judgment_kind == "hter") & (LI.statistic == "pearson") & (LI.level == "seg")
              & (LI.metric == "1-ter")].set_index("segmenter").value.astype(float)
    # HTER is lower-is-better: the README gives the magnitude of r
    assert f"(jieba r = {f3(abs(hter['jieba']))}, characters {f3(abs(hter['char']))})" in section


@pytest.mark.parametrize("study", ["li2011", "denoual2005"])
def test_runtimes_in_the_readme_are_the_recorded_ones(study):
    """The run time beside each study's command is the one its last full run recorded."""
    runtime = json.loads((RESULTS / study / "runtime.json").read_text(encoding="utf-8"))
    minutes = round(runtime["seconds"] / 60)
    line = next(line for line in README.splitlines() if line.startswith(f"python -m experiments.{study} "))
    assert f"# {minutes} minutes on {runtime['cpus']} " in line and "(runtime.json)" in line
    if "warm_seconds" in runtime:  # a second run, reading what the first one stored
        assert f", {round(runtime['warm_seconds'])} s on a second run " in line
    if study == "li2011":  # the CPU time of both runs, in the paragraph after the command
        text = " ".join(README.split())
        assert f"used {runtime['cpu_seconds']:.1f} CPU seconds (`cpu_seconds`; load average {runtime['load_average_at_start']:.1f} at its start)" in text
        assert f"used {runtime['warm_cpu_seconds']:.1f} CPU seconds (`warm_cpu_seconds`)" in text


@pytest.mark.parametrize("quote", ["BLEU 0.97 against 0.89–0.91 on NIST'08", "the paper reports 17–18"])
def test_numbers_from_the_papers_are_marked_as_quotations(quote):
    """Figures of the papers are not in the result files: the README must say they are quoted."""
    text = " ".join(README.split())
    index = text.index(quote)
    start = text.rfind(". ", 0, index) + 2
    end = text.find(". ", index)
    assert "quoted" in text[start:end], text[start:end]
