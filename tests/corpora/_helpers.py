"""Shared helpers for the corpora tests: the shared data folder and small folder builders."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from metaeval.errors import DataError
from tests.golden_util import DATA

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
WMT24 = DATA / "wmt24-esa"

needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"shared data folder {DATA} not found")


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_bytes(content.encode("utf-8"))
    return path


def make_folder(root: Path, n: int = 3, systems: tuple[str, ...] = ("s1", "s2"), lang: str = "zh") -> Path:
    """A valid plain corpus folder with ``n`` segments."""
    write(root / "src.en", "".join(f"source {i}\n" for i in range(1, n + 1)))
    write(root / f"ref.A.{lang}", "".join(f"参考{i}\n" for i in range(1, n + 1)))
    for s in systems:
        write(root / "systems" / f"{s}.{lang}", "".join(f"{s}译文{i}\n" for i in range(1, n + 1)))
    return root


def raises_at(pattern: str):
    """``pytest.raises(DataError)`` whose one-line message matches ``pattern``."""
    return pytest.raises(DataError, match=pattern)


def one_line(exc: pytest.ExceptionInfo) -> str:
    message = str(exc.value)
    assert "\n" not in message and "Traceback" not in message
    return message


__all__ = ["DATA", "FIXTURES", "WMT24", "make_folder", "needs_data", "one_line", "raises_at", "re", "write"]
