"""A segmentation cache keyed by (segmenter signature, text).

In memory, each distinct text is segmented once per signature. With a ``directory``, the
tokens also persist across runs: one JSON file per signature, named by the SHA-256 of the
signature and holding the signature itself. Files are written to a temporary file in the
same folder and moved into place with ``os.replace``, so a reader never sees a partial
file. A process merges what is on disk before it writes, unless the file is the one it last
read or wrote itself (same device, inode, size and modification time); when two write at
once, the last one wins and the other's new entries are simply segmented again later. Each
file is a JSON object whose tokens are written last, as canonical JSON (sorted keys, no
spaces), and carries the SHA-256 of its signature and tokens, checked on every read on the
file's own bytes (files of other layouts by encoding the tokens again): a file
that was edited, truncated, belongs to another signature or holds tokens a segmenter cannot
return (empty, or containing whitespace) is not trusted; its texts are segmented again and
the file is rewritten. A cache entry that is not a regular file (a folder, a FIFO) and a
folder that cannot be written are errors naming the path and the cause.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Iterable, Sequence

from metaeval.paths import file_system_error, input_problem, read_input_bytes
from metaeval.errors import FileSystemError


def _digest(signature: str, tokens: Any) -> str:
    """SHA-256 of the signature and the tokens, as canonical JSON."""
    return _digest_of_encoded(signature, _canonical(tokens))


def _canonical(tokens: Any) -> str:
    """The tokens as canonical JSON (sorted keys, no spaces)."""
    return json.dumps(tokens, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _digest_of_encoded(signature: str, encoded: str) -> str:
    """:func:`_digest` from the tokens' canonical JSON ``encoded``: the canonical JSON of
    ``[signature, tokens]`` is ``[``, the signature, ``,``, the tokens and ``]``."""
    text = f"[{json.dumps(signature, ensure_ascii=False)},{encoded}]"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _prefix(signature: str, digest: str) -> str:
    """What a cache file holds before its tokens: they are written in canonical JSON right after
    it, and a closing brace ends the file, so a reader hashes the tokens as they lie in the
    file instead of encoding them again."""
    return f'{{"signature":{json.dumps(signature, ensure_ascii=False)},"sha256":{json.dumps(digest)},"tokens":'


def _valid_tokens(entry: Any) -> bool:
    """Whether a cached entry is what a segmenter may return: non-empty tokens without whitespace.

    Joined by spaces and split again at whitespace, such tokens come back unchanged; an empty
    token or one holding whitespace (``str.isspace``, as ``str.split`` uses) does not."""
    if not isinstance(entry, list) or not all(type(t) is str for t in entry):
        return False
    return " ".join(entry).split() == entry


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
        #: Cache files found corrupted or edited (their texts were segmented again).
        self.rejected: list[str] = []
        self._tokens: dict[str, dict[str, tuple[str, ...]]] = {}
        #: The file of each signature as this process last read or wrote it (see :meth:`_stamp`);
        #: a signature is here once its file has been read.
        self._seen: dict[str, tuple[int, ...] | None] = {}
        #: Number of texts handed to a segmenter (cache misses) since construction.
        self.misses = 0

    def _entries(self, signature: str) -> dict[str, tuple[str, ...]]:
        entries = self._tokens.setdefault(signature, {})
        if self.directory is not None and signature not in self._seen:
            for text, tokens in self._read(signature).items():
                entries.setdefault(text, tokens)
        return entries

    def _path(self, signature: str) -> Path:
        if self.directory is None:
            raise ValueError("this SegmentationCache has no directory")
        return self.directory / cache_file_name(signature)

    @staticmethod
    def _stamp(path: Path) -> tuple[int, ...] | None:
        """Device, inode, size and modification time of ``path`` (None if it is absent). Every
        write replaces the file by another, so a write by another process changes the stamp."""
        try:
            st = path.stat()
        except OSError:
            return None
        return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)

    def _read(self, signature: str) -> dict[str, tuple[str, ...]]:
        path = self._path(signature)
        self._seen[signature] = self._stamp(path)
        problem = input_problem(path)
        if problem == "no such file":
            return {}
        if problem is not None:
            raise FileSystemError(f"{path}: segmentation cache entry {problem}")
        try:
            text = read_input_bytes(path).decode("utf-8")
            data: Any = json.loads(text)
        except (ValueError, UnicodeDecodeError):
            self.rejected.append(str(path))
            return {}
        tokens = data.get("tokens") if isinstance(data, dict) else None
        if (
            not isinstance(tokens, dict)
            or data.get("signature") != signature
            or data.get("sha256") != self._file_digest(signature, data.get("sha256"), text, tokens)
            or not all(_valid_tokens(entry) for entry in tokens.values())
        ):
            self.rejected.append(str(path))
            return {}
        return {text: tuple(entry) for text, entry in tokens.items()}

    @staticmethod
    def _file_digest(signature: str, stated: Any, text: str, tokens: dict) -> str:
        """The digest of ``tokens`` read from a file's ``text``: from the file's own bytes when it
        is laid out as :meth:`_write` lays it out, else by encoding them again (other layouts)."""
        prefix = _prefix(signature, stated) if isinstance(stated, str) else None
        if prefix is not None and text.startswith(prefix) and text.endswith("}"):
            return _digest_of_encoded(signature, text[len(prefix):-1])
        return _digest(signature, tokens)

    def _write(self, signature: str) -> None:
        path = self._path(signature)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise file_system_error(exc, path.parent, "create segmentation cache folder") from None
        entries = self._tokens[signature]
        if self._stamp(path) != self._seen.get(signature):
            # Changed since this process read or wrote it: merge what another process added.
            for text, tokens in self._read(signature).items():
                entries.setdefault(text, tokens)
        # The tokens are encoded once, canonically: the digest and the file share that text.
        encoded = _canonical({text: list(entry) for text, entry in entries.items()})
        digest = _digest_of_encoded(signature, encoded)
        tmp = None
        try:
            fd, tmp = tempfile.mkstemp(prefix=".seg-", suffix=".tmp", dir=path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(_prefix(signature, digest))
                handle.write(encoded)
                handle.write("}")
            os.replace(tmp, path)
            self._seen[signature] = self._stamp(path)
        except OSError as exc:
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)
            raise file_system_error(exc, path, "write segmentation cache") from None
        except BaseException:
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)
            raise

    def lookup(self, segmenter: Any, texts: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """The cached tokens of those of ``texts`` the cache holds under ``segmenter``'s signature."""
        entries = self._entries(segmenter.signature())
        return {text: entries[text] for text in texts if text in entries}

    def store(self, segmenter: Any, tokens: dict[str, Sequence[str]]) -> None:
        """Add tokens segmented elsewhere (e.g. in worker processes); written to the directory."""
        signature = segmenter.signature()
        entries = self._entries(signature)
        new = {text: tuple(toks) for text, toks in tokens.items() if text not in entries}
        if not new:
            return
        self.misses += len(new)
        entries.update(new)
        if self.directory is not None:
            self._write(signature)

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
