"""Rerun parts of both studies and compare with the committed result files: reports byte for
byte, tables to the last digits that are portable across machines.

Li et al. 2011: WMT24 English→Japanese, which carries every kind of comparison the README
counts (segment-level consistency and Pearson with paired bootstrap p-values, system-level
Spearman). Denoual & Lepage 2005: the two English targets (M* = 18 and 20) and WMT24
English→Japanese (M* = 8). The other datasets take the same code path on more data.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.golden_util import DATA

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "experiments" / "results"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (DATA / "wmt24-esa" / "en-ja").is_dir(), reason=f"shared data not found: {DATA}"),
]


def rows_of(path: Path, datasets: set[str]) -> pd.DataFrame:
    table = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    return table[table.dataset.isin(datasets)].reset_index(drop=True)


def assert_same_table(rerun: pd.DataFrame, committed: pd.DataFrame) -> None:
    """Text columns equal; numbers equal to 1e-12 absolute and 1e-9 relative.

    Bootstrap deltas of two configurations that agree sum to zero up to rounding (-8.3e-17 on
    one machine, -5.6e-17 on another): numpy's summation order follows the CPU's vector width,
    so the last bits of such values are not portable. On one machine reruns are bit-identical.
    """
    assert list(rerun.columns) == list(committed.columns)
    assert len(rerun) == len(committed)
    for column in rerun.columns:
        a = pd.to_numeric(rerun[column], errors="coerce")
        b = pd.to_numeric(committed[column], errors="coerce")
        text = a.isna() & b.isna()
        assert (rerun[column][text] == committed[column][text]).all(), column
        assert (a.isna() == b.isna()).all(), column
        np.testing.assert_allclose(a[~text].to_numpy(), b[~text].to_numpy(), rtol=1e-9, atol=1e-12, err_msg=column)


def assert_same_values(rerun: object, committed: object, where: str) -> None:
    """Nested JSON values equal; floats to 1e-12 absolute and 1e-9 relative (Pearson's last bits
    follow the CPU's summation order: 0.7933144824952058 here, 0.7933144824951981 there)."""
    if isinstance(committed, dict):
        assert isinstance(rerun, dict) and set(rerun) == set(committed), where
        for key in committed:
            assert_same_values(rerun[key], committed[key], f"{where}/{key}")
    elif isinstance(committed, list):
        assert isinstance(rerun, list) and len(rerun) == len(committed), where
        for i, (a, b) in enumerate(zip(rerun, committed)):
            assert_same_values(a, b, f"{where}[{i}]")
    elif isinstance(committed, float) and isinstance(rerun, float):
        assert rerun == pytest.approx(committed, rel=1e-9, abs=1e-12, nan_ok=True), where
    else:
        assert rerun == committed, where


def test_li2011_rerun_matches_the_committed_files(tmp_path):
    from experiments.li2011.__main__ import main

    assert main(["--data", str(DATA), "--out", str(tmp_path), "--only", "wmt24-esa/en-ja", "--jobs", "1"]) == 0
    name = "wmt24-esa_en-ja.md"
    assert (tmp_path / name).read_bytes() == (RESULTS / "li2011" / name).read_bytes()
    for table in ("results.tsv", "char_vs_word.tsv"):
        rerun = rows_of(tmp_path / table, {"wmt24-esa/en-ja"})
        committed = rows_of(RESULTS / "li2011" / table, {"wmt24-esa/en-ja"})
        assert len(rerun) > 0
        assert_same_table(rerun, committed)
    runtime = json.loads((tmp_path / "runtime.json").read_text(encoding="utf-8"))
    assert runtime["datasets"] == ["wmt24-esa/en-ja"] and runtime["seconds"] > 0


def test_denoual2005_rerun_matches_the_committed_files(tmp_path):
    from experiments.denoual2005.__main__ import main

    only = ["wmt21/ja-en", "wmt21/de-en", "wmt24-esa/en-ja"]
    argv = ["--data", str(DATA), "--out", str(tmp_path)]
    for path in only:
        argv += ["--only", path]
    assert main(argv) == 0
    for name in ("wmt21_ja-en.13a.md", "wmt21_de-en.13a.md", "wmt24-esa_en-ja.mecab.md"):
        assert (tmp_path / name).read_bytes() == (RESULTS / "denoual2005" / name).read_bytes(), name
    rerun = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))["runs"]
    committed = json.loads((RESULTS / "denoual2005" / "results.json").read_text(encoding="utf-8"))["runs"]
    assert set(rerun) == {"wmt21_ja-en.13a", "wmt21_de-en.13a", "wmt24-esa_en-ja.mecab"}
    for key, run in rerun.items():
        assert_same_values(run, committed[key], key)
    m_star = {key: next(r for r in run["tables"]["orders"] if r["N"] == 4)["analogical_M"] for key, run in rerun.items()}
    assert m_star == {"wmt21_ja-en.13a": 18, "wmt21_de-en.13a": 20, "wmt24-esa_en-ja.mecab": 8}
