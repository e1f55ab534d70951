"""``jieba`` and ``jieba-nohmm``: jieba's default dictionary, with and without its HMM for
unknown words (jieba 0.42 ``Tokenizer.cut(text, HMM=...)``).

The segmenters use a private ``jieba.Tokenizer`` whose prefix dictionary is built in memory
from the bundled ``dict.txt`` with ``Tokenizer.gen_pfdict``, and marked initialised, so
jieba's own initialisation, which writes ``jieba.cache`` to the temp folder and logs to
stderr, never runs. The dictionary is read once per process and shared, and let go by
``release()`` (a worker that has segmented its texts).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from metaeval.segmenters._deps import files_fingerprint, fingerprint, module_dir, require, require_installed, version

#: jieba's HMM probabilities for unknown words (``jieba/finalseg``), hashed for the signature.
HMM_FILES = ("prob_start.p", "prob_trans.p", "prob_emit.p", "prob_start.py", "prob_trans.py", "prob_emit.py")
from metaeval.segmenters.base import Segmenter
from metaeval.segmenters.registry import register

_LOCK = threading.Lock()
_PREFIX_DICT: tuple[dict[str, int], int] | None = None


def dictionary_path() -> Path | None:
    """jieba's bundled ``dict.txt``, found without importing jieba."""
    folder = module_dir("jieba")
    return folder / "dict.txt" if folder is not None else None


def _prefix_dict(jieba: Any) -> tuple[dict[str, int], int]:
    global _PREFIX_DICT
    with _LOCK:
        if _PREFIX_DICT is None:
            path = Path(jieba.__file__).parent / "dict.txt"
            _PREFIX_DICT = jieba.Tokenizer.gen_pfdict(open(path, "rb"))  # gen_pfdict closes the file
        return _PREFIX_DICT


def release_dictionary() -> None:
    """Drop the process-wide prefix dictionary (about 67 MB; freed once no tokenizer refers to it)."""
    global _PREFIX_DICT
    with _LOCK:
        _PREFIX_DICT = None


class _JiebaSegmenter(Segmenter):
    hmm: bool

    def __init__(self, **norm: Any) -> None:
        super().__init__(**norm)
        require_installed("jieba", self.name, "jieba")
        self._tokenizer: Any = None

    def _load(self) -> Any:
        """The tokenizer, built on first use: naming the segmenter (signature, a cached run)
        does not read the dictionary."""
        if self._tokenizer is None:
            jieba = require("jieba", self.name, "jieba")
            freq, total = _prefix_dict(jieba)
            tokenizer = jieba.Tokenizer()
            # Read-only after construction, so segmenters may share the dictionary.
            tokenizer.FREQ, tokenizer.total = freq, total
            tokenizer.initialized = True
            self._tokenizer = tokenizer
        return self._tokenizer

    def _segment(self, text: str) -> list[str]:
        return list(self._load().cut(text, HMM=self.hmm))

    def release(self) -> None:
        """Forget the tokenizer here and the shared dictionary process-wide."""
        self._tokenizer = None
        release_dictionary()

    def options_signature(self) -> str:
        return "hmm:yes" if self.hmm else "hmm:no"

    @classmethod
    def describe(cls) -> str:
        path = dictionary_path()
        text = f"jieba:{version('jieba')}|dict:{fingerprint(str(path)) if path else 'missing'}"
        if cls.hmm and path is not None:
            files = tuple(str(p) for p in (path.parent / "finalseg" / f for f in HMM_FILES) if p.is_file())
            text += f"|hmm-model:{files_fingerprint('finalseg', files)}"
        return text


@register("jieba")
class JiebaSegmenter(_JiebaSegmenter):
    """jieba, default dictionary, HMM on (jieba's default ``cut``)."""

    name = "jieba"
    hmm = True


@register("jieba-nohmm")
class JiebaNoHmmSegmenter(_JiebaSegmenter):
    """jieba, default dictionary, HMM off (dictionary words and single characters only)."""

    name = "jieba-nohmm"
    hmm = False
