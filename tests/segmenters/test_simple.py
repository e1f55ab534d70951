"""char, whitespace, 13a, intl, sacrebleu-zh and the normalisation option."""

from __future__ import annotations

import unicodedata

import pytest
import sacrebleu
from hypothesis import given
from hypothesis import strategies as st

from metaeval import segmenters
from metaeval.errors import UsageError


def test_char_splits_every_non_whitespace_character() -> None:
    seg = segmenters.get("char")
    assert seg("我用 iPhone\t15。\n") == ["我", "用", "i", "P", "h", "o", "n", "e", "1", "5", "。"]
    # U+3000 (ideographic space) is whitespace too; U+20000 is one code point, one token.
    assert seg("\u3000日本\u3000\U00020000") == ["日", "本", "\U00020000"]
    assert seg("") == [] and seg(" \t\u3000 ") == []


@given(st.text())
def test_char_tokens_are_the_non_whitespace_characters(text: str) -> None:
    tokens = segmenters.get("char:invisible=keep")(text)
    assert all(len(tok) == 1 and not tok.isspace() for tok in tokens)
    assert "".join(tokens) == "".join(ch for ch in text if not ch.isspace())


def _invisible(ch: str) -> bool:
    code = ord(ch)
    return unicodedata.category(ch) == "Cf" or any(
        lo <= code <= hi for lo, hi in ((0xFE00, 0xFE0F), (0xE0100, 0xE01EF), (0x180B, 0x180F))
    )


@given(st.text())
def test_char_drops_invisible_characters_by_default(text: str) -> None:
    tokens = segmenters.get("char")(text)
    assert "".join(tokens) == "".join(ch for ch in text if not ch.isspace() and not _invisible(ch))


def test_invisible_and_combining_policy() -> None:
    """Zero-width space, bidi marks, a BOM inside the line and variation selectors are not
    characters; graphemes=true keeps a base and its combining marks together."""
    text = "字\u200b典\u200e\u202b\ufeff e\u0301 か\u3099 葛\U000E0100 ❤\ufe0f"
    assert segmenters.get("char")(text) == ["字", "典", "e", "\u0301", "か", "\u3099", "葛", "❤"]
    assert segmenters.get("char:graphemes=true")(text) == ["字", "典", "e\u0301", "か\u3099", "葛", "❤"]
    keep = segmenters.get("char:invisible=keep,graphemes=true")(text)
    assert keep == ["字", "\u200b", "典", "\u200e", "\u202b", "\ufeff", "e\u0301", "か\u3099", "葛\U000E0100", "❤\ufe0f"]
    for spec in ("char:invisible=hide", "char:graphemes=maybe", "cjk-char:invisible=x"):
        with pytest.raises(UsageError):
            segmenters.get(spec)


def test_whitespace_splits_pre_segmented_text() -> None:
    assert segmenters.get("whitespace")("  我 来到  北京\u3000清华大学 \n") == ["我", "来到", "北京", "清华大学"]


def test_13a_as_mteval() -> None:
    # mteval-v13a: ASCII punctuation split off, except '.'/',' between digits and the apostrophe.
    seg = segmenters.get("13a")
    assert seg("Hello, world! It's 3.5 km (approx.).") == [
        "Hello", ",", "world", "!", "It's", "3.5", "km", "(", "approx", ".", ")", "."
    ]
    assert seg("&quot;A&amp;B&quot;") == ['"', "A", "&", "B", '"']


def test_intl_splits_unicode_punctuation_and_symbols() -> None:
    # mteval-v14 international: punctuation split unless between digits; symbols always split.
    seg = segmenters.get("intl")
    assert seg("Hello, world! It's 3.5 km.") == ["Hello", ",", "world", "!", "It", "'", "s", "3.5", "km", "."]
    assert seg("«Ça va?» 5€") == ["«", "Ça", "va", "?", "»", "5", "€"]


@pytest.mark.parametrize("name, tokenize", [("13a", "13a"), ("intl", "intl"), ("sacrebleu-zh", "zh")])
def test_sacrebleu_segmenters_match_sacrebleu_bleu_tokenization(name: str, tokenize: str) -> None:
    # Oracle: sacrebleu's public BLEU(tokenize=...) tokenizer, split on spaces.
    text = "他说：“iPhone 15 的价格是 $999.99，对吧？” (U.S.A.)"
    oracle = sacrebleu.BLEU(tokenize=tokenize).tokenizer(text).split()
    assert segmenters.get(name)(text) == oracle


def test_sacrebleu_zh_keeps_its_range_mistakes() -> None:
    # U+20000 is missed (the Extension B range was written as 4-hex-digit escapes), kana are
    # not split, and U+2192 (an arrow) is wrongly taken as Chinese.
    assert segmenters.get("sacrebleu-zh")("拍照ひらがな\U00020000→x") == ["拍", "照", "ひらがな\U00020000", "→", "x"]


def test_normalisation_is_off_by_default_and_recorded() -> None:
    text = "ＡＢＣ１２３\u3000ｶﾀｶﾅ"
    assert segmenters.get("whitespace")(text) == ["ＡＢＣ１２３", "ｶﾀｶﾅ"]
    # NFKC: full-width ASCII -> ASCII, U+3000 -> space, half-width katakana -> full-width.
    assert segmenters.get("whitespace", nfkc=True)(text) == ["ABC123", "カタカナ"]
    # halfwidth only touches full-width ASCII and U+3000.
    assert segmenters.get("whitespace", halfwidth=True, lowercase=True)(text) == ["abc123", "ｶﾀｶﾅ"]
    assert segmenters.get("char").signature().endswith("|norm:none")
    assert segmenters.get("char", nfkc=True, halfwidth=True, lowercase=True).signature().endswith("|norm:nfkc+halfwidth+lower")
    assert segmenters.get("char:lowercase=true")("AB") == ["a", "b"]


def test_normalisation_option_must_be_boolean() -> None:
    with pytest.raises(UsageError, match="lowercase='maybe'"):
        segmenters.get("char:lowercase=maybe")
    with pytest.raises(UsageError, match="nfkc=1"):
        segmenters.Normalization(nfkc=1)  # type: ignore[arg-type]


def test_segment_many_matches_call_and_does_not_share_lists() -> None:
    seg = segmenters.get("char")
    out = seg.segment_many(["ab", "c", "ab"])
    assert out == [["a", "b"], ["c"], ["a", "b"]]
    out[0].append("x")
    assert out[2] == ["a", "b"]


def test_cjk_char_graphemes_moves_only_the_marks_a_13a_split_separated():
    """13a splits "a.\u0301b" after the period, leaving the combining acute at the start of
    "\u0301b": the mark rejoins its base "." and "b" stays a token of its own."""
    seg = segmenters.get("cjk-char:graphemes=true")
    assert seg("a.\u0301b 中文") == ["a", ".\u0301", "b", "中", "文"]
    assert seg("e\u0301.\u0301\u0302") == ["e\u0301", ".\u0301\u0302"]
    assert seg("\u0301x") == ["\u0301x"]  # nothing before it to join
    assert segmenters.get("cjk-char")("a.\u0301b") == ["a", ".", "\u0301b"]  # code points: 13a as is
    assert "merge:2" in seg.signature() and "merge" not in segmenters.get("cjk-char").signature()
