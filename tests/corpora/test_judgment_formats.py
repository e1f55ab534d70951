"""IWSLT ranks, NIST fluency/adequacy, WMT ranking CSV, DA ad-seg-scores and MQM readers."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from metaeval.corpora import (
    detect_judgment_format,
    read_ad_seg_scores,
    read_iwslt_ranks,
    read_judgments,
    read_mqm_tsv,
    read_nist_fa,
    read_wmt_rr_csv,
)
from metaeval.corpora.mqm import mqm_weight
from metaeval.errors import UsageError

from ._helpers import FIXTURES, WMT24, needs_data, one_line, raises_at, write


def _values(judgments) -> dict:
    return {(r.seg_id, r.system, r.judge, r.kind): r.value for r in judgments.table.itertuples()}


# --- IWSLT ranks -------------------------------------------------------------------------


@needs_data
@pytest.mark.parametrize("pair", ["en-zh", "en-ja"])
def test_iwslt_ranks_order_systems_as_esa(pair):
    ranks = read_iwslt_ranks(WMT24 / pair / "iwslt_ranks.tsv")
    assert ranks.kinds == ["rank"] and ranks.direction("rank") == -1
    assert len(ranks.table) == 634 * 12
    rank = ranks.table.pivot(index="seg_id", columns="system", values="value")
    esa = pd.read_csv(WMT24 / pair / "judgments.tsv", sep="\t", dtype={"seg_id": str})
    esa = esa[esa.kind == "esa"].pivot(index="seg_id", columns="system", values="value").loc[rank.index, rank.columns]
    pairs = 0
    for a, b in itertools.combinations(rank.columns, 2):
        # rank 1 is best: a better rank (smaller) must go with a higher ESA, ties with ties.
        np.testing.assert_array_equal(np.sign(rank[b] - rank[a]), np.sign(esa[a] - esa[b]))
        pairs += len(rank)
    assert pairs == 634 * 66


def test_iwslt_wide_fixture():
    got = _values(read_judgments(FIXTURES / "iwslt08-wide.tsv"))
    assert got == {
        ("1", "sysA", "j1", "rank"): 1.0, ("1", "sysB", "j1", "rank"): 3.0, ("1", "sysC", "j1", "rank"): 2.0,
        ("1", "sysA", "j2", "rank"): 2.0, ("1", "sysB", "j2", "rank"): 2.0, ("1", "sysC", "j2", "rank"): 1.0,
        ("2", "sysA", "j1", "rank"): 1.0, ("2", "sysC", "j1", "rank"): 2.0,  # sysB left empty
    }


def test_iwslt_long_csv(tmp_path):
    path = write(tmp_path / "ranks.csv", "seg_id,judge,system,rank\n1,j,a,1\n1,j,b,2.5\n")
    assert _values(read_iwslt_ranks(path)) == {("1", "a", "j", "rank"): 1.0, ("1", "b", "j", "rank"): 2.5}


@pytest.mark.parametrize(
    "text,pattern",
    [
        ("seg_id\tjudge\tsystem\trank\n1\tj\ta\t0\n", r"ranks\.tsv:2: rank '0' must be positive"),
        ("seg_id\tjudge\tsystem\trank\n1\tj\ta\tfirst\n", r"ranks\.tsv:2: rank 'first' is not a number"),
        ("seg_id\tjudge\tsystem\trank\n1\tj\ta\t1\n1\tj\ta\t2\n", r"ranks\.tsv:3: duplicate judgment .*first at line 2"),
        ("seg_id\tjudge\ta\tb\n1\tj\t1\n", r"ranks\.tsv:2: 3 fields, expected 4"),
        ("seg_id\tjudge\n1\tj\n", r"ranks\.tsv:1: no system columns"),
        ("judge\tsystem\trank\nj\ta\t1\n", r"ranks\.tsv:1: missing column\(s\) seg_id"),
        ("", r"ranks\.tsv: empty file"),
        ("seg_id\tjudge\tsystem\trank\n", r"ranks\.tsv: no judgments found"),
    ],
)
def test_iwslt_bad_input(tmp_path, text, pattern):
    with raises_at(pattern) as exc:
        read_iwslt_ranks(write(tmp_path / "ranks.tsv", text))
    one_line(exc)


# --- NIST fluency / adequacy -------------------------------------------------------------


def test_nist_fa_fixture_doc_scoped_ids():
    got = _values(read_nist_fa(FIXTURES / "nist08-fa.tsv"))
    # seg_id 1 occurs in two documents, so ids become <doc_id>:<seg_id>.
    assert got[("AFP_ENG_20080101.0001:1", "sys01", "J1", "fluency")] == 4.0
    assert got[("AFP_ENG_20080101.0001:1", "sys01", "J1", "adequacy")] == 5.0
    assert got[("XIN_ENG_20080102.0007:1", "sys01", "J2", "adequacy")] == 2.0
    # sys02 segment 2 has fluency only (empty adequacy cell).
    assert ("AFP_ENG_20080101.0001:2", "sys02", "J2", "adequacy") not in got
    assert len(got) == 9


def test_nist_fa_csv_plain_ids_and_forced_scoping():
    assert set(read_nist_fa(FIXTURES / "nist08-fa.csv").table.seg_id) == {"1", "2"}
    assert set(read_nist_fa(FIXTURES / "nist08-fa.csv", doc_scoped_ids=True).table.seg_id) == {"D1:1", "D1:2"}


@pytest.mark.parametrize(
    "row,pattern",
    [
        ("s\td\t1\tj\t6\t3\n", r"fa\.tsv:2: fluency '6' outside the 1-5 scale"),
        ("s\td\t1\tj\t3\t0\n", r"fa\.tsv:2: adequacy '0' outside the 1-5 scale"),
        ("s\td\t1\tj\tgood\t3\n", r"fa\.tsv:2: fluency 'good' is not a number"),
        ("s\td\t\tj\t3\t3\n", r"fa\.tsv:2: empty system or seg_id"),
    ],
)
def test_nist_fa_bad_input(tmp_path, row, pattern):
    path = write(tmp_path / "fa.tsv", "system\tdoc_id\tseg_id\tjudge\tfluency\tadequacy\n" + row)
    with raises_at(pattern):
        read_nist_fa(path)


# --- WMT relative ranking ----------------------------------------------------------------


def test_wmt_rr_five_way_fixture():
    got = _values(read_wmt_rr_csv(FIXTURES / "wmt13-rr-5way.csv"))
    # Row at line 2: sysC 2, sysA 1, sysE 3, sysB 3, sysD -1 (blank, skipped).
    assert got[("12", "newstest2013.sysC.1", "judge7/line2", "rank")] == 2.0
    assert got[("12", "newstest2013.sysB.1", "judge7/line2", "rank")] == 3.0
    assert ("12", "newstest2013.sysD.1", "judge7/line2", "rank") not in got
    # The same judge ranked segment 12 twice: two separate tasks.
    assert got[("12", "newstest2013.sysD.1", "judge7/line3", "rank")] == 5.0
    assert len(got) == 4 + 5 + 5


def test_wmt_rr_pairwise_fixture_groups_by_ranking_id():
    got = _values(read_judgments(FIXTURES / "wmt16-rr-pairwise.csv"))
    uedin, a, b = (f"newstest2016.{s}.en-zh" for s in ("uedin-nmt.4361", "online-A.0", "online-B.0"))
    assert got == {
        ("779", uedin, "judge1/1", "rank"): 5.0, ("779", a, "judge1/1", "rank"): 3.0,
        ("779", b, "judge1/1", "rank"): 1.0, ("779", a, "judge1/2", "rank"): 2.0,
        ("779", b, "judge1/2", "rank"): 2.0, ("15", b, "judge3/3", "rank"): 1.0,
        ("15", uedin, "judge3/3", "rank"): 1.0,
    }


def test_wmt_rr_conflicting_rank_in_one_task(tmp_path):
    text = (FIXTURES / "wmt16-rr-pairwise.csv").read_text(encoding="utf-8")
    text += "eng,zho,779,779,judge1,newstest2016.online-B.0.en-zh,4,newstest2016.online-A.0.en-zh,3,1\n"
    with raises_at(r"rr\.csv:7: system 'newstest2016\.online-B\.0\.en-zh' ranked 4 in task 'judge1/1', but 1 at line 3"):
        read_wmt_rr_csv(write(tmp_path / "rr.csv", text))


def test_wmt_rr_bad_header_and_rank(tmp_path):
    with raises_at(r"rr\.csv:1: not a WMT ranking header"):
        read_wmt_rr_csv(write(tmp_path / "rr.csv", "srcIndex,judgeId,system1Id\n1,j,a\n"))
    text = "srclang,trglang,srcIndex,segmentId,judgeID,system1Id,system1rank,system2Id,system2rank,rankingID\n"
    with raises_at(r"rr\.csv:2: system2rank 0; expected 1\.\.5 or -1"):
        read_wmt_rr_csv(write(tmp_path / "rr.csv", text + "eng,zho,1,1,j,a,1,b,0,1\n"))


# --- WMT DA ad-seg-scores ----------------------------------------------------------------


def test_ad_seg_scores_fixture():
    got = _values(read_ad_seg_scores(FIXTURES / "ad-seg-scores-en-zh.csv"))
    assert got[("483", "Facebook-AI.4", "", "da")] == 86.0
    assert got[("483", "Facebook-AI.4", "", "da_z")] == pytest.approx(0.112642156069778)
    assert got[("483", "NiuTrans.123", "", "da")] == 72.5
    assert len(got) == 8


def test_ad_seg_scores_bad_input(tmp_path):
    with raises_at(r"ad\.csv:3: Z\.SCR 'NA' is not a number"):
        read_ad_seg_scores(write(tmp_path / "ad.csv", "SYS SID RAW.SCR Z.SCR N\na 1 50 0.1 1\na 2 40 NA 1\n"))
    with raises_at(r"ad\.csv:3: duplicate judgment for segment 1, system 'a'"):
        read_ad_seg_scores(write(tmp_path / "ad.csv", "SYS SID RAW.SCR Z.SCR N\na 1 50 0.1 1\na 1 40 0.0 1\n"))
    with raises_at(r"ad\.csv:2: 4 fields, expected 5"):
        read_ad_seg_scores(write(tmp_path / "ad.csv", "SYS SID RAW.SCR Z.SCR N\na 1 50 0.1\n"))


# --- MQM ---------------------------------------------------------------------------------


def test_mqm_weights():
    assert mqm_weight("Accuracy/Mistranslation", "Major") == 5
    assert mqm_weight("Non-translation!", "Major") == 25
    assert mqm_weight("Fluency/Punctuation", "Minor") == 0.1
    assert mqm_weight("Fluency/Punctuation", "Major") == 5
    assert mqm_weight("Style/Awkward", "minor") == 1
    assert mqm_weight("No-error", "No-error") == 0 and mqm_weight("Style/Awkward", "Neutral") == 0
    assert mqm_weight("Accuracy", "Critical") is None


def test_mqm_fixture_sums_per_system_segment_rater():
    judgments = read_mqm_tsv(FIXTURES / "mqm_en-zh.tsv")
    assert judgments.direction("mqm") == -1
    assert _values(judgments) == pytest.approx({
        ("7", "sysA", "rater1", "mqm"): 6.1,  # Minor 1 + Minor Fluency/Punctuation 0.1 + Major 5
        ("7", "sysB", "rater2", "mqm"): 0.0,  # No-error
        ("8", "sysB", "rater2", "mqm"): 25.0,  # Non-translation!
        ("8", "sysA", "rater1", "mqm"): 5.0,  # Neutral 0 + Major Fluency/Punctuation 5
    })


def test_mqm_unknown_severity(tmp_path):
    text = (FIXTURES / "mqm_en-zh.tsv").read_text(encoding="utf-8").replace("\tMajor\n", "\tCritical\n", 1)
    with raises_at(r"mqm\.tsv:4: unknown severity 'Critical'"):
        read_mqm_tsv(write(tmp_path / "mqm.tsv", text))


# --- detection ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,fmt",
    [
        ("iwslt08-wide.tsv", "iwslt"),
        ("nist08-fa.tsv", "nist-fa"),
        ("nist08-fa.csv", "nist-fa"),
        ("wmt13-rr-5way.csv", "wmt-rr"),
        ("wmt16-rr-pairwise.csv", "wmt-rr"),
        ("ad-seg-scores-en-zh.csv", "ad-seg-scores"),
        ("mqm_en-zh.tsv", "mqm"),
    ],
)
def test_detect_fixture_formats(name, fmt):
    assert detect_judgment_format(FIXTURES / name) == fmt


@needs_data
def test_detect_real_formats():
    assert detect_judgment_format(WMT24 / "en-zh/judgments.tsv") == "long"
    assert detect_judgment_format(WMT24 / "en-zh/iwslt_ranks.tsv") == "iwslt"
    assert detect_judgment_format(WMT24 / "en-zh/original/appraise_esa_waves2-3.csv") == "appraise"
    assert detect_judgment_format(WMT24.parent / "wmt21/en-zh/human_sys.tsv") == "human-sys"
    scores = read_judgments(WMT24.parent / "wmt21/en-zh/human_sys.tsv").system_scores
    assert list(scores.columns) == ["da_z", "da_raw"]  # n_judgments and has_output_file left out
    assert scores.loc["translator-B", "da_raw"] == pytest.approx(82.5254)


def test_detect_unknown_and_forced(tmp_path):
    path = write(tmp_path / "x.tsv", "a\tb\n1\t2\n")
    with raises_at(r"x\.tsv:1: unrecognised judgment format .*known formats: long, human-sys, iwslt"):
        read_judgments(path)
    with pytest.raises(UsageError, match="unknown judgment format 'nope'"):
        read_judgments(path, format="nope")
    forced = write(tmp_path / "y.tsv", "seg_id\tjudge\tsystem\trank\n1\tj\ta\t1\n")
    assert read_judgments(forced, format="iwslt").kinds == ["rank"]
