"""``metaeval systems``: every format, the chart, the checks before any work, and the system
leaderboard that ``metaeval run --out`` writes."""

from __future__ import annotations

import io
import json
import struct

import pandas as pd
import pytest

from metaeval.cli import main
from metaeval.cli.common import RESULT_FORMATS
from metaeval.report.systems import FORMATS
from metaeval.systemrank.board import HUMAN_TESTS
from metaeval.cli.systems import HUMAN_TEST_NAMES
from tests.robustness._helpers import make_corpus, write

OPTIONS = ("-s", "char", "-s", "cjk-char", "-m", "bleu", "-m", "chrf", "--bootstrap", "50", "-q", "-j", "1")


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def corpus(tmp_path):
    return make_corpus(tmp_path / "tiny")


def test_choices_are_the_renderers_and_the_boards():
    assert set(RESULT_FORMATS) == set(FORMATS)
    assert HUMAN_TEST_NAMES == tuple(HUMAN_TESTS)


def test_tsv_holds_the_leaderboard(corpus, capsys):
    code, out, err = run_cli(capsys, "systems", corpus, *OPTIONS, "-f", "tsv")
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out), sep="\t", keep_default_na=False)
    human = table[table["source"] == "human"]
    assert human["system"].tolist() == ["s1", "s2", "s3"] and human["rank"].tolist() == [1, 2, 3]
    assert set(table["segmenter"]) == {"", "char", "cjk-char"} and set(table["metric"]) == {"", "bleu", "chrf"}
    assert len(table) == 3 + 3 * 4
    metric = table[table["source"] == "metric"]
    assert (metric["displacement"] == metric["rank"] - metric["human_rank"]).all()


def test_every_format(corpus, capsys, tmp_path):
    pages = {}
    for fmt in FORMATS:
        code, out, err = run_cli(capsys, "systems", corpus, *OPTIONS, "-f", fmt)
        assert code == 0, (fmt, err)
        pages[fmt] = out
    assert "s1" in pages["text"] and "bleu, systems ranked by human esa" in pages["text"]
    assert pages["markdown"].startswith("# System leaderboard") and "| rank | system | esa |" in pages["markdown"]
    assert "<svg" in pages["html"] and "<polyline" in pages["html"] and "<script" not in pages["html"]
    assert "\\begin{tabular}" in pages["latex"]
    assert pages["csv"].splitlines()[0].startswith("dataset,judgment_kind,source")
    document = json.loads(pages["json"])
    assert set(document) == {"signature", "notes", "granularities", "leaderboard", "pairs", "comparisons"}
    assert document["signature"]["n_bootstrap"] == 50 and len(document["comparisons"]) == 3 * 5
    # the same command gives the same bytes
    assert run_cli(capsys, "systems", corpus, *OPTIONS, "-f", "json")[1] == pages["json"]


def test_output_file_and_chart(corpus, capsys, tmp_path):
    out, chart = tmp_path / "board.html", tmp_path / "bump.png"
    code, stdout, err = run_cli(capsys, "systems", corpus, *OPTIONS, "-f", "html", "-o", out, "--chart", chart)
    assert code == 0 and stdout == "", err
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    data = chart.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", data[16:24])[0] > 500
    # both exist now: a second run needs --overwrite, and says so before reading anything
    code, _, err = run_cli(capsys, "systems", tmp_path / "absent", "--chart", chart)
    assert code == 2 and "--overwrite" in err
    code, _, err = run_cli(capsys, "systems", corpus, *OPTIONS, "-o", out, "--chart", chart, "--overwrite")
    assert code == 0, err


@pytest.mark.parametrize("argv, fragment", [
    (["--chart", "bump.svg"], "PNG"),
    (["--alpha", "1.5"], "--alpha"),
    (["--human-test", "t-test"], "--human-test"),
    (["--kind", "da"], "kind 'da'"),
    (["-s", "jeiba"], "jeiba"),
    (["--bootstrap", "1"], "--bootstrap"),
    (["-f", "docx"], "--format"),
])  # fmt: skip
def test_bad_usage_exits_2(corpus, capsys, tmp_path, argv, fragment):
    code, out, err = run_cli(capsys, "systems", corpus, "-q", "-j", "1", "-s", "char", "-m", "bleu", *argv)
    assert code == 2 and out == "" and fragment in err and err.count("\n") == 1, err


def test_chart_and_output_cannot_be_one_file(corpus, capsys, tmp_path):
    code, _, err = run_cli(capsys, "systems", corpus, "-o", tmp_path / "x.png", "--chart", tmp_path / "x.png")
    assert code == 2 and "same file" in err


def test_bad_data_exits_1(tmp_path, capsys):
    bare = make_corpus(tmp_path / "bare", esa={})
    code, out, err = run_cli(capsys, "systems", bare, "-q", "-j", "1", "-s", "char", "-m", "bleu")
    assert code == 1 and out == "" and "--judgments" in err
    one = make_corpus(tmp_path / "one", esa={"s1": [1, 2, 3, 4]})
    code, out, err = run_cli(capsys, "systems", one, "-q", "-j", "1", "-s", "char", "-m", "bleu")
    assert code == 1 and out == "" and "nothing to rank" in err


def test_judgments_from_another_file_and_a_lower_is_better_kind(corpus, capsys, tmp_path):
    ranks = write(tmp_path / "ranks.tsv", "seg_id\tsystem\tjudge\tkind\tvalue\n" + "".join(
        f"{seg}\t{system}\tj1\trank\t{rank}\n" for seg in range(1, 5) for system, rank in (("s1", 3), ("s2", 1), ("s3", 2))
    ))  # fmt: skip
    code, out, err = run_cli(capsys, "systems", corpus, *OPTIONS, "--judgments", ranks, "-f", "tsv")
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out), sep="\t", keep_default_na=False)
    human = table[table["source"] == "human"]
    assert human["system"].tolist() == ["s2", "s3", "s1"] and set(table["judgment_kind"]) == {"rank"}


def test_run_out_writes_the_system_leaderboard(corpus, capsys, tmp_path):
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "run", corpus, "-s", "char", "-m", "bleu", "--bootstrap", "20", "-q", "-j", "1", "--out", out)
    assert code == 0, err
    page = (out / "systems.html").read_text(encoding="utf-8")
    assert "bleu, systems ranked by human esa" in page and "<svg" in page
    table = pd.read_csv(out / "systems.tsv", sep="\t", keep_default_na=False)
    assert table.loc[table["source"] == "human", "system"].tolist() == ["s1", "s2", "s3"]
    assert set(table["metric"]) == {"", "bleu"}
    # the same as `metaeval systems` with the run's options
    code, direct, err = run_cli(capsys, "systems", corpus, "-s", "char", "-m", "bleu", "--bootstrap", "20", "-q", "-j", "1", "-f", "tsv")
    assert code == 0 and direct == (out / "systems.tsv").read_text(encoding="utf-8")


def test_the_api_returns_the_leaderboard_table(corpus, capsys):
    import metaeval
    from metaeval.systemrank.board import TABLE_COLUMNS

    table = metaeval.system_leaderboard(corpus, ["char", "cjk-char"], ["bleu", "chrf"], bootstrap=50)
    assert tuple(table.columns) == TABLE_COLUMNS
    code, out, _ = run_cli(capsys, "systems", corpus, *OPTIONS, "-f", "tsv")
    assert code == 0
    from_cli = pd.read_csv(io.StringIO(out), sep="\t", keep_default_na=False)
    assert from_cli["system"].tolist() == table["system"].tolist()
    assert from_cli["score"].tolist() == table["score"].tolist()  # floats written exactly
    with pytest.raises(metaeval.UsageError, match="human test"):
        metaeval.system_leaderboard(corpus, ["char"], ["bleu"], human_test="t-test")


def test_run_out_with_one_judged_system_writes_the_reason(tmp_path, capsys):
    one = make_corpus(tmp_path / "one", esa={"s1": [1, 2, 3, 4]})
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "run", one, "-s", "char", "-m", "bleu", "--bootstrap", "20", "-q", "-j", "1", "--out", out)
    assert code == 0, err
    assert "esa: 1 system(s) with both outputs and a human score: nothing to rank" in (out / "systems.html").read_text(encoding="utf-8")
    assert (out / "systems.tsv").read_text(encoding="utf-8").startswith("dataset\tjudgment_kind\tsource")


def test_alpha_argument_type():
    import argparse

    from metaeval.cli.systems import _alpha

    assert _alpha("0.01") == 0.01
    for text in ("x", "0", "1", "1.5"):
        with pytest.raises(argparse.ArgumentTypeError):
            _alpha(text)


def test_an_unknown_kind_fails_before_scoring(corpus, capsys, monkeypatch):
    def refuse(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise AssertionError("scored before the kind was checked")

    monkeypatch.setattr("metaeval.scoring.score_corpus", refuse)
    code, _, err = run_cli(capsys, "systems", corpus, "-q", "-j", "1", "-s", "char", "-m", "bleu", "--kind", "da")
    assert code == 2 and "kind 'da'" in err and "esa" in err
