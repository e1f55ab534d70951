"""Segmenters without a dictionary: characters, whitespace, and sacrebleu's word tokenizers."""

from __future__ import annotations

from typing import Any, Callable

from metaeval.segmenters._deps import require, version
from metaeval.segmenters.base import Segmenter
from metaeval.segmenters.characters import CharacterPolicy
from metaeval.segmenters.registry import register

#: Bumped whenever the rules of a segmenter defined in this package change.
RULES_VERSION = "2"


class _RuleSegmenter(Segmenter):
    """A segmenter defined by this package's own rules (no third-party tokenizer)."""

    in_process = True

    @classmethod
    def describe(cls) -> str:
        return f"rules:{RULES_VERSION}"


@register("char")
class CharSegmenter(_RuleSegmenter):
    """Every non-whitespace character is one token: the "character level" of Li, Zong & Ng
    2011 and Denoual & Lepage 2005. A character is a code point (``graphemes=true``: a
    grapheme cluster); invisible format characters are dropped unless ``invisible=keep``
    (:mod:`segmenters.characters`)."""

    name = "char"

    def __init__(self, *, invisible: str = "drop", graphemes: Any = False, **norm: Any) -> None:
        super().__init__(**norm)
        self.characters = CharacterPolicy(invisible, graphemes)

    def _segment(self, text: str) -> list[str]:
        return self.characters.characters(self.characters.clean(text))

    def options_signature(self) -> str:
        return self.characters.signature()


@register("whitespace")
class WhitespaceSegmenter(_RuleSegmenter):
    """Already segmented text: tokens are the runs between whitespace (``str.split()``)."""

    name = "whitespace"

    def _segment(self, text: str) -> list[str]:
        return text.split()


class _SacrebleuSegmenter(Segmenter):
    """A sacrebleu tokenizer (a ``str -> str`` function adding spaces), then split on whitespace."""

    in_process = True

    #: The tokenizer class ``tokenizer`` of the submodule ``sacrebleu.tokenizers.<module>``.
    module: str
    tokenizer: str

    def __init__(self, **norm: Any) -> None:
        super().__init__(**norm)
        module = require(f"sacrebleu.tokenizers.{self.module}", self.name, "sacrebleu")
        self._tokenize: Callable[[str], str] = getattr(module, self.tokenizer)()

    def _segment(self, text: str) -> list[str]:
        return self._tokenize(text).split()

    @classmethod
    def describe(cls) -> str:
        return f"sacrebleu:{version('sacrebleu')}"


@register("13a")
class Tokenizer13aSegmenter(_SacrebleuSegmenter):
    """sacrebleu's ``Tokenizer13a`` (mteval-v13a's tokenization of Western text)."""

    name = "13a"
    module, tokenizer = "tokenizer_13a", "Tokenizer13a"


@register("intl")
class TokenizerIntlSegmenter(_SacrebleuSegmenter):
    """sacrebleu's ``TokenizerV14International`` (mteval-v14's ``--international-tokenization``)."""

    name = "intl"
    module, tokenizer = "tokenizer_intl", "TokenizerV14International"


@register("sacrebleu-zh")
class TokenizerZhSegmenter(_SacrebleuSegmenter):
    """sacrebleu's ``TokenizerZh``, kept for comparison; it has Unicode-range mistakes (it misses
    Extension B and beyond, kana and hangul), which ``cjk-char`` fixes."""

    name = "sacrebleu-zh"
    module, tokenizer = "tokenizer_zh", "TokenizerZh"
