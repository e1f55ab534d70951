"""LaTeX output: escaping, one booktabs table per section, the signature as comments."""

from __future__ import annotations

import re

import pandas as pd

from metaeval.report.latex import latex_table, tex_escape
from metaeval.report.leaderboard import render


def test_escape_prints_every_character_as_written() -> None:
    assert tex_escape("a_b & 50% #1 {x} $y ~ ^ \\") == (
        r"a\_b \& 50\% \#1 \{x\} \$y \textasciitilde{} \textasciicircum{} \textbackslash{}"
    )


def test_leaderboard_latex_has_a_table_per_section_and_bold_best() -> None:
    results = pd.DataFrame({
        "dataset": ["d"] * 4, "metric": ["bleu", "bleu", "ter", "ter"], "segmenter": ["char", "jieba"] * 2,
        "judgment_kind": ["esa"] * 4, "level": ["seg"] * 4, "statistic": ["acc_eq"] * 4, "grouping": ["item"] * 4,
        "value": [0.5, 0.4, 0.3, 0.35], "epsilon": [0.0, 0.01, 0.0, 0.0],
    })  # fmt: skip
    text = render(results, {"seed": 1}, "latex", layout="table")
    assert text.startswith("% metaeval leaderboard: d\n% seed: 1\n")
    # the answer's table, then one table per section
    assert text.count(r"\begin{table}") == 2 and r"\toprule" in text and r"\bottomrule" in text
    assert text.index(r"\caption{Answer: character level") < text.index(r"\caption{d, kind=esa")
    assert r"\textbf{0.500}" in text and r"\textbf{0.350}" in text and "acc\\_eq" in text
    ranked = render(results, None, "latex", layout="ranked")
    assert "epsilon" in ranked and "0.01" in ranked


def test_any_frame_as_latex() -> None:
    text = latex_table(pd.DataFrame({"config": ["bleu+char"], "p_value": [0.000128]}), caption="Williams")
    assert r"bleu+char & 0.0001 \\" in text and r"\caption{Williams}" in text


def test_latex_opens_with_the_verdict_and_answer_and_captions_only_name_tables() -> None:
    results = pd.DataFrame({
        "dataset": ["d"] * 4, "metric": ["bleu", "bleu", "nist", "nist"], "segmenter": ["char", "jieba"] * 2,
        "judgment_kind": ["esa"] * 4, "level": ["seg"] * 4, "statistic": ["consistency"] * 4, "grouping": ["segment"] * 4,
        "value": [0.5, 0.4, 0.3, 0.35], "ci_low": [0.45, 0.35, 0.25, 0.3], "ci_high": [0.55, 0.45, 0.35, 0.4],
    })  # fmt: skip
    text = render(results, {"seed": 1}, "latex", layout="table")
    assert text.index(r"\paragraph{Verdict.}") < text.index(r"\begin{table}")
    assert "Segment level (esa)" in text
    captions = re.findall(r"\\caption\{([^}]*)\}", text)
    assert len(captions) == 2 and all("Bold:" not in c and "delta =" not in c for c in captions)
    assert r"\par\footnotesize Bold: best in column" in text and r"\item[consistency]" in text


def test_a_frame_as_latex_is_one_line_per_row_after_its_package_note() -> None:
    lines = latex_table(pd.DataFrame({"a": [1.5, 2.0]}), caption="c").split("\n")
    assert lines[0] == "% needs \\usepackage{booktabs}" and lines[1].startswith("\\begin{table}")
    assert not any("XX" in line for line in lines)
