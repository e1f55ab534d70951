"""A segmentation cache keyed by (segmenter signature, text).

In memory, each distinct text is segmented once per signature. With a ``directory``, the
tokens also persist across runs: one JSON file per signature, named by the SHA-256 of the
signature and holding the signature itself. Files are written to a temporary file in the
same folder and moved into place with ``os.replace``, so a reader never sees a partial
file. Processes sharing the folder merge what is on disk before each write; when two write
at once, the last one wins and the other's new entries are simply segmented again later.
A file that cannot be read or belongs to another signature is ignored and rewritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Iterable


def cache_file_name(signature: str) -> str:
    """``seg-<first 24 hex of sha256(signature)>.json``."""
    return f"seg-{hashlib.sha256(signature.encode('utf-8')).hexdigest()[:24]}.json"


class SegmentationCache:
    """Tokens per (segmenter signature, text); optionally persisted in ``directory``.

    Example::

        cache = SegmentationCache("~/.cache/metaeval")
        tokens = cache.segment(segmenters.get("jieba"), texts)
    """

    def __init__(self, directory: "str | os.PathLike[str] | None" = None) -> None:
        self.directory = Path(directory).expanduser() if directory is not None else None
        self._tokens: dict[str, dict[str, tuple[str, ...]]] = {}
        self._loaded: set[str] = set()
        #: Number of texts handed to a segmenter (cache misses) since construction.
        self.misses = 0

    def _entries(self, signature: str) -> dict[str, tuple[str, ...]]:
        entries = self._tokens.setdefault(signature, {})
        if self.directory is not None and signature not in self._loaded:
            self._loaded.add(signature)
            for text, tokens in self._read(signature).items():
                entries.setdefault(text, tokens)
        return entries

    def _path(self, signature: str) -> Path:
        if self.directory is None:
            raise ValueError("this SegmentationCache has no directory")
        return self.directory / cache_file_name(signature)

    def _read(self, signature: str) -> dict[str, tuple[str, ...]]:
        try:
            with open(self._path(signature), encoding="utf-8") as handle:
                data: Any = json.load(handle)
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("signature") != signature or not isinstance(data.get("tokens"), dict):
            return {}
        return {
            text: tuple(tokens)
            for text, tokens in data["tokens"].items()
            if isinstance(tokens, list) and all(isinstance(t, str) for t in tokens)
        }

    def _write(self, signature: str) -> None:
        path = self._path(signature)
        path.parent.mkdir(parents=True, exist_ok=True)
        entries = self._tokens[signature]
        for text, tokens in self._read(signature).items():
            entries.setdefault(text, tokens)
        payload = {"signature": signature, "tokens": {text: list(tokens) for text, tokens in entries.items()}}
        fd, tmp = tempfile.mkstemp(prefix=".seg-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(payload, handle, ensure_ascii=False)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def segment(self, segmenter: Any, texts: Iterable[str]) -> list[list[str]]:
        """Tokens of each text under ``segmenter``; texts not cached yet are segmented once,
        in one ``segment_many`` call, and written to the directory if there is one."""
        texts = list(texts)
        signature = segmenter.signature()
        entries = self._entries(signature)
        todo = [text for text in dict.fromkeys(texts) if text not in entries]
        if todo:
            self.misses += len(todo)
            for text, tokens in zip(todo, segmenter.segment_many(todo)):
                entries[text] = tuple(tokens)
            if self.directory is not None:
                self._write(signature)
        return [list(entries[text]) for text in texts]

    def __len__(self) -> int:
        return sum(len(entries) for entries in self._tokens.values())
