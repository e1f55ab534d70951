"""THULAC, Janome, nagisa, MeCab with IPAdic and JumanDic, Sudachi A/B/C and ChaSen on known
sentences; their signatures, install hints and silence."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import signal
import sys
from pathlib import Path

import pytest

from metaeval import segmenters
from metaeval.errors import MissingDependencyError
from metaeval.segmenters import _deps, chasen_adapter

ZH = "我们在北京大学学习自然语言处理。"
JA = "東京都に住んでいます。"
#: The IPAdic example of MeCab's documentation: すもも/も/もも/も/もも/の/うち.
SUMOMO = "すもももももももものうち"

JA_ADAPTERS = ("janome", "nagisa", "mecab-ipadic", "mecab-jumandic", "sudachi-a", "sudachi-b", "sudachi-c", "chasen")
MODULES = {
    "thulac": "thulac",
    "janome": "janome",
    "nagisa": "nagisa",
    "mecab-ipadic": "ipadic",
    "mecab-jumandic": "jumandic",
    "sudachi-a": "sudachipy",
    "sudachi-b": "sudachipy",
    "sudachi-c": "sudachipy",
}


def need(name: str) -> None:
    if name == "chasen":
        if chasen_adapter.binary() is None:
            pytest.skip("the ChaSen program is not installed (apt-get install chasen)")
    elif importlib.util.find_spec(MODULES[name]) is None:
        pytest.skip(f"{MODULES[name]} is not installed (pip install 'metaeval[all]')")


# --- known sentences ------------------------------------------------------------------


def test_thulac_words() -> None:
    need("thulac")
    seg = segmenters.get("thulac")
    # 北京大学 is one organisation name; 自然语言处理 is three words in THULAC's model.
    assert seg(ZH) == ["我们", "在", "北京大学", "学习", "自然", "语言", "处理", "。"]
    # THULAC README: 我爱北京天安门 -> 我 爱 北京 天安门.
    assert seg("我爱北京天安门") == ["我", "爱", "北京", "天安门"]
    assert seg("我用 iPhone 15拍照。") == ["我", "用", "iPhone", "15", "拍照", "。"]
    assert seg("") == [] and seg("  ") == []


# IPA-style units (IPAdic, Janome's IPAdic, ChaSen's NAIST-jdic, UniDic-like Sudachi A, nagisa):
# 東京/都, and the verb 住ん + the particle で + the auxiliaries い/ます.
IPA_UNITS = ["東京", "都", "に", "住ん", "で", "い", "ます", "。"]


@pytest.mark.parametrize(
    "name, expected",
    [
        ("janome", IPA_UNITS),
        ("nagisa", IPA_UNITS),
        ("mecab-ipadic", IPA_UNITS),
        ("chasen", IPA_UNITS),
        ("sudachi-a", IPA_UNITS),
        # JUMAN keeps the te-form with its verb: 住んで.
        ("mecab-jumandic", ["東京", "都", "に", "住んで", "い", "ます", "。"]),
        # Sudachi B and C keep the place name 東京都 whole.
        ("sudachi-b", ["東京都", "に", "住ん", "で", "い", "ます", "。"]),
        ("sudachi-c", ["東京都", "に", "住ん", "で", "い", "ます", "。"]),
    ],
)
def test_japanese_words_of_a_known_sentence(name: str, expected: list[str]) -> None:
    need(name)
    assert segmenters.get(name)(JA) == expected


@pytest.mark.parametrize("name", ["janome", "mecab-ipadic", "chasen"])
def test_ipadic_example_of_the_mecab_documentation(name: str) -> None:
    need(name)
    assert segmenters.get(name)(SUMOMO) == ["すもも", "も", "もも", "も", "もも", "の", "うち"]


def test_sudachi_modes_follow_its_documentation() -> None:
    # SudachiPy README: 国家公務員 is 国家/公務/員 in mode A, 国家/公務員 in B, 国家公務員 in C.
    need("sudachi-a")
    assert segmenters.get("sudachi-a")("国家公務員") == ["国家", "公務", "員"]
    assert segmenters.get("sudachi-b")("国家公務員") == ["国家", "公務員"]
    assert segmenters.get("sudachi-c")("国家公務員") == ["国家公務員"]
    assert segmenters.get("sudachi")("国家公務員") == ["国家公務員"]


def test_nagisa_readme_example() -> None:
    need("nagisa")
    # nagisa README: Pythonで簡単に使えるツールです -> Python/で/簡単/に/使える/ツール/です.
    assert segmenters.get("nagisa")("Pythonで簡単に使えるツールです") == ["Python", "で", "簡単", "に", "使える", "ツール", "です"]
    # nagisa turns spaces into U+3000; they are whitespace and never tokens.
    assert segmenters.get("nagisa")(" 東京 ") == ["東京"]


@pytest.mark.parametrize("name", JA_ADAPTERS)
def test_japanese_tokens_cover_the_references(name: str, ja_refs: list[str]) -> None:
    need(name)
    lines = ja_refs[:40]
    for line, tokens in zip(lines, segmenters.get(name).segment_many(lines)):
        assert "".join(tokens) == "".join(line.split())
        assert all(tok and not any(ch.isspace() for ch in tok) for tok in tokens)


def test_thulac_tokens_cover_the_references(zh_refs: list[str]) -> None:
    need("thulac")
    lines = zh_refs[:40]
    for line, tokens in zip(lines, segmenters.get("thulac").segment_many(lines)):
        assert "".join(tokens) == "".join(line.split())


# --- signatures -----------------------------------------------------------------------


def test_content_hash_follows_the_bytes_not_the_size(tmp_path: Path) -> None:
    a, b = tmp_path / "a.dic", tmp_path / "b.dic"
    a.write_bytes(b"abcd")
    b.write_bytes(b"abce")  # same name length and size, other content
    ha, hb = _deps.content_hash((str(a),)), _deps.content_hash((str(b),))
    assert ha != hb
    # independent oracle: sha256 over name, NUL, size, NUL, bytes
    assert ha == "sha256=" + hashlib.sha256(b"a.dic\x004\x00abcd").hexdigest()[:12]
    assert _deps.content_hash((str(tmp_path / "gone.dic"),)) == "missing:gone.dic"


@pytest.mark.parametrize("name", ["mecab-ipadic", "mecab-jumandic"])
def test_mecab_dictionary_signature_hashes_the_dicdir(name: str) -> None:
    need(name)
    module = MODULES[name]
    dicdir = Path(importlib.import_module(module).DICDIR)
    digest = hashlib.sha256()
    files = sorted(p for p in dicdir.rglob("*") if p.is_file())
    for path in files:
        digest.update(f"{path.name}\0{path.stat().st_size}\0".encode())
        digest.update(path.read_bytes())
    from importlib.metadata import version

    expected = f"{name}|fugashi:{version('fugashi')}|dict:{module}:{version(module)}/{len(files)}files:sha256={digest.hexdigest()[:12]}|norm:none"
    assert segmenters.get(name).signature() == expected


@pytest.mark.parametrize("name", ["thulac", *JA_ADAPTERS])
def test_signature_names_version_and_content_hash(name: str) -> None:
    need(name)
    sig = segmenters.get(name).signature()
    assert sig.startswith(name + "|") and sig.endswith("|norm:none")
    assert "sha256=" in sig and "missing" not in sig
    row = {r.name: r.description for r in segmenters.info()}[name]
    assert row and row in sig
    assert re.match(r"[\w-]+:\d", row), row  # starts with the package and its version


def test_sudachi_modes_differ_only_in_mode() -> None:
    need("sudachi-a")
    a, c = segmenters.get("sudachi-a").signature(), segmenters.get("sudachi-c").signature()
    assert a.replace("sudachi-a|mode:A", "sudachi-c|mode:C") == c


# --- missing packages -----------------------------------------------------------------


@pytest.mark.parametrize(
    "name, module, pip",
    [
        ("thulac", "thulac", "pip install thulac"),
        ("janome", "janome.tokenizer", "pip install janome"),
        ("nagisa", "nagisa", "pip install nagisa"),
        ("mecab-ipadic", "ipadic", "pip install fugashi ipadic"),
        ("mecab-jumandic", "jumandic", "pip install fugashi jumandic"),
        ("sudachi-b", "sudachipy", "pip install sudachipy sudachidict-core"),
        ("spm", "sentencepiece", "pip install sentencepiece"),
    ],
)
def test_missing_package_gives_the_pip_command(monkeypatch: pytest.MonkeyPatch, name: str, module: str, pip: str) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # makes `import module` fail
    spec = "spm:vocab=10" if name == "spm" else name
    with pytest.raises(MissingDependencyError, match=f"segmenter '{name}' needs .*: {pip}$"):
        segmenters.get(spec, training_text=["abc"])


def test_missing_chasen_gives_the_apt_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda *_: None)
    with pytest.raises(MissingDependencyError, match="install it with: apt-get install chasen$"):
        segmenters.get("chasen")
    assert "apt-get install chasen" in {r.name: r.description for r in segmenters.info()}["chasen"]


# --- ChaSen's process -----------------------------------------------------------------


def test_chasen_survives_its_process_dying() -> None:
    need("chasen")
    seg = segmenters.get("chasen")
    assert seg(JA) == IPA_UNITS
    pid = seg._process.process.pid
    os.kill(pid, signal.SIGKILL)
    assert seg(JA) == IPA_UNITS  # a new process answers
    assert seg._process.process.pid != pid
    seg.close()
    assert seg(SUMOMO)[0] == "すもも"


def test_chasen_long_text_and_odd_characters() -> None:
    need("chasen")
    seg = segmenters.get("chasen")
    long = JA * 1500  # ChaSen itself cuts input lines at about 8 KB
    assert seg(long) == IPA_UNITS * 1500
    # a token 'EOS' cannot end the answer early; line breaks are spaces
    tokens = seg("EOS\nです")
    assert tokens[:3] == ["E", "O", "S"] and "".join(tokens) == "EOSです"
    assert seg("") == [] and seg("𠮷野家") == ["𠮷", "野", "家"]


def test_chasen_pieces_cut_after_sentence_ends() -> None:
    text = "あ。" * 30
    cut = chasen_adapter.pieces(text, limit=7)
    assert "".join(cut) == text and all(len(p) <= 7 and p.endswith("。") for p in cut)
    assert chasen_adapter.pieces("abcdefghij", limit=4) == ["abcd", "efgh", "ij"]
