"""What the judgment readers record besides the values: the line a bad row is on, the file an
empty table came from, the direction of a score, the judge column, the columns a file must have,
and which columns of a segments file can group segments."""

from __future__ import annotations

import shutil

import pytest

from metaeval.corpora import read_iwslt_ranks, read_mtme_folder, read_wmt_rr_csv
from metaeval.corpora.folder import check_segment_column, read_segment_column
from metaeval.corpora.mqm import read_mqm_tsv
from metaeval.errors import UsageError

from ._helpers import FIXTURES, one_line, raises_at, write


def test_an_empty_system_or_segment_is_reported_at_its_line(tmp_path):
    with raises_at(r"ranks\.csv:3: empty seg_id or system") as exc:
        read_iwslt_ranks(write(tmp_path / "ranks.csv", "seg_id,judge,system,rank\n1,j,a,1\n2,j,,2\n"))
    one_line(exc)


def test_a_judgment_file_without_judgments_is_named(tmp_path):
    header = (FIXTURES / "mqm_en-zh.tsv").read_text(encoding="utf-8").splitlines()[0] + "\n"
    path = write(tmp_path / "mqm.tsv", header)
    with raises_at(rf"^{path}: no judgments found"):
        read_mqm_tsv(path)


def test_wmt_relative_ranks_are_lower_is_better():
    judgments = read_wmt_rr_csv(FIXTURES / "wmt13-rr-5way.csv")
    assert judgments.direction("rank") == -1


def test_mtme_scores_have_no_judge_and_two_fields_a_line(tmp_path):
    _, judgments = read_mtme_folder(FIXTURES / "mtme" / "wmt-mini")
    assert set(judgments.table.judge) == {""}
    folder = shutil.copytree(FIXTURES / "mtme" / "wmt-mini", tmp_path / "m")
    write(folder / "human-scores/en-zh.mqm.seg.score", "NiuTrans -1 x\nNiuTrans 0 x\nNiuTrans 0 x\n")
    with raises_at(r"en-zh\.mqm\.seg\.score:1: 3 fields, expected 2"):
        read_mtme_folder(folder)


def test_a_segments_file_groups_by_its_own_columns_only(tmp_path):
    docs = write(tmp_path / "docs.tsv", "seg_id\tdoc_id\tdomain\n1\td1\tnews\n2\td1\t\n")
    with pytest.raises(UsageError, match=r"no column 'seg_id' to group segments by; its columns: doc_id, domain$"):
        check_segment_column(docs, "seg_id")
    with pytest.raises(UsageError, match=r"no column 'genre' to group segments by; its columns: doc_id, domain$"):
        check_segment_column(docs, "genre")
    with raises_at(r"docs\.tsv:3: segment 2 has no value in column 'domain'"):
        read_segment_column(docs, "domain", ["1", "2"])
