"""Exit status of every subcommand, as the README states it: 0 success, 1 bad data, 2 bad usage.

Output locations (``-o``/``--output``, ``--out``) are usage: they are checked before any
data is read, so a wrong one fails at once and reads nothing.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from metaeval import corpora
from metaeval.cli import build_parser, main
from tests.robustness._helpers import FAST, make_corpus, write

SUBCOMMANDS = ("list", "segment", "score", "correlate", "run", "leaderboard", "equivalence", "sweep", "study", "systems")


def run_cli(capsys, *argv: "str | Path") -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_error_line(err: str) -> bool:
    return err.startswith("metaeval: error: ") and err.count("\n") == 1 and "Traceback" not in err


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return make_corpus(tmp_path / "tiny")


def test_the_cases_below_cover_every_subcommand():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert set(sub.choices) == set(SUBCOMMANDS)
    assert {c[0] for c in usage_cases(Path("c"), Path("t"))} == set(SUBCOMMANDS)
    assert {c[0] for c in data_cases(Path("c"), Path("t"))} == set(SUBCOMMANDS) - {"list"}


def usage_cases(corpus: Path, tmp: Path) -> list[tuple[str, list]]:
    """One malformed command line per subcommand (and a few more)."""
    return [
        ("list", ["list", "--frobnicate"]),
        ("segment", ["segment", "-s", "jeiba", "我爱北京"]),
        ("score", ["score", corpus, "-s", "jeiba"]),
        ("score", ["score", corpus, "-m", "bleurt"]),
        ("score", ["score", corpus, "--level", "paragraph"]),
        ("correlate", ["correlate", "--judgments", corpus / "judgments.tsv"]),
        ("run", ["run", corpus, "--tie-policy", "maybe"]),
        ("run", ["run", corpus, "-s", "pkuseeg"]),
        ("leaderboard", ["leaderboard", tmp / "r.json", "--layout", "spiral"]),
        ("equivalence", ["equivalence", corpus, "--word-segmenter", "nosuch"]),
        ("sweep", ["sweep", corpus, "--out", tmp / "o", "--subword", "spm:vocab=10,type=word"]),
        ("sweep", ["sweep", corpus]),  # --out is required
        ("study", ["study", tmp / "unknown-key.toml"]),  # written below
        ("study", ["study", tmp / "bad-segmenter.toml"]),
        ("systems", ["systems", corpus, "--human-test", "t-test"]),
        ("systems", ["systems", corpus, "--chart", tmp / "bump.svg"]),
    ]


def data_cases(corpus: Path, tmp: Path) -> list[tuple[str, list]]:
    """One command line per subcommand whose data is bad (list reads no data)."""
    return [
        ("segment", ["segment", "-s", "char"]),  # standard input is not UTF-8 (fed below)
        ("score", ["score", tmp / "no-such-corpus", "-q"]),
        ("correlate", ["correlate", "--scores", tmp / "no-scores.tsv", "--judgments", corpus / "judgments.tsv"]),
        ("run", ["run", tmp / "no-judgments", *FAST]),
        ("leaderboard", ["leaderboard", tmp / "broken.json"]),
        ("equivalence", ["equivalence", tmp / "no-such-corpus"]),
        ("sweep", ["sweep", tmp / "no-such-corpus", "--out", tmp / "sweep-out", "-q"]),
        ("study", ["study", tmp / "no-such-study.toml", "-q"]),
        ("systems", ["systems", tmp / "no-judgments", *FAST]),
    ]


@pytest.mark.parametrize("index", range(len(usage_cases(Path("c"), Path("t")))))
def test_bad_usage_exits_2_with_one_line(corpus, tmp_path, capsys, index):
    name, argv = usage_cases(corpus, tmp_path)[index]
    if name == "study":
        extra = {"unknown-key.toml": "frobnicate = 1", "bad-segmenter.toml": 'segmenters = ["jeiba"]'}[Path(argv[1]).name]
        write(Path(argv[1]), f'[study]\nout = "o"\n{extra}\n\n[[dataset]]\npath = "{corpus}"\n')
    code, out, err = run_cli(capsys, *argv)
    assert code == 2, err
    assert out == "" and one_error_line(err), err


@pytest.mark.parametrize("index", range(len(data_cases(Path("c"), Path("t")))))
def test_bad_data_exits_1_with_one_line(corpus, tmp_path, capsys, monkeypatch, index):
    name, argv = data_cases(corpus, tmp_path)[index]
    if name == "segment":
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\xff\xfe bad\n"), encoding="utf-8"))
    if name in ("run", "systems"):
        (tmp_path / "no-judgments").mkdir()
        make_corpus(tmp_path / "no-judgments", esa={})
    if name == "leaderboard":
        write(tmp_path / "broken.json", "{not json")
    code, out, err = run_cli(capsys, *argv)
    assert code == 1, err
    assert out == "" and one_error_line(err), err


def test_run_without_judgments_names_the_flags(tmp_path, capsys):
    folder = make_corpus(tmp_path / "bare", esa={})
    code, _, err = run_cli(capsys, "run", folder, *FAST)
    assert code == 1 and "--judgments" in err and "--human-sys" in err


@pytest.fixture
def no_reading(monkeypatch):
    """Any attempt to read a corpus or a judgment file fails the test."""

    def refuse(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise AssertionError("data was read before the output location was checked")

    for name in ("read", "read_judgments"):
        monkeypatch.setattr(corpora, name, refuse)
    monkeypatch.setattr("metaeval.api.read_corpus", refuse)
    monkeypatch.setattr("metaeval.report.load_results", refuse)


@pytest.mark.parametrize("subcommand", ["score", "correlate", "leaderboard", "equivalence", "systems"])
@pytest.mark.parametrize("problem", ["exists", "no-folder", "is-folder"])
def test_output_file_is_checked_before_any_work(corpus, tmp_path, capsys, no_reading, subcommand, problem):
    target = {"exists": tmp_path / "taken.txt", "no-folder": tmp_path / "nowhere" / "x.txt", "is-folder": tmp_path}[problem]
    if problem == "exists":
        target.write_text("keep me")
    argv = {
        "score": ["score", corpus, "-q"],
        "correlate": ["correlate", "--scores", corpus / "s.tsv", "--judgments", corpus / "judgments.tsv"],
        "leaderboard": ["leaderboard", corpus / "r.json"],
        "equivalence": ["equivalence", corpus],
        "systems": ["systems", corpus, "-q"],
    }[subcommand]
    code, out, err = run_cli(capsys, *argv, "-o", target)
    assert code == 2 and one_error_line(err) and str(target) in err, err
    if problem == "exists":
        assert target.read_text() == "keep me" and "--overwrite" in err


@pytest.mark.parametrize("problem", ["file-there", "is-a-file", "no-parent"])
def test_run_out_folder_is_checked_before_any_work(corpus, tmp_path, capsys, no_reading, problem):
    out = tmp_path / "out"
    if problem == "file-there":
        write(out / "results.tsv", "old")
    elif problem == "is-a-file":
        write(out, "not a folder")
    else:
        out = tmp_path / "missing" / "out"
    code, stdout, err = run_cli(capsys, "run", corpus, *FAST, "--out", out)
    assert code == 2 and one_error_line(err) and str(out) in err, err
    assert stdout == ""
