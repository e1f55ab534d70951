"""Appraise CSV reader: equivalence with the WMT24 judgments.tsv, and hand-made cases."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from metaeval.corpora import read_appraise_csv, read_judgments
from metaeval.corpora.appraise import filter_ratings, parse_appraise_csv

from ._helpers import WMT24, make_folder, needs_data, one_line, raises_at, write


@needs_data
@pytest.mark.parametrize("pair", ["en-zh", "en-ja"])
def test_appraise_reproduces_judgments_tsv(pair):
    folder = WMT24 / pair
    ours = read_appraise_csv(folder / "original/appraise_esa_waves2-3.csv", corpus_dir=folder).table
    # The released table, read with pandas (not with the code under test).
    theirs = pd.read_csv(folder / "judgments.tsv", sep="\t", dtype={"seg_id": str, "judge": str})
    assert len(ours) == len(theirs) == 634 * 12 * 2
    merged = theirs.merge(ours, on=["seg_id", "system", "judge", "kind"], how="outer", indicator=True)
    assert (merged["_merge"] == "both").all()
    esa = merged[merged.kind == "esa"]
    assert (esa.value_x == esa.value_y).all()
    z = merged[merged.kind == "esa_z"]
    # judgments.tsv prints esa_z with 6 decimals.
    np.testing.assert_allclose(z.value_y, z.value_x, atol=5.0001e-7, rtol=0)


@needs_data
@pytest.mark.parametrize("pair", ["en-zh", "en-ja"])
def test_dropped_counts_match_provenance(pair):
    folder = WMT24 / pair
    ratings = parse_appraise_csv(folder / "original/appraise_esa_waves2-3.csv")
    kept, dropped = filter_ratings(ratings)
    provenance = json.loads((folder / "PROVENANCE.json").read_text(encoding="utf-8"))
    assert dropped == provenance["dropped"]
    assert len(kept) == provenance["n_ratings"] == 634 * 13  # 12 systems + refA judged as a system


@needs_data
def test_original_folder_maps_item_ids_to_lines():
    # original/ holds the full 998-line files (line 0 = canary); item id k is line k + 1.
    folder = WMT24 / "en-zh"
    table = read_appraise_csv(folder / "original/appraise_esa_waves2-3.csv", corpus_dir=folder / "original").table
    released = pd.read_csv(folder / "judgments.tsv", sep="\t", dtype={"seg_id": str})
    orig_line = pd.read_csv(folder / "docs.tsv", sep="\t", dtype=str).set_index("seg_id")["orig_line"]
    released["seg_id"] = (released["seg_id"].map(orig_line).astype(int) + 1).astype(str)
    key = ["seg_id", "system", "kind"]
    merged = released.merge(table, on=key, how="outer", indicator=True)
    assert (merged["_merge"] == "both").all() and (merged.judge_x == merged.judge_y).all()


def _row(annotator, system, item, score, doc, end, item_type="TGT", spans="[]"):
    spans_field = '"' + spans.replace('"', '""') + '"' if "," in spans or '"' in spans else spans
    return f"{annotator},{system},{item},{item_type},eng,zho,{score},{doc},False,{spans_field},{end - 1}.5,{end}.25\n"


def _corpus(tmp_path):
    folder = make_folder(tmp_path / "corpus", n=3)
    write(folder / "docs.tsv", "seg_id\tdoc_id\n1\td1\n2\td1\n3\td2\n")
    return folder


CSV = (
    _row("a1", "ende-tutorial1", 1000001, 0, "ende-tutorial1", 5)
    + _row("a1", "s1", 0, 80, "d1", 10)
    + _row("a1", "s2", 0, 60, "d1", 11, spans='[{"start_i":1,"end_i":3,"severity":"minor"}]')
    + _row("a1", "s1", 1, 50, "d1", 12)
    + _row("a1", "s2", 1, 0, "d1#bad", 13, item_type="BAD")
    + _row("a1", "s2", 2, 0, "d2#incomplete", 14)
    + _row("a1", "s1", 1, 70, "d1", 20)  # re-rating of line 4, later: supersedes it
    + _row("a1", "A", 2, 70, "d2", 21)  # the reference judged as a system
    + _row("a2", "s1", 2, 40, "d2", 30)
)


def test_hand_made_export(tmp_path):
    path = write(tmp_path / "export.csv", CSV)
    table = read_appraise_csv(path, corpus_dir=_corpus(tmp_path)).table
    got = {(r.seg_id, r.system, r.judge, r.kind): r.value for r in table.itertuples()}
    # a1 keeps 80 (s1, item 0), 60 (s2, item 0), 70 (s1, item 1, latest) and 70 (A, item 2):
    # mean 70, deviations 10, -10, 0, 0 -> population variance 200/4 = 50, sd 7.0711;
    # z = 10/7.0711 = 1.414214, -1.414214, 0. a2 has one rating: sd 0 -> z = 0.
    expected = {
        ("1", "s1", "a1", "esa"): 80.0, ("1", "s1", "a1", "esa_z"): 1.4142136,
        ("1", "s2", "a1", "esa"): 60.0, ("1", "s2", "a1", "esa_z"): -1.4142136,
        ("2", "s1", "a1", "esa"): 70.0, ("2", "s1", "a1", "esa_z"): 0.0,
        ("3", "s1", "a2", "esa"): 40.0, ("3", "s1", "a2", "esa_z"): 0.0,
    }
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=1e-6), key
    kept, dropped = filter_ratings(parse_appraise_csv(path))
    assert dropped == {"tutorial": 1, "qc/bad-ref item": 1, "#incomplete filler": 1, "superseded re-rating": 1}
    assert len(kept) == 5


def test_without_corpus_ids_are_item_ids_and_kind_is_configurable(tmp_path):
    path = write(tmp_path / "export.csv", CSV)
    judgments = read_judgments(path, kind="da", z=False)
    assert judgments.kinds == ["da"]
    assert sorted(set(judgments.table.seg_id)) == ["0", "1", "2"]
    assert "A" in set(judgments.table.system)
    with_refs = read_appraise_csv(path, corpus_dir=_corpus(tmp_path), keep_references=True)
    assert "A" in set(with_refs.table.system)


@pytest.mark.parametrize(
    "row,pattern",
    [
        ("a1,s1,0,TGT,eng,zho,80,d1,False,[]\n", r"export\.csv:2: 10 fields, expected 12"),
        ("a1,s1,x,TGT,eng,zho,80,d1,False,[],1.0,2.0\n", r"export\.csv:2: item id 'x' is not an integer"),
        ("a1,s1,0,TGT,eng,zho,good,d1,False,[],1.0,2.0\n", r"export\.csv:2: score 'good' is not a number"),
        ('a1,s1,0,TGT,eng,zho,80,d1,False,"[{""a"":\n1}]",1.0,2.0\n', r"export\.csv:2: bad CSV .*quoted field may span lines"),
        ("a1,s1,1,TGT,eng,zho,80,d2,False,[],1.0,2.0\n", r"export\.csv:2: item 1 is in document 'd2', but segment 2 .* is in 'd1'"),
        ("a1,s9,0,TGT,eng,zho,80,d1,False,[],1.0,2.0\n", r"export\.csv:2: system 's9' is neither a system nor a reference"),
        ("a1,s1,7,TGT,eng,zho,80,d1,False,[],1.0,2.0\n", r"export\.csv:2: item 7 is not a segment of corpus"),
        ("a1,s1,0,TGT,eng,jpn,80,d1,False,[],1.0,2.0\n", r"export\.csv:2: target language 'jpn' but the corpus is 'zh'"),
    ],
)
def test_bad_exports(tmp_path, row, pattern):
    path = write(tmp_path / "export.csv", _row("a0", "s2", 2, 50, "d2", 3) + row)
    with raises_at(pattern) as exc:
        read_appraise_csv(path, corpus_dir=_corpus(tmp_path))
    one_line(exc)


def test_export_with_only_dropped_rows(tmp_path):
    path = write(tmp_path / "export.csv", _row("a1", "ende-tutorial1", 1000001, 0, "ende-tutorial1", 5))
    with raises_at(r"export\.csv: no TGT ratings left"):
        read_appraise_csv(path)
