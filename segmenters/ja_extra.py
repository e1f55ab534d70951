"""Japanese word segmenters of the ``ja-extra`` extra, each with its own notion of a word.

- ``janome``: Janome (pure Python) with its bundled IPAdic (mecab-ipadic 2.7.0).
- ``nagisa``: nagisa's BiLSTM word segmenter (Ikeda 2018) with its bundled model; it turns
  spaces into ideographic spaces, which are dropped like every whitespace token.
- ``mecab-ipadic``, ``mecab-jumandic``: MeCab through fugashi with the ``ipadic`` (IPA
  corpus words) and ``jumandic`` (JUMAN words, longer: 住んで is one word) PyPI dictionaries,
  passed explicitly with their own ``mecabrc``.
- ``sudachi-a``, ``sudachi-b``, ``sudachi-c``: SudachiPy with sudachidict-core in split mode
  A (short units, close to UniDic), B (middle) or C (named entities and compounds whole);
  ``sudachi`` is mode C under its earlier name.

Each signature names the package version and the dictionary or model by a hash of its files.
"""

from __future__ import annotations

import bisect
import itertools
import threading
import unicodedata
from pathlib import Path
from typing import Any, ClassVar

from metaeval.segmenters._deps import dictionary_signature, files_under, module_dir, require, version
from metaeval.segmenters.base import Segmenter
from metaeval.segmenters.mecab_adapter import generic_tagger
from metaeval.segmenters.registry import register

JANOME_PIP = "janome"
NAGISA_PIP = "nagisa"
SUDACHI_PIP = "sudachipy sudachidict-core"

_LOCK = threading.Lock()
_SHARED: dict[str, Any] = {}


def _shared(key: str, build: Any) -> Any:
    """One instance per process of an expensive, read-only analyser."""
    with _LOCK:
        if key not in _SHARED:
            _SHARED[key] = build()
        return _SHARED[key]


# --- Janome ---------------------------------------------------------------------------


@register("janome")
class JanomeSegmenter(Segmenter):
    """Janome's ``Tokenizer(wakati=True)`` with its bundled system dictionary (IPAdic)."""

    name = "janome"

    def __init__(self, **norm: Any) -> None:
        super().__init__(**norm)
        tokenizer = require("janome.tokenizer", self.name, JANOME_PIP)
        self._tokenizer = _shared("janome", lambda: tokenizer.Tokenizer(wakati=True))

    def _segment(self, text: str) -> list[str]:
        return list(self._tokenizer.tokenize(text, wakati=True))

    @classmethod
    def describe(cls) -> str:
        folder = module_dir("janome")
        files = files_under(folder / "sysdic" if folder else None, "*.py")
        return f"janome:{version('Janome')}|dict:{dictionary_signature('sysdic', None, files)}"


# --- nagisa ---------------------------------------------------------------------------


def original_surfaces(text: str, words: list[str]) -> list[str]:
    """nagisa's ``words`` as spans of the original ``text``.

    nagisa segments ``NFKC(text)`` and returns normalised words (１ becomes 1, （ becomes ( ).
    When NFKC works character by character on ``text`` (no composition across characters),
    each word is mapped back to the original characters it came from; a character whose
    NFKC expansion a word boundary cuts goes with the later word. Otherwise (decomposed
    kana with combining marks) the normalised words are returned.
    """
    pieces = [unicodedata.normalize("NFKC", ch) for ch in text]
    if "".join(pieces) != unicodedata.normalize("NFKC", text):
        return words
    ends = list(itertools.accumulate(len(piece) for piece in pieces))
    out, start, position = [], 0, 0
    for word in words:
        position += len(word)
        stop = bisect.bisect_right(ends, position)
        out.append(text[start:stop])
        start = stop
    out.append(text[start:])  # what nagisa stripped from the end (whitespace)
    return out


@register("nagisa")
class NagisaSegmenter(Segmenter):
    """nagisa's ``wakati`` with its bundled model ``nagisa_v001``."""

    name = "nagisa"

    def __init__(self, **norm: Any) -> None:
        super().__init__(**norm)
        self._nagisa = require("nagisa", self.name, NAGISA_PIP)

    def _segment(self, text: str) -> list[str]:
        return original_surfaces(text, self._nagisa.wakati(text)) if text.strip() else []

    @classmethod
    def describe(cls) -> str:
        folder = module_dir("nagisa")
        files = files_under(folder / "data" if folder else None, "nagisa_v001.*")
        return f"nagisa:{version('nagisa')}|dynet:{version('dyNET38')}|model:{dictionary_signature('nagisa_v001', None, files)}"


# --- MeCab with PyPI dictionaries -----------------------------------------------------


class _FugashiDictionarySegmenter(Segmenter):
    """MeCab (fugashi ``GenericTagger``) over one PyPI dictionary package's ``dicdir``."""

    #: Importable module and distribution of the dictionary package.
    dictionary: ClassVar[str]

    def __init__(self, **norm: Any) -> None:
        super().__init__(**norm)
        pip = f"fugashi {self.dictionary}"
        fugashi = require("fugashi", self.name, pip)
        package = require(self.dictionary, self.name, pip)
        dicdir = Path(package.DICDIR)
        self._tagger = _shared(self.name, lambda: generic_tagger(fugashi, dicdir, self.name, pip))

    def _segment(self, text: str) -> list[str]:
        return [node.surface for node in self._tagger(text)]

    @classmethod
    def describe(cls) -> str:
        folder = module_dir(cls.dictionary)
        files = files_under(folder / "dicdir" if folder else None)
        return f"fugashi:{version('fugashi')}|dict:{dictionary_signature(cls.dictionary, cls.dictionary, files)}"


@register("mecab-ipadic")
class MecabIpadicSegmenter(_FugashiDictionarySegmenter):
    """MeCab with IPAdic (the ``ipadic`` package): IPA corpus word units."""

    name = "mecab-ipadic"
    dictionary = "ipadic"


@register("mecab-jumandic")
class MecabJumandicSegmenter(_FugashiDictionarySegmenter):
    """MeCab with JumanDic (the ``jumandic`` package): JUMAN word units."""

    name = "mecab-jumandic"
    dictionary = "jumandic"


# --- Sudachi --------------------------------------------------------------------------


def _sudachi_files() -> tuple[str, ...]:
    core = module_dir("sudachidict_core")
    sudachipy = module_dir("sudachipy")
    dic = files_under(core / "resources" if core else None, "*.dic")
    resources = files_under(sudachipy / "resources" if sudachipy else None)
    return dic + resources


class _SudachiSegmenter(Segmenter):
    """SudachiPy with sudachidict-core in one split mode."""

    mode: ClassVar[str]

    def __init__(self, **norm: Any) -> None:
        super().__init__(**norm)
        sudachipy = require("sudachipy", self.name, SUDACHI_PIP)
        require("sudachidict_core", self.name, SUDACHI_PIP)
        dictionary = _shared("sudachi", lambda: sudachipy.Dictionary(dict="core"))
        self._tokenizer = dictionary.tokenizer(mode=getattr(sudachipy.SplitMode, self.mode))

    def _segment(self, text: str) -> list[str]:
        return [m.surface() for m in self._tokenizer.tokenize(text)]

    def options_signature(self) -> str:
        return f"mode:{self.mode}"

    @classmethod
    def describe(cls) -> str:
        dic = dictionary_signature("sudachidict-core", "SudachiDict-core", _sudachi_files())
        return f"sudachipy:{version('SudachiPy')}|dict:{dic}"


@register("sudachi-a")
class SudachiASegmenter(_SudachiSegmenter):
    """Sudachi split mode A: the shortest units."""

    name = "sudachi-a"
    mode = "A"


@register("sudachi-b")
class SudachiBSegmenter(_SudachiSegmenter):
    """Sudachi split mode B: middle units."""

    name = "sudachi-b"
    mode = "B"


@register("sudachi-c")
class SudachiCSegmenter(_SudachiSegmenter):
    """Sudachi split mode C: the longest units (named entities and compounds whole)."""

    name = "sudachi-c"
    mode = "C"


@register("sudachi")
class SudachiSegmenter(SudachiCSegmenter):
    """``sudachi-c`` under its earlier name."""

    name = "sudachi"
