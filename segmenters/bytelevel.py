"""``byte``: every UTF-8 byte of the text is a token, the granularity below characters (byte
n-gram scoring: bytF, Dabre et al., MT Summit 2025).

The text is prepared as for ``char``: the normalisation options (``nfkc``, ``halfwidth``,
``lowercase``), invisible characters dropped unless ``invisible=keep``
(:mod:`segmenters.characters`), whitespace removed. What remains is encoded in UTF-8 and each
byte becomes one token, written as one character (the *token form*):

- a printable ASCII byte, 0x21-0x7E, is that character: ``a``, ``7``, ``;``. ASCII text has the
  same tokens under ``byte`` and ``char``;
- every other byte ``b`` (0x80-0xFF, of which every other character is made, and the ASCII
  control bytes) is the Braille pattern ``U+2800 + b``: ``我`` is E6 88 91, the tokens
  ``⣦ ⢈ ⢑``. The Braille block has exactly 256 code points.

The form is lossless: :func:`token_bytes` gives the bytes back and :func:`tokens_text` the text
(the text with whitespace and, by default, invisible characters removed). Every token is one
code point that is not whitespace (sacrebleu and the metrics split on whitespace) and that NFKC
leaves alone, so two tokens are equal exactly when their bytes are; chrF's character n-grams of
byte tokens are byte n-grams. Lowercasing (TER compares lowercased tokens) changes only A-Z, to
a-z, as it does for characters; a non-ASCII letter's bytes are not case-folded. A CJK character
is three tokens, so BLEU or NIST at byte level take about three times the character order
(``bleu:n=12`` for ``n=4`` on characters). TER's default ``max_len`` (1,000 tokens) is below
the longest paragraphs (WMT24 en-ja: 81 of its 8,242 texts, up to 1,422 bytes; WMT23 en-ja up
to 1,700): a length error, and TER's cost grows faster than the square of the length.
"""

from __future__ import annotations

from typing import Any, Iterable

from metaeval.errors import DataError
from metaeval.segmenters.characters import CharacterPolicy
from metaeval.segmenters.registry import register
from metaeval.segmenters.simple import _RuleSegmenter

#: First code point of the Braille Patterns block (U+2800-U+28FF), the tokens of non-printable bytes.
BRAILLE = 0x2800
#: The token of each byte value.
TOKEN_OF_BYTE: tuple[str, ...] = tuple(chr(b) if 0x21 <= b <= 0x7E else chr(BRAILLE + b) for b in range(256))
_BYTE_OF_TOKEN = {token: b for b, token in enumerate(TOKEN_OF_BYTE)}


def token_bytes(tokens: Iterable[str]) -> bytes:
    """The bytes that ``byte`` tokens stand for (ValueError for a string that is not one)."""
    try:
        return bytes(_BYTE_OF_TOKEN[token] for token in tokens)
    except KeyError as exc:
        raise ValueError(f"{exc.args[0]!r} is not a byte token (printable ASCII or U+2800-U+28FF)") from None


def tokens_text(tokens: Iterable[str]) -> str:
    """The text that ``byte`` tokens spell: :func:`token_bytes` decoded as UTF-8."""
    return token_bytes(tokens).decode("utf-8")


@register("byte")
class ByteSegmenter(_RuleSegmenter):
    """Every UTF-8 byte of the non-whitespace text is one token, written in the lossless token
    form of the module docstring; invisible characters are dropped unless ``invisible=keep``."""

    name = "byte"

    def __init__(self, *, invisible: str = "drop", **norm: Any) -> None:
        super().__init__(**norm)
        self.characters = CharacterPolicy(invisible)

    def _segment(self, text: str) -> list[str]:
        kept = "".join(self.characters.clean(text).split())
        try:
            data = kept.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise DataError(f"segmenter byte: {kept[max(exc.start - 20, 0):exc.end + 20]!r} holds {exc.object[exc.start]!r}, "
                            "which has no UTF-8 form (a lone surrogate)") from None
        return list(map(TOKEN_OF_BYTE.__getitem__, data))

    def options_signature(self) -> str:
        return f"unit:utf8|form:ascii+braille|invisible:{self.characters.invisible}"
