"""Leaderboard rendering: layouts, formats, best cells, undefined rows, escaping, determinism."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from metaeval.errors import DataError, UsageError
from metaeval.report import FORMATS, render, select
from metaeval.report.html import axis, chart
from metaeval.report.layout import Bar
from metaeval.report.results import competition_ranks, flatten_signature
from metaeval.report.text import display_width

from .conftest import HOSTILE, NAN, result_row, toy_rows, toy_signature


def md_tables(text: str) -> list[list[list[str]]]:
    """Markdown tables as lists of rows of cells (split on unescaped pipes)."""
    tables, current = [], []
    for line in text.splitlines():
        if line.startswith("|"):
            current.append([c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]])
        elif current:
            tables.append(current)
            current = []
    if current:
        tables.append(current)
    return tables


# ---------------------------------------------------------------- ranking helpers


def test_competition_ranks_by_hand():
    # values 0.5, 0.7, 0.7, NaN: two values above 0.5 -> rank 3; none above 0.7 -> rank 1 (twice).
    ranks = competition_ranks(np.array([0.5, 0.7, 0.7, NAN]))
    assert ranks[:3].tolist() == [3.0, 1.0, 1.0]
    assert np.isnan(ranks[3])


def test_select_filters_and_names_what_is_present(results):
    seg = select(results, level="seg", metric=["nist"])
    assert sorted(seg["segmenter"]) == ["char", "jieba", "pkuseg"]
    with pytest.raises(UsageError, match=r"no results with level 'doc'; present: 'seg', 'sys'"):
        select(results, level="doc")
    with pytest.raises(UsageError, match="cannot select on 'colour'"):
        select(results, colour="red")


def test_missing_required_column_is_a_data_error(results):
    with pytest.raises(DataError, match="missing column\\(s\\) value"):
        render(results.drop(columns=["value"]), None, "text")


@pytest.mark.parametrize("kwargs, message", [
    ({"format": "pdf"}, "unknown format 'pdf'; known formats: text, markdown, csv, tsv, json, html"),
    ({"layout": "wide"}, "unknown layout 'wide'; known layouts: ranked, table"),
    ({"digits": -1}, "digits must be an integer from 0 to 12"),
])  # fmt: skip
def test_bad_options_are_usage_errors(results, kwargs, message):
    with pytest.raises(UsageError, match=re.escape(message)):
        render(results, None, **kwargs)


# ---------------------------------------------------------------- ranked layout


def test_ranked_text_orders_by_value_with_undefined_last(results, signature):
    text = render(results, signature, "text")
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("toy-zh, kind=rank, level=seg"))
    header = lines[start + 2].split()
    assert header[:8] == ["rank", "cluster", "metric", "segmenter", "value", "95%", "CI", "n"]
    assert "C" in header and "D" in header and "note" in header
    body = lines[start + 4 : start + 10]
    # 0.700 > 0.693 > 0.660 > 0.650 > 0.640, then the undefined nist/pkuseg.
    got = [(row.split()[0], row.split()[1], row.split()[2], row.split()[3]) for row in body[:5]]
    assert got == [("1", "nist", "char", "0.700"), ("2", "bleu", "char", "0.693"), ("3", "nist", "jieba", "0.660"),
                   ("4", "bleu", "pkuseg", "0.650"), ("5", "bleu", "jieba", "0.640")]  # fmt: skip
    assert body[5].split()[:3] == ["nist", "pkuseg", "n/a"]
    assert body[5].endswith("undefined: no comparable pairs")
    # counts C, D, metric ties, human ties of bleu/char: 693 307 4 11
    assert "693  307            4          11" in body[1]


def test_ranked_uses_given_rank_and_cluster(results):
    results = results.assign(rank=[2, 5, 4, 1, 3, NAN, 1], cluster=["a", "b", "b", "a", "b", "", "a"])
    text = render(results, False, "text")
    row = next(line for line in text.splitlines() if " bleu " in line and "0.693" in line)
    assert row.split()[:2] == ["2", "a"]


def test_ties_in_value_break_by_metric_then_segmenter():
    rows = [result_row("nist", "char", "pearson", 0.5), result_row("bleu", "jieba", "pearson", 0.5),
            result_row("bleu", "char", "pearson", 0.5)]  # fmt: skip
    md = render(pd.DataFrame(rows), False, "markdown")
    body = md_tables(md)[1][2:]  # [0] is the answer
    assert [(r[0], r[2], r[3]) for r in body] == [("1", "bleu", "char"), ("1", "bleu", "jieba"), ("1", "nist", "char")]


def test_markdown_ranked_structure(results, signature):
    md = render(results, signature, "markdown")
    assert md.startswith("# metaeval leaderboard: toy-zh\n")
    assert md.index("## Answer") < md.index("## toy-zh") < md.index("signature: ")
    tables = md_tables(md)[1:]
    assert len(tables) == 2  # seg consistency and sys spearman
    seg = tables[0]
    width = len(seg[0])
    assert all(len(row) == width for row in seg)
    assert seg[1] == ["---:", "---:", ":---", ":---", "---:", ":---", "---:", "---:", "---:", "---:", "---:", ":---"]
    assert len(seg) == 2 + 6
    assert seg[2][:7] == ["1", "", "nist", "char", "0.700", r"\[0.680, 0.720\]", "1000"]
    assert seg[7][2:5] == ["nist", "pkuseg", "n/a"] and seg[7][-1] == "undefined: no comparable pairs"
    # The sys-level table has no pair counts: grouping is empty and the statistic is not counted.
    assert tables[1][0] == ["rank", "cluster", "metric", "segmenter", "value", "95% CI", "n"]


# ---------------------------------------------------------------- table layout (Li et al. 2011)


def test_table_layout_text_marks_best_cell_per_column(results, signature):
    text = render(select(results, level="seg"), signature, "text", layout="table")
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("segmenter"))
    assert lines[head].split() == ["segmenter", "bleu", "nist"]
    rows = {line.split()[0]: line for line in lines[head + 2 : head + 5]}
    # best bleu is char (0.693 > 0.650 > 0.640); best nist is char (0.700 > 0.660; pkuseg undefined)
    assert "0.693 [0.671, 0.712]*" in rows["char"] and "0.700 [0.680, 0.720]*" in rows["char"]
    assert "*" not in rows["jieba"] and "*" not in rows["pkuseg"]
    assert rows["pkuseg"].split()[1:5] == ["0.650", "[0.628,", "0.671]", "n/a"]
    assert "n/a: nist / pkuseg: no comparable pairs" in lines
    assert "* best in column" in lines
    # right-aligned numbers: the last CI bracket of char (marked) and jieba (unmarked) end in the same column,
    # and so do the headers (which leave room for the mark).
    ends = {display_width(lines[i][: lines[i].rindex("]") + 1]) for i in (head + 2, head + 3)}
    assert len(ends) == 1
    assert display_width(lines[head]) == ends.pop()


def test_table_layout_markdown_bold_best(results):
    md = render(select(results, level="seg"), False, "markdown", layout="table")
    table = md_tables(md)[1]
    assert table[0] == ["segmenter", "bleu", "nist"]
    assert table[1] == [":---", "---:", "---:"]
    cells = {row[0]: row[1:] for row in table[2:]}
    assert cells["char"] == [r"**0.693 \[0.671, 0.712\]**", r"**0.700 \[0.680, 0.720\]**"]
    assert cells["jieba"] == [r"0.640 \[0.620, 0.660\]", r"0.660 \[0.640, 0.680\]"]
    assert cells["pkuseg"] == [r"0.650 \[0.628, 0.671\]", "n/a"]
    assert "- n/a: nist / pkuseg: no comparable pairs" in md


def test_table_layout_marks_every_tied_best():
    rows = [result_row("bleu", "char", "pearson", 0.8), result_row("bleu", "jieba", "pearson", 0.8),
            result_row("bleu", "pkuseg", "pearson", 0.7)]  # fmt: skip
    cells = {r[0]: r[1] for r in md_tables(render(pd.DataFrame(rows), False, "markdown", layout="table"))[1][2:]}
    assert cells == {"char": "**0.800**", "jieba": "**0.800**", "pkuseg": "0.700"}


def test_table_layout_rejects_two_configs_in_one_cell():
    rows = [result_row("bleu", "char", "pearson", 0.8), result_row("bleu", "char", "pearson", 0.7)]
    rows[1]["config"] = "bleu|smooth:exp"
    with pytest.raises(DataError, match="several rows for metric 'bleu', segmenter 'char'"):
        render(pd.DataFrame(rows), False, "text", layout="table")


# ---------------------------------------------------------------- signature


def test_signature_one_line_last_full_in_json_and_html_and_omitted_on_request(results, signature):
    for fmt in ("text", "markdown"):
        out = render(results, signature, fmt)
        line = next(x for x in out.splitlines() if x.startswith("signature: "))
        assert "seed:12345" in line.replace("\\", "") and out.rstrip().endswith("in --out)"), fmt
        assert out.index("Answer") < out.index("signature: "), fmt
        assert "jieba-0.42.1|dict:default|hmm:yes" not in out, fmt  # the full signature is not on screen
    html = render(results, signature, "html")
    # the signature is the last section of the page
    assert html.index("Answer") < html.index("<details>") and html.rindex("<section") < html.index("<details>")
    assert "jieba-0.42.1|dict:default|hmm:yes" in html[html.index("<details>"):]
    assert json.loads(render(results, signature, "json"))["signature"]["segmenters"]["jieba"].endswith("hmm:yes")
    for fmt in FORMATS:
        bare = render(results, False, fmt)
        assert "jieba-0.42.1" not in bare and "12345" not in bare, fmt
    # CSV/TSV are plain tables: the signature goes beside them (report.data.write_results)
    assert render(results, signature, "csv").startswith("dataset,metric,segmenter,")
    assert render(results, False, "csv").startswith("dataset,metric,segmenter,")


def test_flatten_signature_sorted_dotted():
    pairs = flatten_signature({"z": 1, "a": {"y": None, "b": [1, "x"]}, "m": "text"})
    assert pairs == [("a.b", '[1, "x"]'), ("a.y", "-"), ("m", "text"), ("z", "1")]


def test_timestamp_only_when_given(results, signature):
    assert "generated" not in render(results, signature, "text")
    assert "generated:2025-01-02T03:04:05Z" in render(results, signature, "text", timestamp="2025-01-02T03:04:05Z")


# ---------------------------------------------------------------- HTML


class TagCollector(HTMLParser):
    VOID = {"meta", "br", "hr", "img", "input", "link"}

    def __init__(self):
        super().__init__()
        self.stack, self.tags, self.errors = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag not in self.VOID and not tag.startswith("svg:"):
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(tag)


def hostile_results() -> tuple[pd.DataFrame, dict]:
    rows = toy_rows()
    rows[0]["segmenter"] = HOSTILE
    rows[1]["metric"] = '"><img src=x onerror=alert(2)>'
    rows[5]["note"] = HOSTILE
    for row in rows:
        row["dataset"] = HOSTILE
    signature = toy_signature()
    signature["segmenters"][HOSTILE] = HOSTILE
    return pd.DataFrame(rows), signature


@pytest.mark.parametrize("layout", ["ranked", "table"])
def test_html_escapes_every_string(layout):
    results, signature = hostile_results()
    page = render(results, signature, "html", layout=layout)
    assert HOSTILE not in page
    assert "<img" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    parser = TagCollector()
    parser.feed(page)
    assert "script" not in parser.tags and "img" not in parser.tags
    assert parser.errors == [] and parser.stack == []


def test_html_is_self_contained_with_chart(results, signature):
    page = render(results, signature, "html")
    assert page.startswith("<!DOCTYPE html>\n") and page.endswith("</html>\n")
    assert "<script" not in page and "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in page and "src=" not in page and "<link" not in page
    assert page.count("<svg ") == 2
    # 5 defined seg values + 1 sys value -> 6 points; the undefined nist/pkuseg has a label and n/a, no point.
    assert page.count("<circle ") == 6
    assert "<title>nist / pkuseg: n/a</title>" in page
    assert "<td>undefined: no comparable pairs</td>" in page


def test_html_chart_geometry_by_hand():
    # consistency values 0.52/0.54, intervals 0.51..0.55, chance 0.5 (within one span): data 0.50..0.55,
    # padded 5% -> [0.4975, 0.5525], step 0.01 (5.5 intervals) -> axis [0.49, 0.56].
    # Labels of one character: left = max(80, 7.3 + 10) = 80 px; the axis spans 360 px.
    # 0.54 -> 80 + 0.05/0.07*360 = 337.1; CI 0.53..0.55 -> 285.7..388.6; reference 0.5 -> 131.4. Row 0 centre: 34 + 10.
    # Without chance levels the line is consistency's tie-free reference, labelled at the line (fraction 0.14: from its start).
    svg = chart([Bar("a", 0.54, 0.53, 0.55), Bar("b", 0.52, 0.51, 0.53)], "t", statistic="consistency")
    assert '<circle cx="337.1" cy="44.0" r="4"' in svg
    assert '<line x1="285.7" y1="44.0" x2="388.6" y2="44.0"' in svg
    assert '<line class="chance" x1="131.4" y1="30.0" x2="131.4"' in svg
    assert '<text x="131.4" y="12" text-anchor="start" fill="#c0392b">tie-free reference 0.5</text>' in svg
    labels = re.findall(r'text-anchor="middle">([^<]+)<', svg)
    assert labels == ["0.49", "0.50", "0.51", "0.52", "0.53", "0.54", "0.55", "0.56"]


def test_html_chart_draws_each_band_and_one_line_over_the_rows():
    # the same bars with chance 0.505 (bands 0.495..0.515) for both: chance inside, so the bands are on the axis too:
    # data 0.495..0.55 padded 5% -> [0.49225, 0.55275]; step 0.02 (0.01 gives 6.05 intervals) -> axis [0.48, 0.56].
    # 0.505 -> 80 + 0.025/0.08*360 = 192.5; band 0.495..0.515 -> 147.5..237.5 (width 90.0), rows at y 34 and 54
    bars = [Bar("a", 0.54, 0.53, 0.55, 0.505, 0.495, 0.515), Bar("b", 0.52, 0.51, 0.53, 0.505, 0.495, 0.515)]
    svg = chart(bars, "t", statistic="consistency")
    assert svg.count('<rect class="chance-band" x="147.5"') == 2 and 'y="37.0" width="90.0" height="14"' in svg
    line = '<line class="chance" x1="192.5" y1="30.0" x2="192.5"'
    assert svg.count('class="chance"') == 1 and line in svg
    assert svg.index(line) > svg.rindex("</g>")  # drawn after the shaded rows, so visible over them
    assert '<text x="192.5" y="12" text-anchor="middle" fill="#c0392b">chance 0.505</text>' in svg
    # levels 0.505 and 0.510 differ by more than a pixel: each row gets its own mark and no line is shared
    apart = chart([bars[0], Bar("b", 0.52, 0.51, 0.53, 0.510, 0.5, 0.52)], "t", statistic="consistency")
    assert apart.count('<line class="chance"') == 2 and "chance band of each configuration" in apart


def test_axis_includes_zero_and_negative_values():
    # values and bounds -0.3..0.45 (span 0.75), chance 0 inside; padded [-0.3375, 0.4875]; step 0.2 (4.1 intervals)
    scale = axis([Bar("a", -0.23, -0.3, -0.1), Bar("b", 0.41, 0.2, 0.45)], "pearson")
    assert (round(scale.low, 9), round(scale.high, 9), scale.step, scale.chance_side) == (-0.4, 0.6, 0.2, "")
    undefined = axis([Bar("a", NAN, NAN, NAN)], "pearson")
    assert undefined.low < 0 < undefined.high


# ---------------------------------------------------------------- determinism


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("layout", ["ranked", "table"])
def test_same_content_gives_same_bytes(results, signature, fmt, layout):
    first = render(results, signature, fmt, layout=layout)
    assert render(results.copy(), dict(signature), fmt, layout=layout) == first
    shuffled = results.sample(frac=1.0, random_state=np.random.default_rng(7).integers(2**31)).reset_index(drop=True)
    reordered_signature = dict(reversed(list(signature.items())))
    assert render(shuffled, reordered_signature, fmt, layout=layout) == first


def test_negative_zero_is_not_printed():
    out = render(pd.DataFrame([result_row("bleu", "char", "pearson", -0.0001, (-0.0004, 0.0002))]), False, "text")
    assert "-0.000" not in out and "0.000 " in out


# ---------------------------------------------------------------- adjusted significance in reports


def test_table_layout_bolds_the_columns_best_and_its_significance_cluster(results):
    # clusters of the ranking: nist/char and bleu/char in 1, nist/jieba and bleu/pkuseg in 2, bleu/jieba in 3
    clustered = results.assign(cluster=["1", "3", "2", "1", "2", "", "1"])
    signature = {"statistics": {"adjust": "holm"}}
    md = render(select(clustered, level="seg"), signature, "markdown", layout="table")
    cells = {row[0]: row[1:] for row in md_tables(md)[1][2:]}
    # bleu: char is best (cluster 1), nobody else is in 1; nist: char best (1), jieba (2) not marked
    assert cells["char"] == [r"**0.693 \[0.671, 0.712\]**", r"**0.700 \[0.680, 0.720\]**"]
    assert cells["jieba"] == [r"0.640 \[0.620, 0.660\]", r"0.660 \[0.640, 0.680\]"]
    same = clustered.assign(cluster=["1", "1", "2", "1", "1", "", "1"])  # jieba joins the best's cluster in both columns
    md = render(select(same, level="seg"), signature, "markdown", layout="table")
    cells = {row[0]: row[1:] for row in md_tables(md)[1][2:]}
    assert cells["jieba"] == [r"**0.640 \[0.620, 0.660\]**", r"**0.660 \[0.640, 0.680\]**"]
    assert cells["pkuseg"] == [r"0.650 \[0.628, 0.671\]", "n/a"]
    assert "Bold: best in column, and every cell of its column in the same significance cluster as it" in md
    assert "Holm-adjusted over the ranking's pairs" in md


@pytest.mark.parametrize(
    ("signature", "wanted"),
    [({"statistics": {"adjust": "holm"}}, "Holm-adjusted over the ranking's pairs"),
     ({"statistics": {"adjust": "bh"}}, "Benjamini-Hochberg-adjusted"),
     ({"statistics": {"adjust": "none"}}, "p-values not adjusted"),
     ({"statistics": {}}, "p-values not adjusted"),  # saved before adjustments existed: raw p-values
     (False, "as the signature's adjust says")],
)  # fmt: skip
def test_the_cluster_note_names_the_adjustment(results, signature, wanted):
    text = render(results.assign(cluster=["1", "2", "2", "1", "2", "", "1"]), signature, "text")
    note = next(line for line in text.splitlines() if line.startswith("cluster:"))
    assert wanted in note


def test_the_answer_footnote_names_the_family_and_the_method():
    from metaeval.answer import answer

    rows = [result_row(m, s, "pearson", v) for m, s, v in
            (("bleu", "char", 0.6), ("bleu", "jieba", 0.5), ("nist", "char", 0.55), ("nist", "jieba", 0.5))]  # fmt: skip
    table = pd.DataFrame(rows)
    samples = np.tile(np.linspace(-0.01, 0.01, 200), (4, 1)) + table["value"].to_numpy()[:, None]
    summary = answer(table, samples, left_out=[])
    for method, said in (("holm", "adjusted by Holm, familywise error rate"), ("bh", "Benjamini-Hochberg, false discovery rate")):
        md = render(table, {"n_bootstrap": 200, "statistics": {"adjust": method}}, "markdown", answer=summary)
        assert "p adjusted: the family is the row's metrics that depend on segmentation" in md and said in md
        assert "the best word-level segmenter is chosen in each resample" in md
    md = render(table, {"n_bootstrap": 200, "statistics": {"adjust": "none"}}, "markdown", answer=answer(table, samples, left_out=[], adjust="none"))
    assert "not adjusted (p adjusted = p)" in md and "the word-level segmenter is the one best on the full sample" in md
    header = md_tables(md)[0][0]
    assert header[7:9] == ["p", "p adjusted"]


def test_markdown_has_no_html_entities_yet_no_live_html():
    """A Markdown page reads as written (``p <= 0.05``, not ``p &lt;= 0.05``), and every ``<``
    that would open a tag is backslash-escaped, so ``<script>`` shows as text."""
    results, signature = hostile_results()
    page = render(results, signature, "markdown")
    assert "&lt;" not in page and "&gt;" not in page and "&amp;" not in page
    assert "adjusted p <= 0.05" in page
    assert re.search(r"(?<!\\)<[A-Za-z/!?]", page) is None and r"\<script>alert(1)\</script>" in page


def test_leaderboard_of_a_folders_results_tsv_shows_the_answer_beside_it(tmp_path, capsys):
    """A study's (or run --out's) results.tsv: the leaderboard takes the intervals and p-values of
    the answer.tsv beside it instead of leaving them empty."""
    from metaeval.cli import main
    from tests.report.test_verdict import answer_row

    results = pd.DataFrame(toy_rows())
    (tmp_path / "results.tsv").write_text(render(results, None, "tsv"), encoding="utf-8")
    answer = pd.DataFrame([answer_row(dataset="toy-zh", judgment_kind="rank", statistic="consistency", grouping="none",
                                      tie_policy="exclude", p_value=0.012, p_adjusted=0.024, delta_ci_low=0.031)])  # fmt: skip
    answer.to_csv(tmp_path / "answer.tsv", sep="\t", index=False)
    assert main(["leaderboard", str(tmp_path / "results.tsv")]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("rank ") and "consistency" in line)
    assert "[+0.031, +0.150]" in row and "0.012" in row and "0.024" in row and "2:0" in row


def test_html_chart_writes_values_to_the_digits_asked_and_labels_left_of_the_axis():
    svg = chart([Bar("a", 0.54321, 0.53, 0.55), Bar("b", 0.52, 0.51, 0.53)], "t", digits=2, statistic="consistency")
    assert "a: 0.54 [0.53, 0.55]" in svg and "0.543" not in svg
    # the labels end 6 px left of the axis, which starts at 80 px (see the geometry above)
    assert '<text x="74.0" y="48.0" text-anchor="end">a</text>' in svg


def test_the_epsilon_column_is_numeric_and_the_interval_beside_it_is_not():
    """A tie-calibrated ranking's epsilon is a number (right-aligned), inserted before the
    interval, which stays text (left-aligned)."""
    rows = [dict(result_row("bleu", "char", "acc_eq", 0.6, (0.55, 0.65), 100, grouping="item"), epsilon=0.01),
            dict(result_row("bleu", "jieba", "acc_eq", 0.5, (0.45, 0.55), 100, grouping="item"), epsilon=0.0)]  # fmt: skip
    table = md_tables(render(pd.DataFrame(rows), False, "markdown"))[1]
    aligned = dict(zip(table[0], table[1]))
    assert table[0][4:8] == ["value", "epsilon", "95% CI", "n"]
    assert (aligned["value"], aligned["epsilon"], aligned["95% CI"], aligned["n"]) == ("---:", "---:", ":---", "---:")
    assert table[2][5] == "0.01"
