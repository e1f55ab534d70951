"""CSV/TSV/JSON results read back by load_results: exact round trip, signature, bad files."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from metaeval.errors import DataError
from metaeval.report import load_results, render, write_atomic
from metaeval.report.data import sidecar_path, write_results
from metaeval.report.results import RESULT_COLUMNS

from .conftest import HOSTILE, result_row


def tricky_results(results: pd.DataFrame) -> pd.DataFrame:
    """The toy table plus names and notes that stress quoting, and floats that need 17 digits."""
    extra = result_row("chrf, \"quoted\"", "tab\there", "pearson", 0.1 + 0.2, (1 / 3, 2 / 3), 42,
                       note="line one\nline two, with # and \"quotes\"")  # fmt: skip
    extra2 = result_row("bleu", HOSTILE, "pearson", -1e-17, n=3, dataset="#not-a-comment")
    return pd.concat([results, pd.DataFrame([extra, extra2])], ignore_index=True)


@pytest.mark.parametrize("fmt", ["csv", "tsv", "json"])
def test_round_trip_is_exact(tmp_path, results, signature, fmt):
    table = tricky_results(results).assign(rank=np.arange(1, 10, dtype=float), cluster=list("aabbccdde"))
    text = render(table, signature, fmt)
    path = write_results(tmp_path / f"results.{fmt}", text, signature)
    if fmt != "json":  # a plain table: default pandas options read it, the signature is beside it
        assert not text.startswith("#")
        assert pd.read_csv(path, sep="," if fmt == "csv" else "\t").shape == (len(table), len(text.splitlines()[0].split("," if fmt == "csv" else "\t")))
        assert sidecar_path(path).is_file()
    loaded, loaded_signature = load_results(path)
    assert loaded_signature == signature
    assert list(loaded.columns) == list(RESULT_COLUMNS) + ["rank", "cluster"]
    # Rows come back in ranking order; compare against the input put in the same order by hand keys.
    key = ["dataset", "level", "statistic", "metric", "segmenter"]
    got = loaded.sort_values(key).reset_index(drop=True)
    want = table.sort_values(key).reset_index(drop=True)
    for column in ("value", "ci_low", "ci_high", "n", "concordant", "rank"):
        np.testing.assert_array_equal(got[column].to_numpy(float), want[column].to_numpy(float), err_msg=column)
    for column in ("dataset", "metric", "segmenter", "note", "cluster", "grouping"):
        assert got[column].tolist() == want[column].tolist(), column
    assert got.loc[got["metric"] == 'chrf, "quoted"', "value"].item() == 0.1 + 0.2  # 0.30000000000000004
    # Re-rendering what was read gives the same bytes, in this format and in the human ones.
    assert render(loaded, loaded_signature, fmt) == text
    for human in ("text", "markdown", "html"):
        assert render(loaded, loaded_signature, human) == render(table, signature, human)


@pytest.mark.parametrize("fmt", ["csv", "tsv", "json"])
def test_round_trip_without_signature(tmp_path, results, fmt):
    path = write_atomic(tmp_path / f"r.{fmt}", render(results, False, fmt))
    loaded, signature = load_results(path)
    assert signature == {}
    assert len(loaded) == len(results)
    assert np.isnan(loaded.loc[loaded["segmenter"].eq("pkuseg") & loaded["metric"].eq("nist"), "value"].item())


def test_minimal_table_gets_defaults(tmp_path):
    path = tmp_path / "minimal.csv"
    path.write_text("metric,segmenter,judgment_kind,level,statistic,value\nbleu,char,rank,sys,spearman,0.5\n")
    table, signature = load_results(path)
    assert signature == {}
    assert table["value"].tolist() == [0.5] and table["dataset"].tolist() == [""]
    assert np.isnan(table["n"].item())


@pytest.mark.parametrize("name, content, message", [
    ("r.xlsx", "", "unknown results format '.xlsx'"),
    ("r.csv", "metric,segmenter\nbleu,char\n", "missing column(s) judgment_kind, level, statistic, value"),
    ("r.csv", "metric,segmenter,judgment_kind,level,statistic,value\nbleu,char,rank,sys,spearman,high\n",
     "row 1: column 'value' holds 'high', expected a number"),
    ("r.csv", "metric,segmenter,judgment_kind,level,statistic,value\nbleu,char\n", "data row 1: 2 fields, expected 6"),
    ("r.csv", "# metaeval results\n# seed 12345\nmetric\n", "r.csv:2: bad signature line"),  # earlier versions
    ("r.json", "{\"rows\": 3}", "expected a JSON object with a 'rows' list"),
    ("r.json", "{\n\"rows\": [}", "r.json:2: invalid JSON"),
])  # fmt: skip
def test_bad_files_are_data_errors(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(DataError, match=re.escape(message)):
        load_results(path)


def test_missing_file(tmp_path):
    with pytest.raises(DataError, match="no such file"):
        load_results(tmp_path / "absent.json")


def test_files_of_earlier_versions_with_signature_lines_still_read(tmp_path):
    path = tmp_path / "old.tsv"
    path.write_text('# metaeval results\n# seed = 7\nmetric\tsegmenter\tjudgment_kind\tlevel\tstatistic\tvalue\nbleu\tchar\tesa\tseg\tpearson\t0.5\n')
    table, signature = load_results(path)
    assert signature == {"seed": 7} and table["value"].tolist() == [0.5]


def test_an_answer_saved_before_adjustments_reads_back_with_its_raw_p_values_as_counted(tmp_path):
    import json

    from metaeval.report.data import load_answer

    old = {"rows": [], "answer": [{"dataset": "d", "judgment_kind": "esa", "metric": "bleu", "p_value": 0.03, "char_significant": 1}]}
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old), encoding="utf-8")
    frame = load_answer(path)
    assert frame is not None and frame.loc[0, "p_adjusted"] == 0.03
    new = {"rows": [], "answer": [{**old["answer"][0], "p_adjusted": 0.09}]}
    path.write_text(json.dumps(new), encoding="utf-8")
    assert load_answer(path).loc[0, "p_adjusted"] == 0.09


def test_json_keeps_chinese_and_japanese_as_written() -> None:
    from metaeval.report.results import to_json

    assert to_json({"segmenter": "中文分词", "note": "形態素"}) == '{"note": "形態素", "segmenter": "中文分词"}'


def test_a_sacrebleu_signature_reads_the_normalisation_wherever_the_segmenter_signature_has_it() -> None:
    from metaeval.report.headline import sacrebleu_bleu_signature

    for segmenter_signature in ("plain|norm:lower", "plain|opt:1|norm:lower,nfkc"):
        assert "|case:lc|" in sacrebleu_bleu_signature("bleu|n:4|smooth:mteval|version:0.1.0", "plain", segmenter_signature, 1)
    assert "|case:mixed|" in sacrebleu_bleu_signature("bleu|n:4|smooth:mteval|version:0.1.0", "plain", "plain|norm:nfkc", 1)


def test_a_column_name_breaks_after_each_comma_and_the_last_part_has_none() -> None:
    from metaeval.report.bump import header_lines

    assert header_lines("spm:vocab=3430,type=bpe") == ["spm:vocab=3430,", "type=bpe"]
    assert header_lines("char") == ["char"]


def test_a_results_file_missing_a_column_is_named_in_the_error(tmp_path) -> None:
    path = tmp_path / "results.tsv"
    path.write_text("metric\tvalue\nbleu\t0.5\n", encoding="utf-8")
    with pytest.raises(DataError, match=re.escape(str(path)) + ": missing"):
        load_results(path)


def test_a_sacrebleu_signature_without_a_version_ends_with_an_empty_one() -> None:
    from metaeval.report.headline import sacrebleu_bleu_signature

    signature = sacrebleu_bleu_signature("bleu|n:4|smooth:mteval", "char", "char|norm:none", 1)
    assert signature == "nrefs:1|case:mixed|eff:no|tok:char|smooth:mteval|version:metaeval-"


def test_counts_print_whole_numbers_without_a_point_and_others_as_they_are() -> None:
    from metaeval.report.results import fmt_count

    assert (fmt_count(3.0), fmt_count(2.5), fmt_count(np.nan)) == ("3", "2.5", "")


def test_a_human_score_kind_with_a_suffix_names_it() -> None:
    from metaeval.report.verdict import _human_term

    esa = _human_term("esa")
    assert esa and _human_term("esa_z") == esa + ", z-normalised per annotator" and _human_term("esa_raw") == esa + " (raw)"


def test_rows_of_the_whole_test_set_come_before_those_of_each_subset() -> None:
    from metaeval.report.results import ALL, SUBSET, order_rows

    rows = [dict(result_row("bleu", "char", "pearson", v), **{SUBSET: s}) for s, v in (("web", 0.9), (ALL, 0.1), ("news", 0.5))]
    assert order_rows(pd.DataFrame(rows))[SUBSET].tolist() == [ALL, "news", "web"]
