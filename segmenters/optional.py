"""Optional Japanese segmenters whose packages metaeval does not install.

- ``ja-mecab``: MeCab with IPAdic through mecab-python3 + ipadic, as sacrebleu's
  ``ja-mecab`` tokenizer uses them (``pip install mecab-python3 ipadic``).
- ``sudachi``: SudachiPy with sudachidict-core, split mode C (``pip install sudachipy
  sudachidict-core``).

When the package is missing, ``segmenters.get`` raises MissingDependencyError with the pip
command; the names stay listed.
"""

from __future__ import annotations

from typing import Any

from segmenters._deps import require, version
from segmenters.base import Segmenter
from segmenters.registry import register

JA_MECAB_PIP = "mecab-python3 ipadic"
SUDACHI_PIP = "sudachipy sudachidict-core"


@register("ja-mecab")
class IpadicMecabSegmenter(Segmenter):
    """MeCab + IPAdic (mecab-python3 and ipadic), ``-Owakati`` output split on spaces."""

    name = "ja-mecab"

    def __init__(self, **norm: Any) -> None:
        super().__init__(**norm)
        mecab = require("MeCab", self.name, JA_MECAB_PIP)
        ipadic = require("ipadic", self.name, JA_MECAB_PIP)
        self._tagger = mecab.Tagger(ipadic.MECAB_ARGS + " -Owakati")

    def _segment(self, text: str) -> list[str]:
        return self._tagger.parse(text).split()

    @classmethod
    def describe(cls) -> str:
        return f"mecab-python3:{version('mecab-python3')}|dict:ipadic:{version('ipadic')}"


@register("sudachi")
class SudachiSegmenter(Segmenter):
    """SudachiPy with sudachidict-core, split mode C (longest units)."""

    name = "sudachi"

    def __init__(self, **norm: Any) -> None:
        super().__init__(**norm)
        sudachipy = require("sudachipy", self.name, SUDACHI_PIP)
        require("sudachidict_core", self.name, SUDACHI_PIP)
        self._tokenizer = sudachipy.Dictionary(dict="core").create(mode=sudachipy.SplitMode.C)

    def _segment(self, text: str) -> list[str]:
        return [m.surface() for m in self._tokenizer.tokenize(text)]

    @classmethod
    def describe(cls) -> str:
        return f"sudachipy:{version('SudachiPy')}|dict:sudachidict-core:{version('SudachiDict-core')}|mode:C"
