"""``byte``: the token form by hand, its properties over all 256 bytes, the options shared with
``char``, and the round trip tokens -> bytes -> text on every shared corpus."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from metaeval import corpora, segmenters
from metaeval.errors import DataError, UsageError
from metaeval.segmenters.bytelevel import TOKEN_OF_BYTE, token_bytes, tokens_text
from tests.golden_util import DATA, shared_corpora


def test_tokens_by_hand() -> None:
    # 我 = E6 88 91, 。 = E3 80 82: Braille U+2800 + byte; "a", "1" and "!" are printable ASCII
    seg = segmenters.get("byte")
    assert seg("我 a1!\t。") == ["\u28e6", "\u2888", "\u2891", "a", "1", "!", "\u28e3", "\u2880", "\u2882"]
    assert seg("我") == ["⣦", "⢈", "⢑"]
    # U+20000 (Extension B) is F0 A0 80 80; U+00E9 is C3 A9; the ASCII control 0x07 is U+2807
    assert seg("\U00020000é\x07") == ["⣰", "⢠", "⢀", "⢀", "⣃", "⢩", "⠇"]
    assert seg("") == seg(" \u3000\n") == []


def test_the_token_form_of_every_byte() -> None:
    assert len(set(TOKEN_OF_BYTE)) == 256
    for b, token in enumerate(TOKEN_OF_BYTE):
        assert len(token) == 1 and not token.isspace() and token.split() == [token]
        assert unicodedata.normalize("NFKC", token) == token
        assert token == (chr(b) if 0x21 <= b <= 0x7E else chr(0x2800 + b))
        # lowercasing (TER) maps A-Z to a-z, as for characters, and leaves every other token alone
        assert token.lower() == (chr(b + 32) if 0x41 <= b <= 0x5A else token)
        assert token_bytes([token]) == bytes([b])


def test_ascii_text_has_the_same_tokens_as_char() -> None:
    text = "The cat (3 years old) sat; it's 100% sure!"
    assert segmenters.get("byte")(text) == segmenters.get("char")(text)


@given(st.text())
def test_tokens_spell_the_text_without_whitespace(text: str) -> None:
    tokens = segmenters.get("byte:invisible=keep")(text)
    kept = "".join(text.split())
    assert len(tokens) == len(kept.encode("utf-8"))
    assert token_bytes(tokens) == kept.encode("utf-8") and tokens_text(tokens) == kept
    # by default the invisible characters go, exactly as for char
    assert tokens_text(segmenters.get("byte")(text)) == "".join(segmenters.get("char")(text))


def test_options_shared_with_char() -> None:
    text = "Ｂ字\u200b典 ﬁ"
    assert tokens_text(segmenters.get("byte")(text)) == "Ｂ字典ﬁ"
    assert tokens_text(segmenters.get("byte:invisible=keep")(text)) == "Ｂ字\u200b典ﬁ"
    assert tokens_text(segmenters.get("byte:nfkc=true")(text)) == "B字典fi"
    assert tokens_text(segmenters.get("byte:halfwidth=true,lowercase=true")(text)) == "b字典ﬁ"
    for spec in ("byte:graphemes=true", "byte:invisible=hide", "byte:nfkc=maybe"):
        with pytest.raises(UsageError):
            segmenters.get(spec)


def test_signature_and_listing() -> None:
    assert segmenters.get("byte").signature() == "byte|unit:utf8|form:ascii+braille|invisible:drop|rules:2|norm:none"
    assert segmenters.get("byte:invisible=keep,nfkc=true").signature() == (
        "byte|unit:utf8|form:ascii+braille|invisible:keep|rules:2|norm:nfkc")
    assert "byte" in segmenters.available()
    assert any(row.name == "byte" and row.source == "builtin" for row in segmenters.info())


def test_bad_text_and_bad_tokens_are_clear_errors() -> None:
    with pytest.raises(DataError, match="segmenter byte: .*lone surrogate"):
        segmenters.get("byte")("ab\ud800c")
    with pytest.raises(ValueError, match="'我' is not a byte token"):
        token_bytes(["a", "我"])
    with pytest.raises(UnicodeDecodeError):
        tokens_text(["⣦", "⢈"])  # two of the three bytes of 我


CORPORA = shared_corpora()


@pytest.mark.skipif(not CORPORA, reason=f"shared data not found: {DATA}")
@pytest.mark.parametrize("folder", CORPORA, ids=[f"{p.parent.name}/{p.name}" for p in CORPORA])
def test_round_trip_on_every_shared_corpus(folder) -> None:
    """Every source, reference and system line: the tokens decode to the line without whitespace
    (invisible=keep), and by default to the ``char`` tokens joined, one token per UTF-8 byte."""
    corpus, _ = corpora.read(folder)
    texts = list(dict.fromkeys([*corpus.sources, *(t for ref in corpus.references.values() for t in ref),
                                *(t for hyps in corpus.systems.values() for t in hyps)]))
    keep, default, char = (segmenters.get(s) for s in ("byte:invisible=keep", "byte", "char"))
    for text, kept_tokens, tokens, chars in zip(texts, keep.segment_many(texts), default.segment_many(texts),
                                                char.segment_many(texts), strict=True):
        kept = "".join(text.split())
        assert tokens_text(kept_tokens) == kept and len(kept_tokens) == len(kept.encode("utf-8")), text
        assert tokens_text(tokens) == "".join(chars), text
    assert len(texts) > 900


def test_metaeval_list_names_byte(capsys) -> None:
    from metaeval.cli import main

    assert main(["list"]) == 0
    segmenter_lines = capsys.readouterr().out.split("\n\n")[1].splitlines()
    assert any(line.split() == ["byte", "rules:2"] for line in segmenter_lines), segmenter_lines
