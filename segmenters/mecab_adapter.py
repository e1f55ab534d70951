"""``mecab``: MeCab through fugashi with the unidic-lite dictionary, passed explicitly.

The tagger is a ``fugashi.GenericTagger`` built with ``-d <unidic_lite.DICDIR>`` and
unidic-lite's own (empty) ``mecabrc``, so neither a user's mecabrc nor an installed full
``unidic`` package is ever used by accident. Tokens are the node surface forms.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from metaeval.errors import MissingDependencyError
from metaeval.segmenters._deps import files_fingerprint, module_dir, require, version

#: The files of the dictionary folder MeCab reads; the signature hashes their content.
DICTIONARY_FILES = ("sys.dic", "matrix.bin", "char.bin", "unk.dic", "dicrc", "mecabrc")
from metaeval.segmenters.base import Segmenter
from metaeval.segmenters.registry import register


def dictionary_dir() -> Path | None:
    """unidic-lite's MeCab dictionary folder, found without importing it."""
    folder = module_dir("unidic_lite")
    return folder / "dicdir" if folder is not None else None


def generic_tagger(fugashi: Any, dicdir: Path, segmenter: str, pip: str) -> Any:
    """``fugashi.GenericTagger`` over exactly ``dicdir`` and its own ``mecabrc``.

    Raises MissingDependencyError with the reinstall command when MeCab cannot start.
    """
    args = f'-d "{dicdir}" -r "{dicdir / "mecabrc"}"'
    try:
        return fugashi.GenericTagger(args)
    except RuntimeError as exc:
        lines = [line for line in str(exc).splitlines() if line.strip() and not line.startswith("-")]
        reason = lines[-1] if lines else type(exc).__name__
        raise MissingDependencyError(
            f"segmenter {segmenter!r}: MeCab failed to start with {args}: {reason}; "
            f"reinstall with: pip install --force-reinstall {pip}"
        ) from None


@register("mecab")
class MecabSegmenter(Segmenter):
    """MeCab (fugashi) with unidic-lite: UniDic short units, as ``fugashi``'s surface forms."""

    name = "mecab"

    def __init__(self, **norm: Any) -> None:
        super().__init__(**norm)
        fugashi = require("fugashi", self.name, "fugashi")
        unidic_lite = require("unidic_lite", self.name, "unidic-lite")
        self._tagger = generic_tagger(fugashi, Path(unidic_lite.DICDIR), self.name, "fugashi unidic-lite")
        self.dictionary_info = list(self._tagger.dictionary_info)

    def _segment(self, text: str) -> list[str]:
        return [node.surface for node in self._tagger(text)]

    @classmethod
    def describe(cls) -> str:
        dicdir = dictionary_dir()
        dic = files_fingerprint("dicdir", tuple(str(dicdir / f) for f in DICTIONARY_FILES)) if dicdir else "missing"
        return f"fugashi:{version('fugashi')}|dict:unidic-lite:{version('unidic-lite')}/{dic}"
