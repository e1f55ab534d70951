"""cjk-char: CJK characters one by one, other runs as mteval-v13a."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from metaeval import segmenters
from metaeval.segmenters.cjk import is_cjk


@pytest.fixture(scope="module")
def seg():  # noqa: ANN201
    return segmenters.get("cjk-char")


def test_mixed_chinese_and_latin(seg) -> None:  # noqa: ANN001
    assert seg("我用iPhone 15拍照。") == ["我", "用", "iPhone", "15", "拍", "照", "。"]


def test_latin_runs_follow_13a(seg) -> None:  # noqa: ANN001
    # 13a keeps 3.5 and It's whole and splits the other ASCII punctuation.
    assert seg("价格3.5元(约),It's好") == ["价", "格", "3.5", "元", "(", "约", ")", ",", "It's", "好"]


@pytest.mark.parametrize(
    "char, block",
    [
        ("\U00020000", "Extension B, first"),
        ("\U0002A6DF", "Extension B, last"),
        ("\U0002A700", "Extension C"),
        ("\U0002B740", "Extension D"),
        ("\U0002B820", "Extension E"),
        ("\U0002CEB0", "Extension F"),
        ("\U00030000", "Extension G"),
        ("\U00031350", "Extension H"),
        ("\U0002F800", "Compatibility Ideographs Supplement"),
        ("\u9FA6", "URO, added in Unicode 4.1"),
        ("\u9FEF", "URO, added in Unicode 11"),
        ("\u4DB6", "Extension A, added in Unicode 13"),
        ("\uFA6E", "CJK Compatibility Ideographs"),
        ("\u3042", "hiragana"),
        ("\u30AB", "katakana"),
        ("\u30FC", "prolonged sound mark"),
        ("\uFF71", "half-width katakana"),
        ("\uAC00", "hangul syllable"),
        ("\u3002", "ideographic full stop"),
        ("\uFF0C", "full-width comma"),
        ("\u201C", "left double quotation mark"),
    ],
)
def test_each_cjk_character_is_a_token(seg, char: str, block: str) -> None:  # noqa: ANN001
    assert is_cjk(char), block
    assert seg(f"ab{char}{char}cd") == ["ab", char, char, "cd"], block


@pytest.mark.parametrize("char", ["a", "1", "\u00E9", "\u2192", "\u2200", "\uFF21", "\uFF11", "\u0416"])
def test_other_characters_are_not_split_off(seg, char: str) -> None:  # noqa: ANN001
    # U+2192/U+2200 were wrongly Chinese in sacrebleu's zh; full-width letters/digits stay in runs.
    assert not is_cjk(char)
    assert seg(f"x{char}y") == [f"x{char}y"]


def test_extension_b_sentence(seg) -> None:  # noqa: ANN001
    # 𠮷野家 (U+20BB7 is Extension B), ｶﾞｽ in half-width kana with a half-width voiced mark.
    assert seg("𠮷野家でｶﾞｽ代") == ["𠮷", "野", "家", "で", "ｶ", "ﾞ", "ｽ", "代"]


def test_full_width_latin_run_stays_whole(seg) -> None:  # noqa: ANN001
    assert seg("ＩＢＭ，１５年") == ["ＩＢＭ", "，", "１５", "年"]


CJK_OR_LETTER = st.text(alphabet=st.sampled_from(list("我用拍照。、「」ひらカナ한글ｶ𠀀𪜀𰀀abc XYZ 123")), max_size=30)


@given(CJK_OR_LETTER)
def test_tokens_cover_the_text(text: str) -> None:
    tokens = segmenters.get("cjk-char")(text)
    assert "".join(tokens) == "".join(text.split())
    assert all(len(tok) == 1 for tok in tokens if is_cjk(tok[0]))


def test_same_tokens_as_13a_over_spaced_text(zh_refs: list[str], ja_refs: list[str]) -> None:
    # The definition, with sacrebleu as the oracle: drop invisible format characters and
    # variation selectors, put spaces around every CJK character, then apply the splitting
    # rules of sacrebleu's 13a (its TokenizerRegexp, without 13a's unescaping) to the line.
    import unicodedata

    from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

    from metaeval.segmenters.cjk import CJK_PUNCTUATION, CJK_RANGES

    def spaced(text: str) -> str:
        def cjk(ch: str) -> bool:
            return ch in CJK_PUNCTUATION or any(lo <= ord(ch) <= hi for lo, hi, _ in CJK_RANGES)

        def invisible(ch: str) -> bool:
            code = ord(ch)
            return unicodedata.category(ch) == "Cf" or 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF \
                or 0x180B <= code <= 0x180F

        return " " + "".join(f" {ch} " if cjk(ch) else ch for ch in text if not invisible(ch)) + " "

    oracle = TokenizerRegexp()
    extra = ["U.S.A.的3.5%。", "价格:$9.99,约¥70。", "“好,”他说.", "&quot;引&quot;-\n号"]
    seg = segmenters.get("cjk-char")
    for line in zh_refs + ja_refs + extra:
        assert seg(line) == oracle(spaced(line)).split(), line


def test_tokens_are_substrings_of_the_text() -> None:
    """13a's unescaping is not applied: ``&amp;`` stays three tokens of the input, so chrF
    sees the same characters under every segmenter."""
    seg = segmenters.get("cjk-char")
    assert seg("A&amp;B 的 &lt;x&gt; &quot;") == ["A", "&", "amp", ";", "B", "的", "&", "lt", ";", "x", "&", "gt", ";", "&", "quot", ";"]
    assert seg("<skipped>字") == ["<", "skipped", ">", "字"]
