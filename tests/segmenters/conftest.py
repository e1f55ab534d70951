"""Shared fixtures for the segmenter tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED = Path(os.environ.get("METAEVAL_SHARED", Path(__file__).resolve().parents[2] / ".." / "shared")).resolve()
ESA = SHARED / "data" / "wmt24-esa"


def read_lines(path: Path) -> list[str]:
    with open(path, encoding="utf-8", newline="\n") as handle:
        return [line.rstrip("\n") for line in handle]


def _references(pair: str, name: str) -> list[str]:
    path = ESA / pair / name
    if not path.is_file():
        pytest.skip(f"shared data not found: {path} (set METAEVAL_SHARED)")
    return read_lines(path)


@pytest.fixture(scope="session")
def zh_refs() -> list[str]:
    return _references("en-zh", "ref.refA.zh")


@pytest.fixture(scope="session")
def ja_refs() -> list[str]:
    return _references("en-ja", "ref.refA.ja")
