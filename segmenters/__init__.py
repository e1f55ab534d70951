"""Segmenters: text to tokens at a chosen granularity (docs/design.md, "Segmenters").

    >>> from metaeval import segmenters
    >>> segmenters.get("cjk-char")("我用iPhone 15拍照。")
    ['我', '用', 'iPhone', '15', '拍', '照', '。']

``get(name, **options)`` builds a segmenter, ``available()`` lists names (built-ins and
plug-ins of the entry-point group ``metaeval.segmenters``, without importing them),
``register(name)`` adds one, ``info()`` describes each for ``metaeval list``. A segmenter
that learns from text (``spm:vocab=8000,type=unigram``) is given the corpus's references
as ``training_text`` when a corpus is scored. Every
segmenter accepts the normalisation options ``nfkc``, ``halfwidth`` and ``lowercase``
(off by default; recorded in the signature).
"""

from __future__ import annotations

from metaeval.segmenters.base import Normalization, Segmenter, SegmenterLike
from metaeval.segmenters.registry import ENTRY_POINT_GROUP, SegmenterInfo, available, check, get, info, learns_from_text, parse_spec, register, trains_on_text

# Built-ins register themselves on import; their third-party packages load lazily.
from metaeval.segmenters import simple, cjk, jieba_adapter, pkuseg_adapter, mecab_adapter, optional  # noqa: E402,F401,I001
from metaeval.segmenters import thulac_adapter, ja_extra, chasen_adapter, subword, bytelevel  # noqa: E402,F401,I001
from metaeval.segmenters.cache import SegmentationCache  # noqa: E402

__all__ = [
    "ENTRY_POINT_GROUP",
    "Normalization",
    "SegmentationCache",
    "Segmenter",
    "SegmenterInfo",
    "SegmenterLike",
    "available",
    "check",
    "get",
    "info",
    "learns_from_text",
    "parse_spec",
    "register",
    "trains_on_text",
]
