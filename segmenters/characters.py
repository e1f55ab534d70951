"""What one character is for ``char`` and ``cjk-char``: the policy for invisible characters
and combining sequences (docs/design.md, "Segmenters"; README, "Characters").

Invisible characters are the Unicode format characters (general category ``Cf`` in Python's
``unicodedata``: zero-width
space U+200B, zero-width (non-)joiner U+200C/U+200D, the bidirectional marks, embeddings
and isolates U+200E/F, U+202A-E, U+2066-9, word joiner U+2060, a byte-order mark U+FEFF
inside a line, soft hyphen U+00AD...) and the variation selectors (U+FE00-FE0F,
U+E0100-E01EF, Mongolian U+180B-180F). They change no visible character, so by default
(``invisible=drop``) they are removed before splitting, like whitespace: a hypothesis neither
gains nor loses matches by them. ``invisible=keep`` keeps every code point.

Combining sequences: by default each code point is a token (the characters of Denoual &
Lepage 2005 and Li et al. 2011), so ``e`` + U+0301 is two tokens. ``graphemes=true`` makes
each extended grapheme cluster (Unicode UAX #29, as the ``regex`` module's ``\\X``) one
token: a base with its combining marks, a Hangul syllable written as jamo, and (with
``invisible=keep``) an emoji ZWJ sequence or a base with its variation selector.

Unicode normalisation is separate (``nfkc=true``); text is never rewritten otherwise.
"""

from __future__ import annotations

import itertools
import unicodedata
from functools import lru_cache
from typing import Any

import regex

from metaeval.errors import UsageError

#: ``invisible=`` values.
INVISIBLE_POLICIES = ("drop", "keep")
#: Variation selectors (category Mn, but invisible): standardized, ideographic, Mongolian.
VARIATION_SELECTORS = ((0xFE00, 0xFE0F), (0xE0100, 0xE01EF), (0x180B, 0x180F))


@lru_cache(maxsize=1)
def invisible_table() -> dict[int, None]:
    """``str.translate`` table deleting the invisible characters, by Python's ``unicodedata``
    (format characters exist in planes 0, 1 and 14 only)."""
    table: dict[int, None] = {}
    for code in itertools.chain(range(0x20000), range(0xE0000, 0xE1000)):
        if unicodedata.category(chr(code)) == "Cf":
            table[code] = None
    for low, high in VARIATION_SELECTORS:
        table.update(dict.fromkeys(range(low, high + 1)))
    return table

_CLUSTER = regex.compile(r"\X")


def parse_bool(key: str, value: Any) -> bool:
    """An option that must be true or false."""
    if not isinstance(value, bool):
        raise UsageError(f"segmenter option {key}={value!r} must be true or false")
    return value


class CharacterPolicy:
    """How text becomes characters: invisible characters dropped or kept, code points or
    grapheme clusters (see the module docstring)."""

    def __init__(self, invisible: str = "drop", graphemes: Any = False) -> None:
        if invisible not in INVISIBLE_POLICIES:
            raise UsageError(f"segmenter option invisible={invisible!r}; expected one of {', '.join(INVISIBLE_POLICIES)}")
        self.invisible = invisible
        self.graphemes = parse_bool("graphemes", graphemes)

    def clean(self, text: str) -> str:
        """``text`` without invisible characters (if dropped)."""
        return text.translate(invisible_table()) if self.invisible == "drop" else text

    def characters(self, text: str) -> list[str]:
        """The characters of ``text`` (already cleaned), whitespace excluded."""
        if self.graphemes:
            clusters = ("".join(c.split()) for c in _CLUSTER.findall(text))
            return [c for c in clusters if c]
        return list("".join(text.split()))

    def signature(self) -> str:
        return f"unit:{'grapheme' if self.graphemes else 'codepoint'}|invisible:{self.invisible}"
