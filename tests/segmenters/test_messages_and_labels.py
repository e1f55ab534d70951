"""What the segmenter registry and the byte segmenter say besides tokens: option labels, the
shape of a plug-in's wrong return value, a listing of a segmenter without ``describe``, the
smallest SentencePiece vocabulary, the text around a character bytes cannot hold, the pip
command of a missing THULAC, the files named in signatures, and where SentencePiece writes
and what it trains on."""

from __future__ import annotations

import re
import sys
import tempfile
import unicodedata
from pathlib import Path

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


def test_thulac_missing_names_the_pip_command(monkeypatch: pytest.MonkeyPatch) -> None:
    from metaeval.errors import MissingDependencyError
    from metaeval.segmenters import thulac_adapter

    monkeypatch.setattr(thulac_adapter, "_MODEL", None)
    monkeypatch.setitem(sys.modules, "thulac", None)  # an import of it raises ImportError
    with pytest.raises(MissingDependencyError, match=r"install it with: pip install thulac$"):
        thulac_adapter.model()


def test_chasens_signature_names_the_files_it_fingerprints() -> None:
    from metaeval.segmenters import chasen_adapter

    if chasen_adapter.binary() is None:
        pytest.fail("the 'chasen' program is not on PATH: install it as the README says (apt-get install chasen)")
    assert re.fullmatch(r"chasen:[\d.]+\|dict:chasenrc\+grammar/\d+files:sha256=[0-9a-f]{12}", chasen_adapter.ChasenSegmenter.describe())


def test_jiebas_hmm_signature_fingerprints_the_finalseg_model_files(monkeypatch: pytest.MonkeyPatch) -> None:
    from metaeval.segmenters import jieba_adapter

    seen: list[tuple[str, ...]] = []
    real = jieba_adapter.files_fingerprint
    monkeypatch.setattr(jieba_adapter, "files_fingerprint", lambda label, files: seen.append(files) or real(label, files))
    assert "|hmm-model:finalseg" in jieba_adapter.JiebaSegmenter.describe()
    [files] = seen
    assert [Path(f).name for f in files] == list(jieba_adapter.HMM_FILES)
    assert all(Path(f).parent.name == "finalseg" and Path(f).is_file() for f in files)


def test_a_cached_sentencepiece_model_is_written_beside_its_target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The temporary file is made in the cache folder, so that the final rename is atomic (one
    file system), whatever the system's temporary folder is."""
    from metaeval.segmenters import subword

    monkeypatch.setattr(subword, "_MODELS", {})
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no-such-temporary-folder"))
    lines = ["東京都に住んでいます。", "東京に行きます。", "京都に住んでいました。", "大阪に行きました。"] * 5
    seg = segmenters.get("spm:vocab=28,type=unigram", training_text=lines, cache_dir=tmp_path / "cache")
    [model] = (tmp_path / "cache").iterdir()
    assert model.name.startswith("spm-") and model.read_bytes() == seg.model


def test_sentencepiece_trains_on_the_normalised_lines() -> None:
    lines = ["東京都に住んでいます。ＡＢＣ", "東京に行きます。１２３", "大阪に行きました。ｘｙｚ"] * 5
    normalised = segmenters.get("spm:vocab=30,type=bpe", training_text=lines, nfkc=True)
    given = segmenters.get("spm:vocab=30,type=bpe", training_text=[unicodedata.normalize("NFKC", line) for line in lines])
    assert normalised.data_hash == given.data_hash and normalised.model == given.model
    assert normalised.data_hash != segmenters.get("spm:vocab=30,type=bpe", training_text=lines).data_hash
