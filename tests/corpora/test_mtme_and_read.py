"""The mt-metrics-eval layout and the ``corpora.read`` entry point."""

from __future__ import annotations

import shutil

import pytest

from metaeval import corpora
from metaeval.corpora import read, read_mtme_folder
from metaeval.errors import UsageError

from ._helpers import DATA, FIXTURES, needs_data, raises_at, write

MTME = FIXTURES / "mtme" / "wmt-mini"


def test_mtme_fixture():
    corpus, judgments = read_mtme_folder(MTME)
    assert corpus.seg_ids == ("1", "2", "3")
    assert corpus.system_names == ["NiuTrans", "Online-A"]  # refA output left out
    assert corpus.reference_names == ["refA"]
    assert corpus.doc_ids == ("doc-1", "doc-1", "doc-2")
    assert (corpus.source_lang, corpus.target_lang, corpus.name) == ("en", "zh", "wmt-mini/en-zh")
    assert corpus.systems["Online-A"][2] == "价格涨了5%。"
    values = {(r.seg_id, r.system, r.kind): r.value for r in judgments.table.itertuples()}
    # Stored as negated penalties (-5.1); read back as the MQM penalty 5.1. "None" is unscored.
    assert values == {
        ("1", "NiuTrans", "mqm"): 1.0, ("2", "NiuTrans", "mqm"): 0.0,
        ("1", "Online-A", "mqm"): 5.1, ("2", "Online-A", "mqm"): 0.1, ("3", "Online-A", "mqm"): 25.0,
    }
    assert judgments.direction("mqm") == -1
    scores = judgments.system_scores
    assert scores.loc["Online-A", "mqm"] == pytest.approx(10.066667)
    assert scores.loc["refA", "wmt_z"] == pytest.approx(0.30)
    judgments.validate_against(corpus)


def test_mtme_include_references_and_lp():
    corpus, _ = read_mtme_folder(MTME, lp="en-zh", include_references=True)
    assert "refA" in corpus.systems
    with pytest.raises(UsageError, match="no sources/de-en.txt; language pairs: en-zh"):
        read_mtme_folder(MTME, lp="de-en")


def test_mtme_bad_input(tmp_path):
    folder = shutil.copytree(MTME, tmp_path / "m")
    write(folder / "system-outputs/en-zh/Online-A.txt", "a\nb\n")
    with raises_at(r"Online-A\.txt: 2 lines, expected 3 \(as in en-zh\.txt\) — off by -1"):
        read_mtme_folder(folder)
    shutil.copy(MTME / "system-outputs/en-zh/Online-A.txt", folder / "system-outputs/en-zh/Online-A.txt")
    write(folder / "human-scores/en-zh.mqm.seg.score", "NiuTrans\t-1\nOnline-A\t0\n")
    with raises_at(r"en-zh\.mqm\.seg\.score: system\(s\) NiuTrans, Online-A have 1 scores, expected 3"):
        read_mtme_folder(folder)
    write(folder / "human-scores/en-zh.mqm.seg.score", "NiuTrans\tbad\n")
    with raises_at(r"en-zh\.mqm\.seg\.score:1: score of 'NiuTrans' 'bad' is not a number"):
        read_mtme_folder(folder)


def test_read_detects_layouts(tmp_path):
    corpus, judgments = read(MTME)
    assert corpus.n_segments == 3 and judgments is not None
    assert corpus.n_segments == read(MTME, format="mtme")[0].n_segments
    with raises_at(r"not a corpus: expected src\.<lang> \+ systems/"):
        read(tmp_path)
    with raises_at("not a folder"):
        read(tmp_path / "nothing")
    with pytest.raises(UsageError, match="unknown corpus format"):
        read(MTME, format="excel")
    with pytest.raises(UsageError, match=r"\(src, refs, tst\)"):
        read(("a", "b"))


def test_read_sgml_folder_must_be_complete(tmp_path):
    write(tmp_path / "src.sgm", "<srcset></srcset>")
    with raises_at(r"SGML files found but not one \*src\* file with \*ref\* and \*tst\* files"):
        read(tmp_path)


@needs_data
def test_read_plain_folder_with_judgments():
    corpus, judgments = read(DATA / "wmt24-esa/en-ja")
    assert corpus.target_lang == "ja" and judgments.kinds == ["esa", "esa_z"]


def test_formats_listing():
    assert set(corpora.FORMATS) == {
        "folder", "mtme", "nist-sgml", "long", "human-sys", "iwslt", "nist-fa", "appraise", "wmt-rr", "ad-seg-scores", "mqm",
    }
    assert all(corpora.JUDGMENT_FORMATS.values()) and all(corpora.CORPUS_FORMATS.values())
