"""NaN, inf and non-numeric scores; one system; all-equal scores.

Bad numbers are refused with the file, the line and the column; undefined correlations are
reported as undefined (empty value, a reason in ``note``), never as 0 and never as a crash.
"""

from __future__ import annotations

import json

import pytest

from ._helpers import FAST, HYPS, assert_error, make_corpus, write


BAD_NUMBERS = ["nan", "NaN", "inf", "-Infinity", "abc", ""]


def _rows(result) -> list[dict]:
    assert result.code == 0, result.err
    return json.loads(result.out)["rows"]


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_bad_value_in_judgments_tsv(cli, corpus, bad):
    text = (corpus / "judgments.tsv").read_text().replace("s2\tj1\tesa\t70", f"s2\tj1\tesa\t{bad}")
    write(corpus / "judgments.tsv", text)
    # header is line 1, s1 lines 2-5, s2 seg 2 is line 7
    assert_error(cli("run", corpus, *FAST), 1, "judgments.tsv:7", "value of kind 'esa'", repr(bad))


@pytest.mark.parametrize("bad", BAD_NUMBERS[:-1])  # an empty cell is covered below
def test_bad_value_in_human_sys_tsv(cli, corpus, bad):
    (corpus / "judgments.tsv").unlink()
    write(corpus / "human_sys.tsv", f"system\tesa\ns1\t90\ns2\t{bad}\ns3\t10\n")
    assert_error(cli("run", corpus, *FAST), 1, "human_sys.tsv:3", "esa of system 's2'", repr(bad))


def test_empty_cell_in_human_sys_tsv(cli, corpus):
    (corpus / "judgments.tsv").unlink()
    write(corpus / "human_sys.tsv", "system\tesa\ns1\t90\ns2\t\ns3\t10\n")
    assert_error(cli("run", corpus, *FAST), 1, "human_sys.tsv:3", "esa of system 's2'")


def _scores_table(cli, corpus, path) -> str:
    result = cli("score", corpus, "-s", "char", "-m", "bleu", "-l", "seg,sys", "-q", "--output", path)
    assert result.code == 0, result.err
    return path.read_text()


@pytest.mark.parametrize("bad", ["nan", "inf", "-inf", "abc", ""])
def test_bad_score_in_correlate_scores_table(cli, corpus, tmp_path, bad):
    path = tmp_path / "scores.tsv"
    text = _scores_table(cli, corpus, path)
    header, *rows = text.splitlines()
    score_col = header.split("\t").index("score")
    cells = rows[0].split("\t")
    cells[score_col] = bad
    write(path, "\n".join([header, "\t".join(cells), *rows[1:]]) + "\n")
    out = tmp_path / "results.tsv"
    result = cli("correlate", "--scores", path, "--judgments", corpus / "judgments.tsv", "--bootstrap", "20", "-o", out)
    assert_error(result, 1, "scores.tsv", "non-numeric or non-finite score", f"system {cells[header.split(chr(9)).index('system')]!r}")
    assert not out.exists()


def test_correlate_scores_table_not_a_table(cli, corpus, tmp_path):
    path = write(tmp_path / "scores.tsv", b"\xff\xfe garbage\n")
    result = cli("correlate", "--scores", path, "--judgments", corpus / "judgments.tsv")
    assert_error(result, 1, "scores.tsv")
    path = write(tmp_path / "scores2.tsv", "metric\tsystem\nbleu\ts1\n")
    result = cli("correlate", "--scores", path, "--judgments", corpus / "judgments.tsv")
    assert_error(result, 1, "scores2.tsv", "missing column(s) segmenter, seg_id, score")


def _undefined(rows: list[dict], level: str) -> list[dict]:
    return [r for r in rows if r["level"] == level]


def test_single_system(cli, tmp_path):
    """With one system there is no pair and no system-level correlation: every such
    statistic is undefined with a reason; segment-level Pearson (pooled) still exists."""
    root = make_corpus(tmp_path / "one", hyps={"s1": HYPS["s1"]})
    rows = _rows(cli("run", root, *FAST, "-f", "json"))
    sys_rows = _undefined(rows, "sys")
    assert sys_rows
    for r in sys_rows + [r for r in rows if r["statistic"] in ("consistency", "kendall_like")]:
        assert r["value"] is None and r["note"], r
    pooled = [r for r in rows if r["statistic"] == "pearson" and r["level"] == "seg"]
    assert pooled and all(r["value"] is not None for r in pooled)


def test_all_equal_human_scores(cli, corpus):
    """Constant human system scores: system-level correlations undefined, reason given."""
    (corpus / "judgments.tsv").unlink()
    write(corpus / "human_sys.tsv", "system\tesa\ns1\t50\ns2\t50\ns3\t50\n")
    rows = _rows(cli("run", corpus, *FAST, "-f", "json"))
    assert rows
    for r in rows:
        assert r["value"] is None and r["ci_low"] is None and r["ci_high"] is None, r
        assert "constant human scores" in r["note"]
    text = cli("run", corpus, *FAST).out
    assert "n/a" in text and "constant human scores" in text


def test_all_equal_metric_scores(cli, tmp_path):
    """Identical system outputs: every pair is a metric tie (excluded by default) and the
    system-level metric scores are constant; undefined with a reason, never 0 — except system-level
    pairwise accuracy, whose definition (mt-metrics-eval's Agreement) gives a constant metric the
    share of human-tied system pairs: here none of the 3 pairs (means 87.5, 61.25, 12.5), so 0,
    which is also its chance level."""
    hyps = {name: HYPS["s2"] for name in ("s1", "s2", "s3")}
    root = make_corpus(tmp_path / "same", hyps=hyps)
    rows = _rows(cli("run", root, *FAST, "-f", "json"))
    accuracy = [r for r in rows if r["level"] == "sys" and r["statistic"] == "pairwise_accuracy"]
    assert accuracy
    for r in accuracy:
        assert r["value"] == 0.0 and r["chance"] == 0.0, r
    undefined = [r for r in rows if r["level"] == "sys" and r["statistic"] != "pairwise_accuracy"
                 or r["statistic"] in ("consistency", "kendall_like")]
    assert undefined
    for r in undefined:
        assert r["value"] is None and r["note"], r
    pairs = [r for r in rows if r["statistic"] == "consistency"]
    # 4 segments x 3 pairs = 12 pairs, all tied by the metric
    assert all(r["metric_ties"] == 12 and r["concordant"] == 0 for r in pairs)


def test_all_equal_segment_judgments(cli, corpus):
    esa = {name: [50, 50, 50, 50] for name in ("s1", "s2", "s3")}
    write(corpus / "judgments.tsv", "")
    make_corpus(corpus, esa=esa)
    rows = _rows(cli("run", corpus, *FAST, "-f", "json"))
    assert rows
    for r in rows:
        assert r["value"] is None and r["note"], r


def test_human_sys_lists_system_not_in_corpus(cli, corpus):
    """Documented policy: a judged system without output is dropped and named in ``note``."""
    (corpus / "judgments.tsv").unlink()
    write(corpus / "human_sys.tsv", "system\tesa\ns1\t90\ns2\t50\ns3\t10\nghost\t70\n")
    rows = _rows(cli("run", corpus, *FAST, "-f", "json"))
    assert rows and all(r["n"] == 3 and "dropped: ghost" in r["note"] for r in rows)
