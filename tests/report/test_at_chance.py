"""Values at or below chance are marked: a configuration whose 95% interval (its value, without
one) is not above its chance band carries the mark in every leaderboard layout and in the answer,
and the section says what it means; the chance band is a column of the ranked layout."""

from __future__ import annotations

import json

import pandas as pd

from metaeval.answer import answer
from metaeval.report import render
from metaeval.report.layout import AT_CHANCE, AT_CHANCE_NOTE
from metaeval.stats.chance import at_or_below

from .conftest import NAN, result_row


def _rows() -> pd.DataFrame:
    """acc_eq by item: bleu/char 0.520 [0.500, 0.540] against a band 0.460..0.505 (interval reaches
    into it: at chance); bleu/jieba 0.560 [0.540, 0.580] against 0.465..0.510 (above it); nist/char
    0.480 without interval against 0.470..0.490 (value inside: at chance); nist/jieba 0.600, no band."""
    rows = []
    for metric, segmenter, value, ci, band in (
        ("bleu", "char", 0.520, (0.500, 0.540), (0.482, 0.460, 0.505)),
        ("bleu", "jieba", 0.560, (0.540, 0.580), (0.487, 0.465, 0.510)),
        ("nist", "char", 0.480, (NAN, NAN), (0.480, 0.470, 0.490)),
        ("nist", "jieba", 0.600, (0.580, 0.620), (NAN, NAN, NAN)),
    ):
        row = result_row(metric, segmenter, "acc_eq", value, ci, 600, grouping="item", kind="esa")
        row.update(chance=band[0], chance_low=band[1], chance_high=band[2])
        rows.append(row)
    return pd.DataFrame(rows)


def test_at_or_below_chance_by_hand():
    assert at_or_below(0.52, 0.50, 0.505) and not at_or_below(0.56, 0.54, 0.51)
    assert at_or_below(0.48, NAN, 0.49) and not at_or_below(0.50, NAN, 0.49)  # without an interval, the value
    assert not at_or_below(0.40, 0.30, NAN)  # without a band, nothing is marked
    assert list(at_or_below(pd.Series([0.52, 0.56]), pd.Series([0.50, 0.54]), pd.Series([0.505, 0.51]))) == [True, False]


def test_ranked_and_table_layouts_mark_the_values_at_or_below_chance():
    results = _rows()
    ranked = render(results, None, "text", layout="ranked")
    assert f"0.520{AT_CHANCE}" in ranked and f"0.480{AT_CHANCE}" in ranked
    assert f"0.560{AT_CHANCE}" not in ranked and f"0.600{AT_CHANCE}" not in ranked
    assert "chance band" in ranked and "[0.460, 0.505]" in ranked and AT_CHANCE_NOTE in ranked
    table = render(results, None, "markdown", layout="table")
    assert f"0.520{AT_CHANCE}" in table and f"0.560{AT_CHANCE}" not in table
    assert "chance level (each configuration's metric scores permuted, its own ties kept): 0.480 to 0.487" in table


def test_the_answer_marks_the_configurations_at_or_below_chance():
    found = answer(_rows()).iloc[0]  # best nist / jieba 0.600 (no band); nist: char 0.480 (in its band) vs jieba
    assert (found.best_metric, found.best_segmenter, found.metric) == ("nist", "jieba", "nist")
    assert not found.best_at_chance and found.char_at_chance and not found.word_at_chance
    bleu = answer(_rows()[_rows().metric == "bleu"]).iloc[0]  # char 0.520 [0.500, ...] reaches into 0.460..0.505
    assert bleu.char_at_chance and not bleu.word_at_chance and not bleu.best_at_chance
    assert f"nist: char 0.480{AT_CHANCE}, jieba 0.600 " in render(_rows(), None, "text")
    document = json.loads(render(_rows(), {}, "json", answer=answer(_rows())))
    assert {"chance", "chance_low", "chance_high"} <= set(document["columns"])
    assert "char_at_chance" in document["answer"][0]
