"""Document-level meta-evaluation on hand-computed cases."""

import sys

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from metaeval.corpora.model import Judgments
from metaeval.doclevel import document_config, document_judgments, evaluate_documents
from metaeval.errors import UsageError
from metaeval.scoretable import ConfigScores
from tests.timing import run

SYSTEMS = ["a", "b", "c"]
SEGS = ["1", "2", "3", "4", "5"]
DOC_OF = {"1": "d1", "2": "d1", "3": "d2", "4": "d3", "5": "d3"}


def _ratio(stats):
    return stats[..., 0] / stats[..., 1]


def _config():
    # statistics (matches, total) per system and segment
    matches = np.array([[1, 2, 3, 1, 0], [2, 2, 1, 4, 4], [0, 1, 2, 2, 1]], dtype=float)
    totals = np.array([[2, 4, 4, 5, 5], [4, 4, 2, 5, 5], [4, 2, 4, 4, 2]], dtype=float)
    stats = np.stack([matches, totals], axis=-1)
    seg = _ratio(stats)
    return ConfigScores("ratio", "char", "ratio|char", SYSTEMS, SEGS, seg, _ratio(stats.sum(1)), stats=stats, score_fn=_ratio)


def _judgments():
    rows = []
    values = {"a": [50, 70, 20, 90, 10], "b": [60, 60, 80, 30, 40], "c": [10, 20, 30, 40, 50]}
    for system, vals in values.items():
        for seg, v in zip(SEGS, vals):
            rows.append((seg, system, "j1", "da", v))
            rows.append((seg, system, "j2", "da", v + 10))  # judge means are v + 5
    return Judgments(pd.DataFrame(rows, columns=["seg_id", "system", "judge", "kind", "value"]))


def test_document_scores_are_the_metric_of_summed_statistics():
    doc = document_config(_config(), DOC_OF)
    assert doc.seg_ids == ["d1", "d2", "d3"]
    # system a: d1 = (1+2)/(2+4), d2 = 3/4, d3 = (1+0)/(5+5); not the mean of segment ratios
    np.testing.assert_allclose(doc.seg_scores[0], [3 / 6, 3 / 4, 1 / 10])
    np.testing.assert_allclose(doc.seg_scores[2], [1 / 6, 2 / 4, 3 / 6])
    np.testing.assert_allclose(doc.sys_scores, _config().sys_scores)


def test_document_judgments_average_judges_then_segments():
    table = document_judgments(_judgments(), DOC_OF).table
    got = table.set_index(["system", "seg_id"])["value"]
    assert got[("a", "d1")] == pytest.approx((55 + 75) / 2)
    assert got[("a", "d2")] == pytest.approx(25)
    assert got[("b", "d3")] == pytest.approx((35 + 45) / 2)
    assert len(table) == 9


def test_pooled_pearson_at_document_level_equals_scipy():
    table = evaluate_documents([_config()], _judgments(), DOC_OF, statistics=["doc:pearson@none"], n_bootstrap=0)
    assert list(table["level"]) == ["doc"] and list(table["grouping"]) == ["none"]
    metric = np.array([[3 / 6, 3 / 4, 1 / 10], [4 / 8, 1 / 2, 8 / 10], [1 / 6, 2 / 4, 3 / 6]]).ravel()
    human = np.array([[65, 25, 55], [65, 85, 40], [20, 35, 50]], dtype=float).ravel()
    assert table["value"].iloc[0] == pytest.approx(scipy.stats.pearsonr(metric, human)[0], abs=1e-12)


def test_document_level_refuses_a_system_only_statistic():
    with pytest.raises(UsageError):
        evaluate_documents([_config()], _judgments(), DOC_OF, statistics=["doc:soft_pairwise_accuracy"], n_bootstrap=0)


def test_run_doc_level_without_documents_is_one_error_line(tmp_path):
    corpus = tmp_path / "toy"
    (corpus / "systems").mkdir(parents=True)
    (corpus / "src.en").write_text("a\nb\n", encoding="utf-8")
    (corpus / "ref.A.zh").write_text("我们\n你们\n", encoding="utf-8")
    for name, text in (("x", "我们\n你\n"), ("y", "我\n你们\n")):
        (corpus / "systems" / f"{name}.zh").write_text(text, encoding="utf-8")
    (corpus / "judgments.tsv").write_text(
        "seg_id\tsystem\tjudge\tkind\tvalue\n1\tx\tj\tda\t80\n1\ty\tj\tda\t20\n2\tx\tj\tda\t30\n2\ty\tj\tda\t90\n",
        encoding="utf-8",
    )
    done = run(
        [sys.executable, "-m", "metaeval", "run", str(corpus), "-s", "char", "-m", "bleu", "--bootstrap", "0", "--doc-level", "-q"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("metaeval: error:") and "docs.tsv" in lines[0]


def test_a_segment_without_document_is_named():
    with pytest.raises(UsageError, match=r"document level: segment 5 has no document id \(1 segments lack one\)"):
        document_config(_config(), {k: v for k, v in DOC_OF.items() if k != "5"})


def test_without_statistics_a_document_score_is_the_mean_segment_score():
    config = _config()
    plain = ConfigScores("ratio", "char", "ratio|char", SYSTEMS, SEGS, config.seg_scores, config.sys_scores)
    doc = document_config(plain, DOC_OF)
    # system a: d1 = mean(1/2, 2/4), d2 = 3/4, d3 = mean(1/5, 0/5)
    np.testing.assert_allclose(doc.seg_scores[0], [0.5, 0.75, 0.1])
    assert doc.stats is None and doc.score_fn is None


def test_default_statistics_skip_system_and_other_level_ones():
    from metaeval.doclevel import _segment_statistics

    assert _segment_statistics(["sys:pearson", "seg:pearson@item", "doc:kendall", "pearson", "soft_pairwise_accuracy"]) == [
        "seg:pearson@item", "seg:kendall", "seg:pearson",
    ]  # fmt: skip
    with pytest.raises(UsageError, match="statistic doc:nonsense does not exist"):
        _segment_statistics(["doc:nonsense"])


def test_document_level_needs_segment_judgments_of_the_kinds_asked():
    from metaeval.errors import DataError

    with pytest.raises(DataError, match="document level needs segment judgments"):
        evaluate_documents([_config()], _judgments(), DOC_OF, kinds=["mqm"], n_bootstrap=0)


def test_document_judgments_are_signed_as_the_mean_of_a_document():
    assert set(document_judgments(_judgments(), DOC_OF).table["judge"]) == {"doc-mean"}
