"""The answer in words: the verdict's sentences before any table, their numbers equal to the
answer table's, warnings where the data are too few, and a glossary of every term shown."""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest

from metaeval.report import render
from metaeval.report.verdict import adjusted_p_text, chance_warning, glossary_lines, p_text, signed, verdict_lines
from metaeval.stats.registry import REGISTRY
from tests.test_cli import ZH, run_cli, small_corpus

SENTENCE = re.compile(
    r"^(Segment|System) level \((?P<kind>[^,]+), (?P<size>\d+) (segments|systems)\): (?P<claim>.*?) under "
    r"(?P<stat>[a-z_]+(?: \([a-z]+\))?).*?; (?P<metric>\S+), the best configuration's metric \((?P<outcome>[^)]*)\): "
    r"char (?P<char>\S+) vs (?P<word>\S+) (?P<word_value>\S+), "
    r"delta (?P<delta>\S+) \[(?P<low>\S+), (?P<high>\S+)\], p adjusted (?P<p><?=?[0-9.]*[0-9])(?:;|\.$)"
)


def answer_rows(lines: list[str]) -> dict[tuple[str, str, str], list[str]]:
    """The answer table of a text page, by (human, level, statistic), cells split on 2+ spaces."""
    start = next(i for i, line in enumerate(lines) if line.startswith("Answer:"))
    rows = {}
    for line in lines[start + 4 :]:
        if not line.strip():
            break
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) < 5:  # the legend under the table
            break
        rows[(cells[0], cells[1], cells[2])] = cells
    return rows


def check_sentences_against_table(out: str, lines_before: int = 15) -> list[re.Match]:
    lines = out.splitlines()
    head = lines[:lines_before]
    matches = [m for m in (SENTENCE.match(line) for line in head) if m]
    assert matches, "no verdict sentence in the first lines:\n" + "\n".join(head)
    table = answer_rows(lines)
    for m in matches:
        level = "seg" if m.group(0).startswith("Segment") else "sys"
        cells = table[(m["kind"], level, m["stat"])]
        # best configuration, versus, delta, CI, p, p adjusted, char ahead, significant
        assert cells[4] == f"{m['metric']}: char {m['char']}, {m['word']} {m['word_value']}"
        assert cells[5] == m["delta"]
        assert cells[6] == f"[{m['low']}, {m['high']}]"
        assert cells[8] == m["p"]
        # what the compared metric alone shows follows from its own delta and adjusted p
        significant = float(m["p"].lstrip("<=")) <= 0.05
        side = "characters" if m["delta"].startswith("+") else "word level"
        assert m["outcome"] == (f"{side} significantly better" if significant else "not significant"), m.group(0)
    return matches


def test_run_on_few_segments_and_systems_says_so_before_the_table(tmp_path, capsys):
    corpus = small_corpus(tmp_path, n=25, systems=("Aya23", "GPT-4", "IKUN"))
    code, out, err = run_cli(capsys, "run", str(corpus), "-s", "char", "-s", "jieba", "-m", "bleu", "-m", "gtm",
                             "--bootstrap", "200", "-q", "-j", "1", "--out", str(tmp_path / "out"))  # fmt: skip
    assert code == 0, err
    assert f"metaeval: wrote {tmp_path / 'out'}: answer.tsv, results.tsv" in err  # --out says where it wrote
    matches = check_sentences_against_table(out)
    head = "\n".join(out.splitlines()[:15])
    assert "warning: only 25 segments (fewer than 30)" in head
    assert "warning: only 3 systems (fewer than 4)" in head
    assert {m.group(1) for m in matches} == {"Segment", "System"}
    # the glossary explains every statistic on the page by the registry's own words
    glossary = out[out.index("\nGlossary\n") :]
    for name in ("acc_eq", "consistency", "kendall_like", "pearson", "soft_pairwise_accuracy"):
        assert f"{name}: {REGISTRY[name].description}" in glossary


@pytest.mark.slow
def test_the_acceptance_run_opens_with_the_verdict(capsys):
    """`metaeval run ../shared/data/wmt24-esa/en-zh`: its first 15 lines hold the verdict."""
    code, out, err = run_cli(capsys, "run", str(ZH), "-q")
    assert code == 0, err
    matches = check_sentences_against_table(out)
    assert {(m["kind"], m.group(1)) for m in matches} == {(k, lv) for k in ("esa", "esa_z") for lv in ("Segment", "System")}


def answer_row(**values) -> dict:
    row = {
        "dataset": "d", "judgment_kind": "esa", "level": "seg", "statistic": "acc_eq", "grouping": "item", "tie_policy": "",
        "best_metric": "bleu", "best_segmenter": "char", "best_value": 0.5, "best_ci_low": 0.45, "best_ci_high": 0.55,
        "metric": "bleu", "char_value": 0.5, "word_segmenter": "jieba", "word_value": 0.4, "delta": 0.1,
        "delta_ci_low": 0.05, "delta_ci_high": 0.15, "p_value": 0.0, "p_adjusted": 0.0, "n_samples": 1000, "metrics": 2,
        "char_ahead": 2, "char_significant": 2, "word_significant": 0, "left_out": "", "note": "",
    }  # fmt: skip
    row.update(values)
    return row


def test_each_claim_in_words_by_hand():
    rows = [
        answer_row(),
        answer_row(
            statistic="consistency",
            grouping="segment",
            char_significant=0,
            word_significant=1,
            delta=-0.1,
            delta_ci_low=-0.2,
            delta_ci_high=-0.0004,
            p_adjusted=0.03,
        ),  # fmt: skip
        answer_row(
            level="sys", statistic="pearson", grouping="", char_significant=0, char_ahead=1, p_value=0.5, p_adjusted=0.5, delta_ci_low=-0.0, delta_ci_high=0.2
        ),  # fmt: skip
        answer_row(judgment_kind="mqm", metric="", note="no word-level segmenter to compare with"),
        answer_row(judgment_kind="da", p_value=math.nan, p_adjusted=math.nan, delta_ci_low=math.nan, delta_ci_high=math.nan),
    ]
    lines = verdict_lines(pd.DataFrame(rows), {"segments": 634, "systems": 12})
    assert lines == [
        "Segment level (da, 634 segments): characters are ahead of the best word level for 2 of 2 metrics under acc_eq (item) "
        "(no intervals); bleu, the best configuration's metric: char 0.500 vs jieba 0.400, delta +0.100.",
        "Segment level (esa, 634 segments): characters agree significantly better than the best word level for 2 of 2 metrics "
        "under acc_eq (item); bleu, the best configuration's metric (characters significantly better): char 0.500 vs jieba "
        "0.400, delta +0.100 [+0.050, +0.150], p adjusted <0.000999; other "
        "statistics of this level: characters significantly better under 0 of 1, word level under 1.",
        "System level (esa, 12 systems): no significant difference between characters and the best word level under pearson "
        "(characters ahead for 1 of 2 metrics); bleu, the best configuration's metric (not significant): char 0.500 vs jieba "
        "0.400, delta +0.100 [+0.000, +0.200], p adjusted 0.500.",
        "Segment level (mqm, 634 segments): no comparison under acc_eq (item): no word-level segmenter to compare with.",
    ]


def test_the_compared_metric_says_what_it_alone_shows_when_the_tally_says_otherwise():
    """The tally counts every metric; the numbers quoted are the best configuration's metric's.
    Where that metric is the exception (char significantly better on 5 of 6 metrics, but not on
    chrF++, the metric of the best configuration), the sentence names its role and its own outcome
    at the answer's level, so the negative delta does not read as evidence for the claim."""
    row = answer_row(metric="chrf++", metrics=6, char_ahead=5, char_significant=5, word_segmenter="thulac", char_value=0.498,
                     word_value=0.499, delta=-0.001, delta_ci_low=-0.003, delta_ci_high=0.0002, p_value=0.03, p_adjusted=0.134)  # fmt: skip
    (line,) = verdict_lines(pd.DataFrame([row]), {"segments": 634})
    assert "significantly better than the best word level for 5 of 6 metrics" in line
    assert "; chrf++, the best configuration's metric (not significant): char 0.498 vs thulac 0.499, delta -0.001" in line
    # significance is read at the answer's own level (mde_alpha), not at 0.05 whatever it was
    strict = verdict_lines(pd.DataFrame([answer_row(p_adjusted=0.03, mde_alpha=0.01)]), {"segments": 634})[0]
    assert "bleu, the best configuration's metric (not significant)" in strict
    loose = verdict_lines(pd.DataFrame([answer_row(p_adjusted=0.03, mde_alpha=0.05)]), {"segments": 634})[0]
    assert "bleu, the best configuration's metric (characters significantly better)" in loose
    word = verdict_lines(pd.DataFrame([answer_row(delta=-0.1, p_adjusted=0.01)]), {"segments": 634})[0]
    assert "bleu, the best configuration's metric (word level significantly better)" in word


def test_word_level_ahead_and_mixed_claims_by_hand():
    word = answer_row(char_ahead=0, char_significant=0, word_significant=2, delta=-0.1, p_adjusted=0.001)
    mixed = answer_row(judgment_kind="mqm", char_ahead=1, char_significant=1, word_significant=1, p_adjusted=0.2)
    lines = verdict_lines(pd.DataFrame([word, mixed]), {"segments": 634})
    assert lines[0].startswith(
        "Segment level (esa, 634 segments): the best word level agrees significantly better than characters for 2 of 2 "
        "metrics under acc_eq (item); bleu, the best configuration's metric (word level significantly better): "
    )  # fmt: skip
    assert lines[1].startswith(
        "Segment level (mqm, 634 segments): mixed under acc_eq (item): characters significantly better for 1 and word "
        "level for 1 of 2 metrics; bleu, the best configuration's metric (not significant): "
    )  # fmt: skip


def test_a_statistic_outside_the_lead_list_leads_when_alone_and_several_datasets_are_named():
    rows = [answer_row(dataset="a", statistic="kendall_acc23", grouping="none"), answer_row(dataset="b", level="doc")]
    lines = verdict_lines(pd.DataFrame(rows), by_dataset={"a": {"segments": 40}, "b": {"segments": 20}})
    assert lines[0].startswith("Segment level (a, esa, 40 segments): characters agree significantly better than the best "
                               "word level for 2 of 2 metrics under kendall_acc23;")  # fmt: skip
    assert lines[1].startswith("Document level (b, esa): characters agree")
    assert lines[1].endswith("warning: only 20 segments (fewer than 30), too few to carry the claim.")


def test_a_chance_band_at_or_above_the_best_interval_is_said():
    row = answer_row()
    assert chance_warning(row, None) == ""
    assert chance_warning(row, (0.4, 0.5)) == ""
    assert chance_warning(row, (0.5, 0.55)).startswith("warning: even the best configuration's interval is at or below chance")
    band = lambda r: (0.5, 0.6)  # noqa: E731
    assert "at or below chance (0.600)." in verdict_lines(pd.DataFrame([row]), chance_band=band)[0]


def test_bounds_carry_their_sign_and_p_shows_its_bootstrap_floor():
    assert [signed(v) for v in (0.0123, -0.0004, 0.0004, 0.0, -0.091)] == ["+0.012", "-0.000", "+0.000", "+0.000", "-0.091"]
    assert signed(math.nan) == "" and p_text(math.nan, 1000) == ""
    assert p_text(0.0, 1000) == "<0.000999" and p_text(0.0, 199) == "<0.005" and p_text(0.002, 1000) == "0.002"
    # Holm over five bounds 1/1001 is 5/1001, itself a bound
    assert adjusted_p_text({"p_adjusted": 5 / 1001, "n_samples": 1000, "p_bound": True}) == "<=0.005"
    assert adjusted_p_text({"p_adjusted": 5 / 1001, "n_samples": 1000, "p_bound": False}) == "0.005"
    assert adjusted_p_text({"p_adjusted": 5 / 1001, "n_samples": 1000}) == "0.005"  # saved before p_bound existed


def test_glossary_names_what_the_page_shows(results):
    lines = glossary_lines(results)
    terms = [line.split(": ")[0] for line in lines]
    assert {"consistency", "spearman", "bleu", "nist"} <= set(terms)
    assert "acc_eq" not in terms  # not on this page
    assert f"consistency: {REGISTRY['consistency'].description} ({REGISTRY['consistency'].citation})" in lines
    for fmt in ("markdown", "html", "latex"):
        page = render(results, None, fmt)
        assert "Verdict" in page and "Glossary" in page and page.index("Verdict") < page.index("Glossary"), fmt


def test_the_answers_chance_flags_are_said_in_the_verdict():
    row = answer_row(char_at_chance=True, word_at_chance=True)
    (line,) = verdict_lines(pd.DataFrame([row]))
    assert "bleu, the best configuration's metric (characters significantly better): char 0.500° vs jieba 0.400°" in line
    assert line.endswith("warning: the interval of char and the best word level is at or below chance (°).")
