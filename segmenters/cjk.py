"""``cjk-char``: CJK characters one by one, other runs split as mteval-v13a splits English.

Each character of the classes below is its own token; the text between them is split by
the rules of mteval-v13a (sacrebleu's ``TokenizerRegexp``, the splitting part of
``Tokenizer13a``: Latin words, numbers, ASCII punctuation). 13a's rewriting is not applied
(it turns ``&amp;``, ``&lt;``, ``&gt;``, ``&quot;`` into ``&``, ``<``, ``>``, ``"`` and deletes
``<skipped>``), so every token is a substring of the text it splits and chrF sees the same
characters under every segmenter. Invisible characters and combining sequences follow
:mod:`segmenters.characters` (options ``invisible`` and ``graphemes``).
Compared with sacrebleu's ``TokenizerZh`` (sacrebleu 2.x ``tokenizer_zh.py``), whose
ranges are written as 4-hex-digit string escapes, this fixes:

- Extension B was written ``'\\u20000'..'\\u2a6d6'``, i.e. ``'\\u2000' + '0'`` to
  ``'\\u2a6d' + '6'``: that selects U+2000..U+2A6D (general punctuation, arrows, maths)
  and misses every supplementary-plane ideograph (Extensions B..I, the compatibility
  supplement); the compatibility-supplement range has the same defect;
- the URO ends at U+9FFF (it stopped at U+9FBB), Extension A at U+4DBF;
- kana (hiragana, katakana, their extensions and supplements) and hangul are included;
- full-width letters and digits are not split apart: ``ＩＢＭ`` stays one token, like ``IBM``.
"""

from __future__ import annotations

import re

import regex
from typing import Any

from metaeval.segmenters._deps import require, version
from metaeval.segmenters.base import Segmenter
from metaeval.segmenters.characters import CharacterPolicy
from metaeval.segmenters.registry import register
from metaeval.segmenters.simple import RULES_VERSION

#: Inclusive code-point ranges whose characters are tokens on their own.
CJK_RANGES: tuple[tuple[int, int, str], ...] = (
    (0x1100, 0x11FF, "Hangul Jamo"),
    (0x2E80, 0x2FDF, "CJK Radicals Supplement, Kangxi Radicals"),
    (0x2FF0, 0x2FFF, "Ideographic Description Characters"),
    (0x3000, 0x303F, "CJK Symbols and Punctuation"),
    (0x3040, 0x30FF, "Hiragana, Katakana"),
    (0x3100, 0x33FF, "Bopomofo, Hangul Compatibility Jamo, Kanbun, CJK Strokes, Katakana Phonetic Extensions, "
                     "Enclosed CJK Letters and Months, CJK Compatibility"),
    (0x3400, 0x4DBF, "CJK Unified Ideographs Extension A"),
    (0x4E00, 0x9FFF, "CJK Unified Ideographs"),
    (0xA960, 0xA97F, "Hangul Jamo Extended-A"),
    (0xAC00, 0xD7FF, "Hangul Syllables, Hangul Jamo Extended-B"),
    (0xF900, 0xFAFF, "CJK Compatibility Ideographs"),
    (0xFE10, 0xFE1F, "Vertical Forms"),
    (0xFE30, 0xFE6F, "CJK Compatibility Forms, Small Form Variants"),
    (0xFF01, 0xFF0F, "Full-width punctuation"),
    (0xFF1A, 0xFF20, "Full-width punctuation"),
    (0xFF3B, 0xFF40, "Full-width punctuation"),
    (0xFF5B, 0xFF65, "Full-width brackets, half-width CJK punctuation"),
    (0xFF66, 0xFF9F, "Half-width Katakana"),
    (0xFFA0, 0xFFDC, "Half-width Hangul"),
    (0xFFE0, 0xFFEE, "Full-width and half-width symbols"),
    (0x16FE0, 0x16FFF, "Ideographic Symbols and Punctuation"),
    (0x1AFF0, 0x1B16F, "Kana Extended-B, Kana Supplement, Kana Extended-A, Small Kana Extension"),
    (0x20000, 0x3FFFF, "Supplementary and Tertiary Ideographic Planes: Extensions B-I, Compatibility Supplement"),
)

#: Punctuation outside those blocks that Chinese and Japanese text uses as full-width marks
#: (GB/T 15834 quotes, dash, ellipsis, middle dot, reference mark).
CJK_PUNCTUATION = "\u00b7\u2014\u2015\u2016\u2018\u2019\u201c\u201d\u2025\u2026\u2027\u2030\u2032\u2033\u203b"


def _character_class() -> str:
    ranges = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi, _ in CJK_RANGES)
    return "[" + ranges + re.escape(CJK_PUNCTUATION) + "]"


_CJK = re.compile(_character_class())
_SPLIT = re.compile("(" + _character_class() + ")")
_CLUSTER = regex.compile(r"\X")
_MARKS = regex.compile(r"\p{M}+")


def is_cjk(char: str) -> bool:
    """Whether ``cjk-char`` makes this one character a token of its own."""
    return _CJK.fullmatch(char) is not None


@register("cjk-char")
class CjkCharSegmenter(Segmenter):
    """CJK ideographs, kana, hangul and full-width/CJK punctuation one per token; runs of other
    characters tokenized by sacrebleu's 13a (docs/design.md, "Segmenters")."""

    name = "cjk-char"
    in_process = True

    def __init__(self, *, invisible: str = "drop", graphemes: Any = False, **norm: Any) -> None:
        super().__init__(**norm)
        module = require("sacrebleu.tokenizers.tokenizer_re", self.name, "sacrebleu")
        self._split13a = module.TokenizerRegexp()
        self.characters = CharacterPolicy(invisible, graphemes)

    def _segment(self, text: str) -> list[str]:
        # The 13a splitting rules never look across a space, so splitting only the runs
        # between CJK characters gives the tokens of the whole text with spaces around each
        # CJK character.
        text = self.characters.clean(text)
        if self.characters.graphemes:
            return self._segment_clusters(text)
        tokens: list[str] = []
        # split() with a group: runs of other characters at even places, CJK characters at odd
        for place, piece in enumerate(_SPLIT.split(text)):
            if place % 2:
                tokens.append(piece)
            elif piece and not piece.isspace():
                tokens.extend(self._words([piece]))
        return tokens

    def _segment_clusters(self, text: str) -> list[str]:
        """:meth:`_segment` with grapheme clusters kept whole."""
        tokens: list[str] = []
        run: list[str] = []
        for piece in _CLUSTER.findall(text):
            if piece and is_cjk(piece[0]):
                if run:
                    tokens.extend(self._words(run))
                    run = []
                tokens.append(piece)
            elif piece:
                run.append(piece)
        if run:
            tokens.extend(self._words(run))
        # a cluster the 13a rules split (a mark after ASCII punctuation) is one token again
        # (only the marks move: in "a.\u0301b" the mark joins "." and "b" stays a token)
        merged: list[str] = []
        for token in tokens:
            marks = _MARKS.match(token)
            if merged and marks:
                merged[-1] += marks.group()
                token = token[marks.end():]
            if token:
                merged.append(token)
        return merged

    def _words(self, run: list[str]) -> list[str]:
        """The 13a tokens of a run of non-CJK pieces (a run of spaces has none)."""
        return self._split13a(" " + "".join(run) + " ").split()

    def options_signature(self) -> str:
        # merge:2: only the leading marks of a token move onto the previous one
        return self.characters.signature() + ("|merge:2" if self.characters.graphemes else "")

    @classmethod
    def describe(cls) -> str:
        return f"rules:{RULES_VERSION}|sacrebleu:{version('sacrebleu')}"
