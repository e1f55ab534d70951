"""An optional Japanese segmenter whose package metaeval does not install (Sudachi and the
other Japanese dictionaries are in :mod:`segmenters.ja_extra`).

- ``ja-mecab``: MeCab with IPAdic through mecab-python3 + ipadic, as sacrebleu's
  ``ja-mecab`` tokenizer uses them (``pip install mecab-python3 ipadic``).

When the package is missing, ``segmenters.get`` raises MissingDependencyError with the pip
command; the names stay listed.
"""

from __future__ import annotations

from typing import Any

from metaeval.segmenters._deps import require, version
from metaeval.segmenters.base import Segmenter
from metaeval.segmenters.registry import register

JA_MECAB_PIP = "mecab-python3 ipadic"


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
