"""Fixtures of the robustness suite: a tiny corpus, a real-like corpus and a CLI runner."""

from __future__ import annotations

from pathlib import Path

import pytest

from metaeval.cli import main

from ._helpers import N_REAL, REAL_SYSTEMS, WMT24_ZH, Result, lines, make_corpus, write


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return make_corpus(tmp_path / "tiny")


@pytest.fixture
def real_corpus(tmp_path: Path) -> Path:
    """First 30 segments of WMT24 ESA en-zh, 3 systems, judgments restricted to them."""
    if not WMT24_ZH.is_dir():
        pytest.skip(f"shared data folder {WMT24_ZH} not found (set METAEVAL_SHARED)")
    root = tmp_path / "wmt24-en-zh-30"

    def head(path: Path) -> bytes:
        return b"".join(path.read_bytes().splitlines(keepends=True)[:N_REAL])

    write(root / "src.en", head(WMT24_ZH / "src.en"))
    write(root / "ref.refA.zh", head(WMT24_ZH / "ref.refA.zh"))
    for name in REAL_SYSTEMS:
        write(root / "systems" / f"{name}.zh", head(WMT24_ZH / "systems" / f"{name}.zh"))
    rows = (WMT24_ZH / "judgments.tsv").read_text(encoding="utf-8").splitlines()
    kept = [rows[0]] + [
        r for r in rows[1:] if r.split("\t")[1] in REAL_SYSTEMS and int(r.split("\t")[0]) <= N_REAL
    ]
    write(root / "judgments.tsv", lines(kept))
    return root


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]):
    """Run ``metaeval.cli.main(argv)`` in process; returns exit code, stdout, stderr."""

    def run(*argv: "str | Path") -> Result:
        capsys.readouterr()
        code = main([str(a) for a in argv])
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run
