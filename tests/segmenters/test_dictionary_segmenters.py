"""jieba, jieba-nohmm, pkuseg and mecab on documented examples; their signatures."""

from __future__ import annotations

import hashlib

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metaeval import segmenters
from metaeval.segmenters import jieba_adapter as jieba_adapter


# --- jieba ----------------------------------------------------------------------------


def test_jieba_readme_examples() -> None:
    # jieba 0.42 README, "accurate mode": 我/ 来到/ 北京/ 清华大学; with HMM the new word 杭研
    # is found: 他, 来到, 了, 网易, 杭研, 大厦.
    seg = segmenters.get("jieba")
    assert seg("我来到北京清华大学") == ["我", "来到", "北京", "清华大学"]
    assert seg("他来到了网易杭研大厦") == ["他", "来到", "了", "网易", "杭研", "大厦"]


def test_jieba_without_hmm_leaves_unknown_words_as_characters() -> None:
    # 杭研 is not in dict.txt, so without the HMM it stays two characters.
    assert segmenters.get("jieba-nohmm")("他来到了网易杭研大厦") == ["他", "来到", "了", "网易", "杭", "研", "大厦"]


def test_jieba_drops_whitespace_tokens() -> None:
    # jieba itself returns ' ' tokens for the spaces.
    assert segmenters.get("jieba")("我用 iPhone  15 拍照。") == ["我用", "iPhone", "15", "拍照", "。"]


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("我来到北京清华大学他了网易杭研拍照。，abc 15")), max_size=40))
def test_jieba_tokens_cover_the_text(text: str) -> None:
    for name in ("jieba", "jieba-nohmm"):
        assert "".join(segmenters.get(name)(text)) == "".join(text.split())


def test_jieba_builds_its_dictionary_silently_and_writes_no_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    real_tmp = Path(tempfile.gettempdir())
    before = {p.name for p in real_tmp.glob("jieba*")}
    redirected = tmp_path / "tmp"
    redirected.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(redirected))
    monkeypatch.setattr(jieba_adapter, "_PREFIX_DICT", None)  # force a fresh build
    seg = segmenters.get("jieba")
    assert seg("我来到北京清华大学") == ["我", "来到", "北京", "清华大学"]
    assert jieba_adapter._PREFIX_DICT is not None
    assert list(redirected.iterdir()) == []
    assert {p.name for p in real_tmp.glob("jieba*")} == before
    assert capfd.readouterr() == ("", "")


def test_jieba_lets_go_of_its_dictionary_when_released_and_reads_it_again() -> None:
    seg = segmenters.get("jieba")
    before = seg("我来到北京清华大学")
    shared = jieba_adapter._PREFIX_DICT
    assert shared is not None and seg._tokenizer.FREQ is shared[0]
    seg.release()
    assert seg._tokenizer is None and jieba_adapter._PREFIX_DICT is None
    assert seg("我来到北京清华大学") == before == ["我", "来到", "北京", "清华大学"]
    assert jieba_adapter._PREFIX_DICT is not None and jieba_adapter._PREFIX_DICT is not shared

def test_jieba_signature_names_version_dictionary_and_hmm() -> None:
    sig = segmenters.get("jieba").signature()
    # dict.txt of jieba 0.42.1 has 5071852 bytes.
    assert sig.startswith("jieba|hmm:yes|jieba:0.42.1|dict:dict.txt:5071852B:sha256=")
    assert sig.endswith("|norm:none")
    assert segmenters.get("jieba-nohmm").signature().startswith("jieba-nohmm|hmm:no|")


# --- pkuseg ---------------------------------------------------------------------------


def test_pkuseg_readme_example_and_silence(capfd: pytest.CaptureFixture[str]) -> None:
    # pkuseg README: seg.cut('我爱北京天安门') -> ['我', '爱', '北京', '天安门'].
    seg = segmenters.get("pkuseg")
    assert seg("我爱北京天安门") == ["我", "爱", "北京", "天安门"]
    assert seg("  ") == []
    assert capfd.readouterr() == ("", "")


def test_pkuseg_model_is_loaded_once_per_process() -> None:
    from metaeval.segmenters import pkuseg_adapter

    a, b = segmenters.get("pkuseg"), segmenters.get("pkuseg")
    a("北京"), b("北京")
    assert a._model is b._model is pkuseg_adapter.model()


def test_a_used_pkuseg_segmenter_pickles_without_its_model() -> None:
    """The model is not pickled with a segmenter (its feature index holds this process's string
    hashes): the copy loads its process's own on first use, and segments alike."""
    import pickle

    seg = segmenters.get("pkuseg")
    tokens = seg("我爱北京天安门")
    assert seg._model is not None
    copy = pickle.loads(pickle.dumps(seg))
    assert copy._model is None and seg._model is not None
    assert copy("我爱北京天安门") == tokens and copy.signature() == seg.signature()


def test_pkuseg_signature_names_the_default_model() -> None:
    sig = segmenters.get("pkuseg").signature()
    assert sig.startswith("pkuseg|pkuseg:0.0.25|model:default(")
    assert "weights.npz:" in sig and "default.pkl:" in sig


# --- mecab ----------------------------------------------------------------------------


def test_mecab_unidic_short_units() -> None:
    # fugashi README (unidic-lite, -Owakati): '麩 菓子 は 、 麩 を 主材 料 と し た 日本 の 菓子 。'
    seg = segmenters.get("mecab")
    assert seg("麩菓子は、麩を主材料とした日本の菓子。") == "麩 菓子 は 、 麩 を 主材 料 と し た 日本 の 菓子 。".split()
    # Whitespace is never part of a token; UniDic splits the auxiliaries まし/た.
    assert seg("  iPhone 15を買った ") == ["iPhone", "15", "を", "買っ", "た"]


def test_mecab_uses_unidic_lite_explicitly(capfd: pytest.CaptureFixture[str]) -> None:
    import unidic_lite

    seg = segmenters.get("mecab")
    [info] = seg.dictionary_info
    assert Path(info["filename"]) == Path(unidic_lite.DICDIR) / "sys.dic"
    # the dictionary is identified by the content of every file MeCab reads, not by a size
    digest, size = hashlib.sha256(), 0
    for name in ("sys.dic", "matrix.bin", "char.bin", "unk.dic", "dicrc", "mecabrc"):
        data = (Path(unidic_lite.DICDIR) / name).read_bytes()
        digest.update(name.encode() + b"\0" + data + b"\0")
        size += len(data)
    expected = f"dicdir:{size}B:sha256={digest.hexdigest()[:12]}"
    assert seg.signature() == f"mecab|fugashi:1.5.2|dict:unidic-lite:1.0.8/{expected}|norm:none"
    assert capfd.readouterr() == ("", "")


def test_mecab_tokens_cover_japanese_references(ja_refs: list[str]) -> None:
    seg = segmenters.get("mecab")
    for line, tokens in zip(ja_refs, seg.segment_many(ja_refs)):
        assert "".join(tokens) == "".join(line.split())


def test_ja_mecab_is_ipadic_wakati_as_sacrebleu_uses_it():
    pytest.importorskip("MeCab", reason="mecab-python3 is in the all extra (pip install -e '.[all]')")
    seg = segmenters.get("ja-mecab")
    assert seg("今日は晴れです。") == ["今日", "は", "晴れ", "です", "。"]
    assert seg.signature().startswith("ja-mecab|mecab-python3:") and "|dict:ipadic:" in seg.signature()
