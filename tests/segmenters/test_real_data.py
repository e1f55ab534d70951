"""Every built-in on the WMT24 ESA references: tokens are non-empty and cover the text."""

from __future__ import annotations

import unicodedata

import pytest

from metaeval import segmenters
from metaeval.segmenters.cjk import is_cjk

COVERING = ["char", "whitespace", "cjk-char", "jieba", "jieba-nohmm", "pkuseg"]
#: Segmenters that drop invisible format characters and variation selectors (README, "Characters").
DROP_INVISIBLE = {"char", "cjk-char"}


def covered(name: str, line: str) -> str:
    """The text the tokens of ``name`` must spell: no whitespace, and for ``char`` and
    ``cjk-char`` no format characters (Cf) or variation selectors."""
    text = "".join(line.split())
    if name in DROP_INVISIBLE:
        text = "".join(
            ch for ch in text
            if unicodedata.category(ch) != "Cf" and not 0xFE00 <= ord(ch) <= 0xFE0F and not 0xE0100 <= ord(ch) <= 0xE01EF
        )
    return text


@pytest.mark.parametrize("name", COVERING)
def test_chinese_tokens_cover_each_reference(name: str, zh_refs: list[str]) -> None:
    seg = segmenters.get(name)
    for line, tokens in zip(zh_refs, seg.segment_many(zh_refs), strict=True):
        assert all(tok and not tok.isspace() for tok in tokens)
        assert "".join(tokens) == covered(name, line), line


def test_granularities_are_ordered(zh_refs: list[str]) -> None:
    # char >= cjk-char >= jieba-nohmm >= jieba in token counts, on the whole file.
    counts = {name: sum(map(len, segmenters.get(name).segment_many(zh_refs))) for name in ("char", "cjk-char", "jieba-nohmm", "jieba")}
    assert counts["char"] > counts["cjk-char"] > counts["jieba-nohmm"] >= counts["jieba"]
    # Every CJK character of the text is one cjk-char token.
    n_cjk = sum(is_cjk(ch) for line in zh_refs for ch in line)
    tokens = [tok for toks in segmenters.get("cjk-char").segment_many(zh_refs) for tok in toks]
    assert sum(len(tok) == 1 and is_cjk(tok) for tok in tokens) == n_cjk


@pytest.mark.parametrize("name", ["char", "cjk-char", "mecab"])
def test_japanese_tokens_cover_each_reference(name: str, ja_refs: list[str]) -> None:
    seg = segmenters.get(name)
    for line, tokens in zip(ja_refs, seg.segment_many(ja_refs), strict=True):
        assert "".join(tokens) == covered(name, line), line
