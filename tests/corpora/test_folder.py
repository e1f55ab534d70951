"""The plain corpus folder reader: real data, and every kind of bad input."""

from __future__ import annotations

import pandas as pd
import pytest

from metaeval.corpora import read_corpus_folder, read_judgments_folder
from metaeval.errors import DataError, UsageError

from ._helpers import DATA, make_folder, needs_data, one_line, raises_at, write

# (folder, segments, systems, references, source lang, target lang), from data/README.md.
REAL = [
    ("wmt24-esa/en-zh", 634, 12, ["refA"], "en", "zh"),
    ("wmt24-esa/en-ja", 634, 12, ["refA"], "en", "ja"),
    ("wmt21/en-zh", 1002, 29, ["A", "B"], "en", "zh"),
    ("wmt21/en-ja", 1000, 15, ["A"], "en", "ja"),
    ("wmt21/de-en", 1000, 19, ["A", "B"], "de", "en"),
    ("wmt21/ja-en", 1005, 16, ["A"], "ja", "en"),
    ("wmt23/en-zh", 2074, 15, ["refA"], "en", "zh"),
    ("wmt23/en-ja", 2074, 16, ["refA"], "en", "ja"),
    ("mlqe-pe/en-zh-test20", 1000, 1, ["pe"], "en", "zh"),
    ("mlqe-pe/en-zh-dev", 1000, 1, ["pe"], "en", "zh"),
    ("wmt24-esa/en-zh/original", 998, 21, ["refA"], "en", "zh"),
]


@needs_data
@pytest.mark.parametrize("folder,n_seg,n_sys,refs,src_lang,tgt_lang", REAL)
def test_real_folders_read(folder, n_seg, n_sys, refs, src_lang, tgt_lang):
    corpus = read_corpus_folder(DATA / folder)
    assert corpus.n_segments == n_seg
    assert len(corpus.systems) == n_sys
    assert corpus.reference_names == refs
    assert (corpus.source_lang, corpus.target_lang) == (src_lang, tgt_lang)
    assert corpus.seg_ids[:3] == ("1", "2", "3")
    # The first source line, read independently of the reader.
    first = (DATA / folder / f"src.{src_lang}").read_text(encoding="utf-8").split("\n")[0]
    assert corpus.sources[0] == first


@needs_data
def test_wmt24_docs_and_judgments():
    folder = DATA / "wmt24-esa/en-zh"
    corpus = read_corpus_folder(folder)
    docs = pd.read_csv(folder / "docs.tsv", sep="\t", dtype=str)
    assert list(corpus.doc_ids) == list(docs["doc_id"])
    judgments = read_judgments_folder(folder)
    assert len(judgments.table) == 634 * 12 * 2
    assert judgments.kinds == ["esa", "esa_z"]
    judgments.validate_against(corpus)
    # human_sys.tsv: GPT-4 esa 90.7224, n_segments dropped as a count column.
    assert judgments.system_kinds == ["esa", "esa_z"]
    assert judgments.system_scores.loc["GPT-4", "esa"] == pytest.approx(90.7224)
    # The given system means are the means over the 634 segment ratings.
    means = judgments.table[judgments.table.kind == "esa"].groupby("system")["value"].mean()
    assert means["GPT-4"] == pytest.approx(90.7224, abs=1e-4)


@needs_data
def test_wmt23_human_sys_rows_without_output_are_kept():
    judgments = read_judgments_folder(DATA / "wmt23/en-zh")
    corpus = read_corpus_folder(DATA / "wmt23/en-zh")
    scores = judgments.system_scores
    assert list(scores.columns) == ["dasqm_raw_mean", "dasqm_z_mean"]  # not n_judgments, cluster_rank, has_output_file
    assert "Human-refA" in scores.index and "Human-refA" not in corpus.systems
    assert scores.loc["Yishu", "dasqm_raw_mean"] == pytest.approx(82.1586)


@needs_data
def test_header_only_human_sys_means_no_judgments():
    assert read_judgments_folder(DATA / "wmt21/de-en") is None


def test_selection_of_systems_and_references(tmp_path):
    folder = make_folder(tmp_path, systems=("s1", "s2", "s3"))
    corpus = read_corpus_folder(folder, systems=["s3", "s1"], references=["A"])
    assert corpus.system_names == ["s3", "s1"]
    with pytest.raises(UsageError, match="unknown system.*nope"):
        read_corpus_folder(folder, systems=["nope"])
    with pytest.raises(UsageError, match="missing-segment policy 'maybe'"):
        read_corpus_folder(folder, missing="maybe")


def test_line_count_mismatch_names_file_and_offset(tmp_path):
    folder = make_folder(tmp_path, n=4)
    write(folder / "systems" / "s2.zh", "a\nb\nc\n")
    with raises_at(r"systems/s2\.zh: 3 lines, expected 4 \(as in src\.en\) — off by -1") as exc:
        read_corpus_folder(folder)
    one_line(exc)


def test_extra_line_in_reference(tmp_path):
    folder = make_folder(tmp_path, n=2)
    write(folder / "ref.A.zh", "a\nb\nc\n")
    with raises_at(r"ref\.A\.zh: 3 lines, expected 2 .* off by \+1"):
        read_corpus_folder(folder)


def test_non_utf8_names_line_of_first_bad_byte(tmp_path):
    folder = make_folder(tmp_path)
    write(folder / "systems" / "s1.zh", "好\n".encode("utf-8") + "坏\n".encode("gb18030") + b"ok\n")
    with raises_at(r"systems/s1\.zh:2: not UTF-8") as exc:
        read_corpus_folder(folder)
    one_line(exc)


def test_nul_byte_is_an_error(tmp_path):
    folder = make_folder(tmp_path)
    write(folder / "src.en", b"a\nb\nc\x00\n")
    with raises_at(r"src\.en:3: NUL byte"):
        read_corpus_folder(folder)


def test_utf16_file_is_refused(tmp_path):
    folder = make_folder(tmp_path)
    write(folder / "ref.A.zh", "一\n二\n三\n".encode("utf-16"))
    with raises_at(r"ref\.A\.zh:1: "):
        read_corpus_folder(folder)


def test_bom_stripped_and_crlf_accepted(tmp_path):
    folder = make_folder(tmp_path)
    write(folder / "src.en", b"\xef\xbb\xbfsource 1\r\nsource 2\r\nsource 3\r\n")
    write(folder / "systems" / "s1.zh", "甲\n乙\r丙\n丁")  # lone \r kept; last line without \n
    corpus = read_corpus_folder(folder)
    assert corpus.sources == ("source 1", "source 2", "source 3")
    assert corpus.systems["s1"] == ("甲", "乙\r丙", "丁")


def test_empty_lines_are_empty_segments(tmp_path):
    folder = make_folder(tmp_path)
    write(folder / "systems" / "s1.zh", "\n\nlast\n")
    assert read_corpus_folder(folder).systems["s1"] == ("", "", "last")


@pytest.mark.parametrize(
    "remove,pattern",
    [
        ("src.en", r"no source file"),
        ("ref.A.zh", r"no reference file"),
        ("systems", r"no systems/ folder"),
    ],
)
def test_missing_parts_are_errors(tmp_path, remove, pattern):
    folder = make_folder(tmp_path)
    target = folder / remove
    if target.is_dir():
        for p in target.iterdir():
            p.unlink()
        target.rmdir()
    else:
        target.unlink()
    with raises_at(pattern):
        read_corpus_folder(folder)


def test_empty_folder_and_empty_systems(tmp_path):
    with raises_at("no source file"):
        read_corpus_folder(tmp_path)
    with raises_at("not a folder"):
        read_corpus_folder(tmp_path / "absent")
    folder = make_folder(tmp_path / "c", systems=())
    (folder / "systems").mkdir()
    with raises_at(r"systems: no system files"):
        read_corpus_folder(folder)


def test_empty_source_file(tmp_path):
    folder = make_folder(tmp_path)
    write(folder / "src.en", "")
    with raises_at(r"src\.en: empty file"):
        read_corpus_folder(folder)


def test_inconsistent_target_language(tmp_path):
    folder = make_folder(tmp_path)
    (folder / "systems" / "s2.zh").rename(folder / "systems" / "s2.ja")
    with raises_at(r"disagree on the target language \(zh: .*; ja: s2\.ja\)"):
        read_corpus_folder(folder)


def test_system_file_without_language_suffix(tmp_path):
    folder = make_folder(tmp_path)
    write(folder / "systems" / "plain", "a\nb\nc\n")
    with raises_at(r"systems/plain: expected a name with a language suffix"):
        read_corpus_folder(folder)


def test_docs_tsv_checks(tmp_path):
    folder = make_folder(tmp_path)
    write(folder / "docs.tsv", "seg_id\tdoc_id\n1\td1\n2\td1\n3\td2\n")
    assert read_corpus_folder(folder).doc_ids == ("d1", "d1", "d2")
    write(folder / "docs.tsv", "seg_id\tdoc_id\n1\td1\n1\td1\n3\td2\n")
    with raises_at(r"docs\.tsv:3: segment 1 listed twice \(first at line 2\)"):
        read_corpus_folder(folder)
    write(folder / "docs.tsv", "seg_id\tdoc_id\n1\td1\n2\td1\n")
    with raises_at(r"docs\.tsv: no doc_id for segment\(s\) 3"):
        read_corpus_folder(folder)
    write(folder / "docs.tsv", "seg_id\tdoc_id\n1\td1\n2\td1\n9\td2\n")
    with raises_at(r"docs\.tsv:4: segment '9' is not in the corpus"):
        read_corpus_folder(folder)
    write(folder / "docs.tsv", "seg_id\tdoc_id\n1\td1\n2\n3\td2\n")
    with raises_at(r"docs\.tsv:3: 1 fields, expected 2"):
        read_corpus_folder(folder)
    # 0-based line_idx as in the WMT24 original/ folder: line_idx 0 is segment 1.
    write(folder / "docs.tsv", "line_idx\tdomain\tdoc_id\n0\tcanary\tcanary\n1\tnews\tn1\n2\tnews\tn1\n")
    assert read_corpus_folder(folder).doc_ids == ("canary", "n1", "n1")


def test_judgments_tsv_checks(tmp_path):
    folder = make_folder(tmp_path)
    header = "seg_id\tsystem\tjudge\tkind\tvalue\n"
    write(folder / "judgments.tsv", header + "1\ts1\tj\tesa\t80\n2\ts1\tj\tesa\t70\n1\ts1\tj\tesa\t60\n")
    with raises_at(r"judgments\.tsv:4: duplicate judgment for segment 1, system 's1', judge 'j', kind 'esa' \(first at line 2\)"):
        read_judgments_folder(folder)
    write(folder / "judgments.tsv", header + "1\ts1\tj\tesa\tgood\n")
    with raises_at(r"judgments\.tsv:2: value of kind 'esa' 'good' is not a number"):
        read_judgments_folder(folder)
    write(folder / "judgments.tsv", "seg_id\tsystem\tscore\n1\ts1\t3\n")
    with raises_at(r"judgments\.tsv:1: missing column\(s\) judge, kind, value"):
        read_judgments_folder(folder)
    write(folder / "judgments.tsv", header + "1\ts1\tj\tesa\tnan\n")
    with raises_at(r"judgments\.tsv:2: .*not a finite number"):
        read_judgments_folder(folder)


def test_human_sys_checks(tmp_path):
    folder = make_folder(tmp_path)
    write(folder / "human_sys.tsv", "system\tda\tn_items\tcluster\ns1\t0.5\t10\t1-2\ns2\t-0.25\t12\t2\n")
    judgments = read_judgments_folder(folder)
    assert judgments.table.empty
    assert list(judgments.system_scores.columns) == ["da"]
    assert judgments.system_scores.loc["s2", "da"] == -0.25
    write(folder / "human_sys.tsv", "system\tda\ns1\t0.5\ns2\t\n")
    with raises_at(r"human_sys\.tsv:3: da of system 's2' '' is not a number"):
        read_judgments_folder(folder)
    write(folder / "human_sys.tsv", "system\tda\ns1\t0.5\ns1\t0.2\n")
    with raises_at(r"human_sys\.tsv:3: system 's1' listed twice"):
        read_judgments_folder(folder)


def test_no_judgment_files_gives_none(tmp_path):
    assert read_judgments_folder(make_folder(tmp_path)) is None


def test_error_is_data_error_subclass(tmp_path):
    folder = make_folder(tmp_path, n=2)
    write(folder / "systems" / "s1.zh", "x\n")
    with pytest.raises(DataError):
        read_corpus_folder(folder)
