"""Corpus and Judgments refuse inconsistent data at construction, with one line naming what is wrong."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metaeval.corpora.model import Corpus, Judgments, apply_missing_policy, describe, name_problem
from metaeval.errors import DataError, UsageError


def corpus(**changes) -> Corpus:  # noqa: ANN003
    fields = dict(
        seg_ids=("1", "2", "3"), sources=("a", "b", "c"), references={"A": ("x", "y", "z")},
        systems={"s1": ("x", "y", "w"), "s2": ("x", "q", "z")}, name="toy",
    )  # fmt: skip
    fields.update(changes)
    return Corpus(**fields)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"seg_ids": (), "sources": (), "references": {"A": ()}, "systems": {"s": ()}}, "corpus 'toy': no segments"),
        ({"seg_ids": ("1", "2", "1")}, "duplicate segment ids: 1"),
        ({"references": {}}, "no reference translation"),
        ({"systems": {}}, "no system outputs"),
        ({"systems": {"s\t1": ("x", "y", "z")}}, r"system name 's\\t1' contains the control character U\+0009"),
        ({"references": {" A": ("x", "y", "z")}}, "reference name ' A' starts or ends with whitespace"),
        ({"systems": {"s1": ("x", "y")}}, r"system 's1' has 2 segments, expected 3 \(off by -1\)"),
        ({"sources": ("a", "b", "c", "d")}, r"source has 4 segments, expected 3 \(off by \+1\)"),
        ({"systems": {"s1": ("x", None, "z")}}, "system 's1' has no text for segments 2"),
    ],
)
def test_inconsistent_corpora_are_refused(changes, message):
    with pytest.raises(DataError, match=message):
        corpus(**changes)


def test_the_file_of_a_short_system_is_named():
    with pytest.raises(DataError, match=r"^systems/s1\.zh: system 's1' has 1 segments"):
        corpus(systems={"s1": ("x",)}, origin={"sys:s1": "systems/s1.zh"})


def test_subset_keeps_corpus_order_and_refuses_unknown_names():
    c = corpus()
    sub = c.subset(systems=["s2"], seg_ids=["3", "1"])
    assert sub.seg_ids == ("1", "3") and sub.system_names == ["s2"] and sub.systems["s2"] == ("x", "z")
    assert sub.references == {"A": ("x", "z")} and sub.name == "toy"
    with pytest.raises(UsageError, match="unknown system"):
        c.subset(systems=["s9"])
    with pytest.raises(UsageError, match="unknown reference"):
        c.subset(references=["B"])
    with pytest.raises(UsageError, match=r"unknown segment id\(s\) 9"):
        c.subset(seg_ids=["9"])


def test_missing_hypotheses_follow_the_policy():
    systems = {"s1": ["x", None, "z"], "s2": ["x", "y", None]}
    assert apply_missing_policy(["1", "2", "3"], systems, "skip") == ([0], {"s1": ["x"], "s2": ["x"]})
    assert apply_missing_policy(["1", "2", "3"], systems, "empty") == ([0, 1, 2], {"s1": ["x", "", "z"], "s2": ["x", "y", ""]})
    with pytest.raises(DataError, match=r"^sys1\.txt: system 's1' lacks 1 segment\(s\): 2 \(use --missing"):
        apply_missing_policy(["1", "2", "3"], systems, "error", {"sys:s1": "sys1.txt"})
    with pytest.raises(UsageError, match="unknown missing-segment policy 'drop'"):
        apply_missing_policy(["1"], {"s": ["x"]}, "drop")


def test_names_and_descriptions():
    assert name_problem("") == "is empty" and name_problem(3) == "is empty"
    assert name_problem("a\u2028b") == "contains the control character U+2028"
    assert name_problem("GPT-4") is None
    assert describe([str(i) for i in range(7)]) == "0, 1, 2, 3, 4 and 2 more"


def judgments(rows: list[tuple], **kwargs) -> Judgments:  # noqa: ANN003
    return Judgments(pd.DataFrame(rows, columns=["seg_id", "system", "judge", "kind", "value"]), **kwargs)


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([("1", "s1", "j", "esa", "high")], r"non-numeric or non-finite value 'high' \(segment 1, system 's1', kind 'esa'\)"),
        ([("1", "s1", "j", "esa", np.inf)], "non-numeric or non-finite value inf"),
        ([("1", "s1", "j", "esa", 1), ("1", "s1", "j", "esa", 2)], "duplicate judgment for segment 1, system 's1', judge 'j'"),
        ([("1", "s\n1", "j", "esa", 1)], "system name 's\\\\n1' contains the control character U\\+000A"),
    ],
)
def test_invalid_judgments_are_refused(rows, message):
    with pytest.raises(DataError, match=message):
        judgments(rows, source="judgments.tsv")


def test_a_missing_column_is_named():
    with pytest.raises(DataError, match=r"^j\.tsv: missing column\(s\) judge, value"):
        Judgments(pd.DataFrame({"seg_id": ["1"], "system": ["s"], "kind": ["esa"]}), source="j.tsv")


def test_system_scores_refuse_infinities_and_bad_names():
    rows = [("1", "s1", "j", "esa", 1.0)]
    with pytest.raises(DataError, match="non-finite 'esa' for system 's1'"):
        judgments(rows, system_scores=pd.DataFrame({"esa": [np.inf]}, index=["s1"]))
    with pytest.raises(DataError, match="system name 's 1 ' starts or ends with whitespace"):
        judgments(rows, system_scores=pd.DataFrame({"esa": [1.0]}, index=["s 1 "]))
    given = judgments(rows, system_scores=pd.DataFrame({"esa": [np.nan], "note": ["x"]}, index=["s1"]))
    assert given.system_kinds == ["esa"]  # NaN is "not scored"; a text column is no kind
    assert judgments(rows).system_kinds == []


def test_judgments_are_validated_against_the_corpus():
    c = corpus()
    with pytest.raises(DataError, match=r"judgments name system\(s\) not in the corpus: s9; corpus systems: s1, s2"):
        judgments([("1", "s9", "j", "esa", 1.0)]).validate_against(c)
    with pytest.raises(DataError, match=r"judgments name segment\(s\) not in the corpus: 7"):
        judgments([("7", "s1", "j", "esa", 1.0)]).validate_against(c)


def test_segment_matrix_averages_judges_and_leaves_unjudged_cells_empty():
    j = judgments([("1", "s1", "a", "esa", 60.0), ("1", "s1", "b", "esa", 80.0), ("2", "s2", "a", "esa", 10.0)])
    m = j.segment_matrix("esa", ["s1", "s2"], ["1", "2"])
    np.testing.assert_array_equal(m, [[70.0, np.nan], [np.nan, 10.0]])
    with pytest.raises(UsageError, match="no judgments of kind 'mqm'; kinds present: esa"):
        j.segment_matrix("mqm", ["s1"], ["1"])
