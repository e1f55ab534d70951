"""The analysis functions of both studies, fed the committed tables, give the committed reports.

Li et al. 2011: ``results.tsv`` and ``char_vs_word.tsv`` hold every number the reports are built
from, so ``summary_markdown``, ``ties_markdown`` (with ``tie_rates``), ``references_markdown`` and
``dataset_markdown`` must rebuild ``summary.md``, ``ties.md``, ``references.md`` and the per-dataset
files. Denoual & Lepage 2005: ``results.json`` holds every table of every run; ``summary`` must
rebuild ``summary.md`` from them (JSON keeps no column order, so tables are compared as rows of
column -> cell). Plus hand-counted cases for the pieces a committed file cannot pin alone.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pandas as pd
import pytest

import experiments.denoual2005.__main__ as den
import experiments.li2011.__main__ as li
from experiments.denoual2005 import config as den_config
from metaeval.equivalence import EquivalenceResult

REPO = Path(__file__).resolve().parents[2]
LI = REPO / "experiments" / "results" / "li2011"
DEN = REPO / "experiments" / "results" / "denoual2005"


def read_tsv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", keep_default_na=False, na_values=[""])


@pytest.fixture(scope="module")
def li_results() -> pd.DataFrame:
    return read_tsv(LI / "results.tsv")


@pytest.fixture(scope="module")
def li_tests() -> pd.DataFrame:
    return read_tsv(LI / "char_vs_word.tsv")


# ------------------------------------------------------------------ Li et al. 2011


def test_summary_markdown_rebuilds_the_committed_summary(li_tests):
    assert li.summary_markdown(li_tests) == (LI / "summary.md").read_text(encoding="utf-8")


def test_ties_markdown_rebuilds_the_committed_file(li_results, li_tests):
    assert li.ties_markdown(li_tests, li.tie_rates(li_results)) == (LI / "ties.md").read_text(encoding="utf-8")


def test_references_markdown_rebuilds_the_committed_file(li_results):
    assert li.references_markdown(li_results) == (LI / "references.md").read_text(encoding="utf-8")


NUMBER = re.compile(r"-?\d+\.\d+")


def same_up_to_last_digit(expected: str, got: str) -> bool:
    """Equal text; numbers may differ by one unit in the last decimal (results.tsv keeps 6
    significant digits, so a value such as 0.71250x is read back as 0.7125 and rounds down)."""
    if NUMBER.sub("#", expected) != NUMBER.sub("#", got):
        return False
    for a, b in zip(NUMBER.findall(expected), NUMBER.findall(got)):
        decimals = len(a.split(".")[1])
        if abs(float(a) - float(b)) > 1.01 * 10.0**-decimals:
            return False
    return True


@pytest.mark.parametrize("ds", li.DATASETS, ids=lambda ds: ds.slug)
def test_dataset_markdown_rebuilds_the_committed_file(li_results, ds):
    signatures = json.loads((LI / "results.json").read_text(encoding="utf-8"))["signatures"]
    rows = li_results[(li_results.dataset == ds.name) | li_results.dataset.str.startswith(ds.name + " ")]
    assert not rows.empty
    got = li.dataset_markdown(ds, rows.reset_index(drop=True), signatures[ds.name])
    expected = (LI / f"{ds.slug}.md").read_text(encoding="utf-8")
    assert got.splitlines()[0] == expected.splitlines()[0] == f"# {ds.name}: {ds.description}"
    assert len(got.splitlines()) == len(expected.splitlines())
    differing = [(a, b) for a, b in zip(expected.splitlines(), got.splitlines()) if a != b]
    assert all(same_up_to_last_digit(a, b) for a, b in differing), differing[:3]
    assert len(differing) <= 2


def test_tie_rates_by_hand():
    results = pd.DataFrame([
        # C + D + T = 6 + 2 + 2: rate 0.2
        {"dataset": "d", "judgment_kind": "esa", "metric": "bleu", "segmenter": "char", "statistic": "consistency",
         "concordant": 6.0, "discordant": 2.0, "metric_ties": 2.0, "value": 0.75},
        # 1 / (1 + 2 + 1) = 0.25
        {"dataset": "d", "judgment_kind": "esa", "metric": "bleu", "segmenter": "jieba", "statistic": "consistency",
         "concordant": 1.0, "discordant": 2.0, "metric_ties": 1.0, "value": 1 / 3},
        # not a consistency row, or no pair counts: left out
        {"dataset": "d", "judgment_kind": "esa", "metric": "bleu", "segmenter": "char", "statistic": "kendall_acc23",
         "concordant": 9.0, "discordant": 0.0, "metric_ties": 9.0, "value": 0.5},
        {"dataset": "d", "judgment_kind": "esa", "metric": "ter", "segmenter": "char", "statistic": "consistency",
         "concordant": float("nan"), "discordant": float("nan"), "metric_ties": float("nan"), "value": 0.5},
    ])  # fmt: skip
    rates = li.tie_rates(results)
    assert list(rates.columns) == ["dataset", "judgment_kind", "metric", "segmenter", "metric_tie_rate"]
    assert list(rates.index) == [0, 1]
    assert list(rates.segmenter) == ["char", "jieba"]
    assert list(rates.metric_tie_rate) == pytest.approx([0.2, 0.25], abs=1e-15)


def test_ties_markdown_by_hand():
    row = lambda metric, statistic, delta, level="seg": {
        "dataset": "d", "metric": metric, "level": level, "statistic": statistic, "best_word": "jieba", "delta": delta,
        "delta_ci_low": delta - 0.01, "delta_ci_high": delta + 0.02, "p_value": 0.5, "p_adjusted": 0.75}  # fmt: skip
    tests = pd.DataFrame([
        row("bleu", "consistency", 0.03), row("bleu", "acc_eq", -0.002),  # no kendall_acc23 row: an empty cell
        row("bleu", "pearson", 0.9),  # not on the ladder
        row("bleu", "consistency", 0.7, level="sys"),  # not segment level
        row("chrf", "consistency", 0.5),  # granularity-free: left out
    ])  # fmt: skip
    rates = pd.DataFrame([
        {"dataset": "d", "judgment_kind": "esa", "metric": "bleu", "segmenter": "char", "metric_tie_rate": 0.125},
        {"dataset": "d", "judgment_kind": "esa", "metric": "bleu", "segmenter": "jieba", "metric_tie_rate": 0.25},
        {"dataset": "d", "judgment_kind": "esa", "metric": "bleu", "segmenter": "pkuseg", "metric_tie_rate": 0.5},
        {"dataset": "e", "judgment_kind": "esa", "metric": "bleu", "segmenter": "char", "metric_tie_rate": 0.75},
    ])  # fmt: skip
    text = li.ties_markdown(tests, rates)
    table = [line for line in text.splitlines() if line.startswith("|")]
    assert table[0] == ("| dataset | metric | Δ consistency [95% CI] (p; adj.) | Δ kendall_acc23 [95% CI] (p; adj.) "
                        "| Δ acc_eq [95% CI] (p; adj.) | tie rate char | tie rate word |")
    assert table[1] == "|---|---|---:|---:|---:|---:|---:|"
    assert table[2:] == [
        "| d | bleu | +0.0300 [+0.0200, +0.0500] (0.500; 0.750) |  | -0.0020 [-0.0120, +0.0180] (0.500; 0.750) | 0.1250 (char) "
        "| 0.2500 (jieba) |"
    ]


# ------------------------------------------------------------------ Denoual & Lepage 2005


def committed_runs() -> list[den.Run]:
    """The runs of results.json, in the order the study runs them (config.DATASETS)."""
    data = json.loads((DEN / "results.json").read_text(encoding="utf-8"))["runs"]
    runs = []
    for ds in den_config.DATASETS:
        for name in ds.word_segmenters:
            run = data[f"{ds.slug}.{name}"]
            tables = {table: pd.DataFrame(records) for table, records in run["tables"].items()}
            runs.append((ds, name, EquivalenceResult(items=pd.DataFrame(), signature=run["signature"], **tables)))
    assert len(runs) == len(data)
    return runs


def sections(markdown: str) -> list[tuple[str, list[dict[str, str]] | str]]:
    """(heading, table rows as column -> cell) per section; the signature block as text."""
    out: list[tuple[str, list[dict[str, str]] | str]] = []
    for chunk in re.split(r"^## ", markdown, flags=re.MULTILINE)[1:]:
        heading, _, body = chunk.partition("\n")
        rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in body.splitlines() if line.startswith("|")]
        out.append((heading, [dict(zip(rows[0], r)) for r in rows[2:]] if rows else body))
    return out


def test_summary_rebuilds_the_committed_summary():
    text, data = den.summary(committed_runs())
    expected = (DEN / "summary.md").read_text(encoding="utf-8")
    # title and signature verbatim
    assert text.split("\n## ")[0] == expected.split("\n## ")[0]
    got, want = sections(text), sections(expected)
    assert [h for h, _ in got] == [h for h, _ in want]
    for (heading, rows), (_, expected_rows) in zip(got, want):
        assert rows == expected_rows, heading
    committed = json.loads((DEN / "results.json").read_text(encoding="utf-8"))
    same = json.loads(json.dumps(data)) == committed  # (not inside assert: pytest's diff of it takes minutes)
    assert same


def result(orders: list[dict], lengths: dict[tuple[str, str], float], signature: dict) -> EquivalenceResult:
    empty = pd.DataFrame({"x": [1]})
    frame = pd.DataFrame(
        [{"texts": t, "unit": u, "mean": m, "median": 0} for (t, u), m in lengths.items()]
    )
    return EquivalenceResult(orders=pd.DataFrame(orders), correlations=empty, analogical=empty, by_length=empty,
                             ranking=pd.DataFrame({"system": ["s1"], "rank": [1]}), ranking_agreement=pd.DataFrame(orders),
                             lengths=frame, length_histogram=empty, items=pd.DataFrame(), signature=signature)


SIGNATURE = {"settings": {"a": 1}, "versions": {"v": "1"}, "char_segmenter": "char|x", "word_metric": "bleu|n:4",
             "char_metric": "bleu|n:30"}


def test_chars_per_word_by_hand():
    ds = den_config.CJK[0]
    lengths = {("references", "characters"): 30.0, ("references", "words"): 12.0,
               ("hypotheses", "characters"): 21.0, ("hypotheses", "words"): 7.0}
    frame = den.chars_per_word([(ds, "jieba", result([{"N": 4}], lengths, SIGNATURE))])
    assert frame.to_dict(orient="records") == [
        {"dataset": ds.path, "segmenter": "jieba", "references": 2.5, "hypotheses": 3.0}]


def test_tagged_keeps_order_of_runs_and_filters_n():
    a, b = den_config.CJK[0], den_config.CJK[2]
    orders = [{"N": n, "M": 2 * n} for n in (1, 2, 3, 4)]
    runs = [(a, "jieba", result(orders, {}, SIGNATURE)), (b, "mecab", result(orders[::-1], {}, SIGNATURE))]
    frame = den._tagged(runs, "orders", 4)
    assert frame.to_dict(orient="records") == [{"dataset": a.path, "segmenter": "jieba", "N": 4, "M": 8},
                                               {"dataset": b.path, "segmenter": "mecab", "N": 4, "M": 8}]
    assert list(frame.index) == [0, 1]
    whole = den._tagged(runs, "orders")
    assert list(whole.columns) == ["dataset", "segmenter", "N", "M"] and len(whole) == 8
    assert list(whole.N) == [1, 2, 3, 4, 4, 3, 2, 1]
    # the frames of the runs are not modified
    assert list(runs[0][2].orders.columns) == ["N", "M"]


def test_summary_of_cjk_runs_only():
    ds = den_config.CJK[0]
    lengths = {("references", "characters"): 30.0, ("references", "words"): 12.0,
               ("hypotheses", "characters"): 21.0, ("hypotheses", "words"): 7.0}
    orders = [{"N": n, "analogical_M": 2 * n + 1} for n in (1, 2, 3, 4)]
    signature = dict(SIGNATURE, word_segmenter="jieba|v")
    text, data = den.summary([(ds, "jieba", result(orders, lengths, signature))])
    heads = [h for h, _ in sections(text)]
    assert heads == ["Table 5 (Chinese and Japanese targets): M equivalent to N = 4 words",
                     "Table 5b (Chinese and Japanese targets): agreement of system rankings",
                     "Table 5c (Chinese and Japanese targets): sentence lengths",
                     "Table 5d (Chinese and Japanese targets): characters per word"]
    table5 = dict(sections(text))
    assert table5[heads[0]] == [{"dataset": ds.path, "segmenter": "jieba", "N": "4", "analogical\\_M": "9"}]
    assert table5[heads[3]] == [{"dataset": ds.path, "segmenter": "jieba", "references": "2.5000", "hypotheses": "3"}]  # integers print without decimals
    assert data["signature"] == {"experiment": "denoual2005", **SIGNATURE, "runs": {f"{ds.path} jieba": "jieba|v"}}
    assert list(data["runs"]) == [f"{ds.slug}.jieba"]
    assert math.isfinite(data["runs"][f"{ds.slug}.jieba"]["tables"]["orders"][0]["N"])


def test_headline_zero_delta_is_on_neither_side_even_with_a_small_p():
    row = lambda delta, p: {"dataset": "wmt24-esa/en-zh", "metric": "bleu", "level": "seg", "statistic": "consistency",
                            "judgment_kind": "esa", "delta": delta, "p_value": p, "p_adjusted": p}  # fmt: skip
    head = li.headline(pd.DataFrame([row(0.0, 0.001), row(0.0, 0.5), row(-0.01, 0.04)]))
    (r,) = head.to_dict(orient="records")
    assert (r["comparisons"], r["char_ahead"], r["words_ahead"], r["char_significant"], r["words_significant"]) == (3, 0, 1, 0, 1)


# ------------------------------------------------------------------ granularity sweeps

SWEEPS = sorted(p for p in (REPO / "experiments" / "results" / "sweep").iterdir() if p.is_dir())


@pytest.mark.parametrize("folder", SWEEPS, ids=[p.name for p in SWEEPS])
def test_a_committed_sweeps_verdict_is_what_its_answer_says(folder):
    """The verdict of each committed sweep's ``summary.md`` is ``verdict_lines`` of the answer and
    signature stored beside it: the sentences follow the code that words them."""
    from metaeval.report.data import load_answer
    from metaeval.report.text import md_escape
    from metaeval.report.verdict import verdict_lines

    signature = json.loads((folder / "signature.json").read_text(encoding="utf-8"))
    expected = [f"- {md_escape(line)}" for line in verdict_lines(load_answer(folder / "results.tsv"), signature)]
    summary = (folder / "summary.md").read_text(encoding="utf-8")
    assert expected and summary.split("## Verdict\n\n")[1].split("\n\n")[0].splitlines() == expected


def test_a_dataset_report_keeps_the_signature_as_written(li_results):
    ds = li.DATASETS[0]
    signatures = json.loads((LI / "results.json").read_text(encoding="utf-8"))["signatures"]
    rows = li_results[(li_results.dataset == ds.name) | li_results.dataset.str.startswith(ds.name + " ")]
    got = li.dataset_markdown(ds, rows.reset_index(drop=True), dict(signatures[ds.name], note="字符与词"))
    assert '"note": "字符与词"' in got
