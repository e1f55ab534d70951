"""What the segmenter registry and the byte segmenter say besides tokens: option labels, the
shape of a plug-in's wrong return value, a listing of a segmenter without ``describe``, the
smallest SentencePiece vocabulary, and the text around a character bytes cannot hold."""

from __future__ import annotations

import pytest

from metaeval import segmenters
from metaeval.errors import DataError, PluginError, UsageError
from metaeval.segmenters import registry
from metaeval.segmenters.subword import _vocab


def test_a_label_writes_boolean_options_in_lower_case_and_sorts_them():
    assert registry.segmenter_label("char", {}) == "char"
    assert registry.segmenter_label("char", {"nfkc": True, "halfwidth": False, "n": 3}) == "char:halfwidth=false,n=3,nfkc=true"


def test_a_plugins_wrong_return_value_is_shown_by_type_and_its_first_80_characters():
    class Returns:
        def __init__(self, value):
            self.value = value

        def __call__(self, text):
            return self.value

        def signature(self):
            return "returns"

    with pytest.raises(PluginError, match=r"returned str '" + "x" * 79 + r"\.\.\. for 'a'"):
        registry.guarded("long", Returns("x" * 200))("a")
    with pytest.raises(PluginError, match=r"returned str 'xy' for 'a'"):  # short: no ellipsis
        registry.guarded("short", Returns("xy"))("a")


def test_a_registered_segmenter_without_describe_is_listed_with_an_empty_description(monkeypatch):
    def plain(**options):
        return lambda text: text.split()

    monkeypatch.setitem(registry._REGISTRY, "plain-for-test", plain)
    row = next(r for r in registry.info() if r.name == "plain-for-test")
    assert row.description == ""


def test_the_smallest_sentencepiece_vocabulary_is_4():
    assert _vocab(4) == 4 and _vocab("8") == 8
    for bad in (3, True, "many", None):
        with pytest.raises(UsageError, match="vocab must be a whole number >= 4"):
            _vocab(bad)


def test_a_character_bytes_cannot_hold_is_shown_with_the_20_characters_before_it():
    text = "甲" * 25 + "前" * 20 + "\ud800" + "后" * 30
    with pytest.raises(DataError) as failed:
        segmenters.get("byte")(text)
    assert repr("前" * 20 + "\ud800" + "后" * 20) in str(failed.value)
