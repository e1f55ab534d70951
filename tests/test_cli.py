"""The ``metaeval`` command: its output contracts and its one-line errors."""

from __future__ import annotations

import io
import json
import shutil
import sys
from pathlib import Path

import pandas as pd
import pytest

from metaeval.cli import main
from tests.golden_util import DATA

ZH = DATA / "wmt24-esa" / "en-zh"


def small_corpus(tmp_path: Path, n: int = 25, systems: tuple[str, ...] = ("Aya23", "GPT-4", "IKUN", "ONLINE-B")) -> Path:
    """The first ``n`` segments of WMT24 en-zh with a few systems and their judgments."""
    out = tmp_path / "corpus"
    (out / "systems").mkdir(parents=True)
    for name in ("src.en", "ref.refA.zh"):
        lines = (ZH / name).read_text(encoding="utf-8").splitlines(keepends=True)[:n]
        (out / name).write_text("".join(lines), encoding="utf-8")
    for system in systems:
        lines = (ZH / "systems" / f"{system}.zh").read_text(encoding="utf-8").splitlines(keepends=True)[:n]
        (out / "systems" / f"{system}.zh").write_text("".join(lines), encoding="utf-8")
    judgments = pd.read_csv(ZH / "judgments.tsv", sep="\t", dtype=str, keep_default_na=False)
    keep = judgments[judgments.seg_id.astype(int).le(n) & judgments.system.isin(systems)]
    keep.to_csv(out / "judgments.tsv", sep="\t", index=False)
    human = pd.read_csv(ZH / "human_sys.tsv", sep="\t")
    human[human.system.isin(systems)].to_csv(out / "human_sys.tsv", sep="\t", index=False)
    return out


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_score_prints_the_documented_columns(tmp_path, capsys):
    corpus = small_corpus(tmp_path)
    code, out, err = run_cli(capsys, "score", str(corpus), "-s", "char", "-s", "jieba", "-m", "bleu", "-m", "bleu:n=18,smooth=none", "--level", "seg,sys", "-q")
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out), sep="\t", dtype={"seg_id": str}, keep_default_na=False)
    assert list(table.columns[:7]) == ["metric", "segmenter", "system", "level", "doc_id", "seg_id", "score"]
    assert set(table.metric) == {"bleu", "bleu:n=18,smooth=none"}  # the spec as given
    assert len(table) == 2 * 2 * 4 * (25 + 1)
    assert (table[table.level == "sys"].seg_id == "").all()
    assert table.score.between(0, 1).all()


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_score_other_formats_carry_the_same_numbers(tmp_path, capsys, fmt):
    corpus = small_corpus(tmp_path)
    _, tsv, _ = run_cli(capsys, "score", str(corpus), "-m", "chrf", "--level", "sys", "-q")
    code, out, _ = run_cli(capsys, "score", str(corpus), "-m", "chrf", "--level", "sys", "-q", "--format", fmt)
    assert code == 0
    a = pd.read_csv(io.StringIO(tsv), sep="\t")
    b = pd.read_csv(io.StringIO(out)) if fmt == "csv" else pd.DataFrame(json.loads(out))
    assert a.score.tolist() == pytest.approx(b.score.tolist(), abs=1e-9)


def test_correlate_reads_what_score_writes_and_matches_run(tmp_path, capsys):
    corpus = small_corpus(tmp_path)
    scores = tmp_path / "scores.tsv"
    assert main(["score", str(corpus), "-m", "bleu", "--level", "seg,sys", "-q", "-o", str(scores)]) == 0
    code, out, err = run_cli(capsys, "correlate", "--scores", str(scores), "--judgments", str(corpus / "judgments.tsv"),
                             "--human-sys", str(corpus / "human_sys.tsv"), "--kind", "esa", "--bootstrap", "50")
    assert code == 0, err
    rows = pd.read_csv(io.StringIO(out), sep="\t")
    consistency = rows[(rows.statistic == "consistency") & (rows.level == "seg")]
    assert len(consistency) == 1
    # the same statistic through `run` (which keeps the metric's statistics) agrees
    code, out, err = run_cli(capsys, "run", str(corpus), "-s", "char", "-m", "bleu", "--kind", "esa", "--bootstrap", "50", "--format", "tsv", "-q")
    assert code == 0, err
    direct = pd.read_csv(io.StringIO(out), sep="\t")
    direct = direct[(direct.statistic == "consistency") & (direct.level == "seg")]
    assert consistency.value.iloc[0] == pytest.approx(direct.value.iloc[0], abs=1e-12)
    assert consistency.concordant.iloc[0] == direct.concordant.iloc[0]


def test_run_writes_every_output_once_and_refuses_to_overwrite(tmp_path, capsys):
    corpus = small_corpus(tmp_path)
    out_dir = tmp_path / "out"
    args = ["run", str(corpus), "-s", "char", "-m", "bleu", "-m", "chrf", "--bootstrap", "20", "-q", "--out", str(out_dir)]
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    assert sorted(p.name for p in out_dir.iterdir()) == ["answer.tsv", "charts", "leaderboard.html", "leaderboard.md",
                                                         "results.json", "results.tsv", "scores.tsv.gz", "signature.json",
                                                         "systems.html", "systems.tsv"]
    assert "consistency" in out and "seed:" in out  # leaderboard with its signature line
    before = {str(p): p.read_bytes() for p in out_dir.rglob("*") if p.is_file()}
    code, out, err = run_cli(capsys, *args)
    assert code == 2 and "--overwrite" in err and err.count("\n") == 1
    assert {str(p): p.read_bytes() for p in out_dir.rglob("*") if p.is_file()} == before


def test_leaderboard_rerenders_saved_results(tmp_path, capsys):
    corpus = small_corpus(tmp_path)
    out_dir = tmp_path / "out"
    assert main(["run", str(corpus), "-s", "char", "-m", "bleu", "--bootstrap", "20", "-q", "--out", str(out_dir)]) == 0
    capsys.readouterr()
    code, out, err = run_cli(capsys, "leaderboard", str(out_dir / "results.json"), "--format", "markdown")
    assert code == 0, err
    assert "| " in out and "bleu" in out


@pytest.mark.parametrize(
    "mutate, needle",
    [
        (lambda c: (c / "systems" / "GPT-4.zh").write_text("".join((c / "systems" / "GPT-4.zh").read_text(encoding="utf-8").splitlines(keepends=True)[:-1]), encoding="utf-8"), "GPT-4.zh"),
        (lambda c: (c / "systems" / "IKUN.zh").write_bytes(b"\xff\xfe bad\n" * 25), "IKUN.zh"),
        (lambda c: [p.unlink() for p in (c / "systems").iterdir()], "system"),
    ],
    ids=["short-system-file", "not-utf8", "no-systems"],
)
def test_bad_corpus_gives_one_line_and_exit_1(tmp_path, capsys, mutate, needle):
    corpus = small_corpus(tmp_path)
    mutate(corpus)
    code, out, err = run_cli(capsys, "score", str(corpus), "-m", "bleu", "-q")
    assert code == 1
    assert out == ""
    assert err.startswith("metaeval: error: ") and err.count("\n") == 1 and needle in err
    assert "Traceback" not in err


def test_empty_folder(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    code, out, err = run_cli(capsys, "score", str(tmp_path / "empty"), "-q")
    assert code == 1 and "empty" in err and err.count("\n") == 1


@pytest.mark.parametrize("option, name, listed", [("-s", "jeiba", "jieba"), ("-m", "bleurt", "chrf")])
def test_unknown_names_list_the_known_ones(tmp_path, capsys, option, name, listed):
    code, out, err = run_cli(capsys, "score", str(ZH), option, name)
    assert code == 2 and name in err and listed in err and err.count("\n") == 1


def test_missing_optional_dependency_names_the_pip_command(capsys, monkeypatch):
    """As on a machine without sudachipy (``import sudachipy`` fails), installed here or not."""
    monkeypatch.setitem(sys.modules, "sudachipy", None)
    code, out, err = run_cli(capsys, "segment", "-s", "sudachi", "テスト")
    assert code == 1 and "pip install sudachipy" in err and err.count("\n") == 1


def test_usage_errors_exit_2(capsys):
    code, out, err = run_cli(capsys, "score")
    assert code == 2 and "corpus" in err
    code, out, err = run_cli(capsys, "score", str(ZH), "--level", "paragraph")
    assert code == 2 and "paragraph" in err


@pytest.mark.slow
def test_the_acceptance_command_prints_a_table(capsys):
    """`metaeval score wmt24-esa/en-zh -s char -s jieba -s pkuseg -m bleu -m ter --level sys`."""
    code, out, err = run_cli(capsys, "score", str(ZH), "--segmenter", "char", "--segmenter", "jieba", "--segmenter",
                             "pkuseg", "--metric", "bleu", "--metric", "ter", "--level", "sys", "-q")
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out), sep="\t", keep_default_na=False)
    assert len(table) == 3 * 2 * 12
    assert set(table.segmenter) == {"char", "jieba", "pkuseg"}


def test_segment_shows_tokens(capsys):
    code, out, err = run_cli(capsys, "segment", "-s", "char", "-s", "jieba", "我爱北京天安门")
    assert code == 0
    lines = out.splitlines()
    assert lines[1] == "我 爱 北 京 天 安 门"
    assert lines[3] == "我 爱 北京 天安门"


def test_copying_data_is_not_needed(tmp_path):
    """The commands read ../shared/data in place; nothing is written next to the data."""
    before = sorted(p.name for p in ZH.iterdir())
    assert main(["score", str(ZH), "-m", "bleu", "--level", "sys", "-q", "-o", str(tmp_path / "s.tsv")]) == 0
    assert sorted(p.name for p in ZH.iterdir()) == before
    shutil.rmtree(tmp_path / "s.tsv", ignore_errors=True)


def test_cache_dir_keeps_segmentations_and_changes_no_number(tmp_path, capsys):
    corpus = small_corpus(tmp_path)
    args = ["score", str(corpus), "-s", "jieba", "-m", "bleu", "-m", "1-ter", "--level", "seg,sys", "-q", "-j", "1"]
    _, plain, _ = run_cli(capsys, *args)
    cache = tmp_path / "cache"
    _, first, _ = run_cli(capsys, *args, "--cache-dir", str(cache))
    assert len(list(cache.glob("seg-*.jsonl"))) == 1 and list((cache / "stats").rglob("*.npz"))
    import metaeval.segmenting as segmenting

    segmented = []
    original = segmenting.segment_texts

    def counting(seg, spec, texts, **options):  # noqa: ANN001, ANN003, ANN202
        segmented.append(len(texts))
        return original(seg, spec, texts, **options)

    segmenting.segment_texts = counting
    try:
        _, second, _ = run_cli(capsys, *args, "--cache-dir", str(cache))
        assert segmented == []  # every statistic came from the store: nothing segmented
        shutil.rmtree(cache / "stats")
        _, third, _ = run_cli(capsys, *args, "--cache-dir", str(cache))
        assert sum(segmented) == 0  # statistics recomputed from cached segmentations, none segmented
    finally:
        segmenting.segment_texts = original
    assert plain == first == second == third
