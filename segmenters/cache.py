"""A segmentation cache keyed by (segmenter signature, text).

In memory, each distinct text is segmented once per signature, and its tokens are held joined
by single spaces (split again when looked up), so the cache takes about the room of the text
rather than an object per token, and one cache can serve the datasets of a whole study. With a
``directory``, the
tokens also persist across runs, in one append-only file per signature, named by the SHA-256
of the signature (``seg-<24 hex>.jsonl``). Each line of it is a block: the texts one write
added, as a JSON object holding the signature, the SHA-256 of the signature and tokens, and
the tokens of each text joined by single spaces, written last in canonical JSON (sorted keys,
no spaces after separators). A run that segments new texts appends one block of just those
texts in a single ``write`` to a file opened for appending, so the cost of a write grows with
what is new, not with what the file already holds, and two processes appending at once both
keep their blocks.

Every block is checked when its file is read, on the block's own bytes; an entry's tokens are
checked when the entry is looked up. A block that was edited or cut short or belongs to
another signature, and an entry whose tokens no segmenter returns (an empty token, whitespace
inside a token), are not trusted: their texts are segmented again and the next write rewrites
the file without them (to a temporary file in the same folder, moved into place with
``os.replace``). Tokens that joining by spaces would not keep apart (a token holding
whitespace) are kept in memory only. A cache entry that is not a regular file (a folder, a
FIFO) and a folder that cannot be written are errors naming the path and the cause.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence, Union

from metaeval.errors import FileSystemError
from metaeval.paths import file_system_error, input_problem, read_input_bytes, replace_atomically

#: An entry in memory: tokens, or (read from a file, not yet looked up) the tokens joined by spaces.
_Entry = Union[tuple[str, ...], str]

#: What a space-joined token string may not hold: whitespace other than a single space between tokens.
_NOT_JOINABLE = re.compile(r"[^\S ]|  |^ | $")


def _canonical(tokens: dict[str, str]) -> str:
    """A block's tokens (text -> tokens joined by spaces) as canonical JSON."""
    return json.dumps(tokens, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _digest_of_encoded(signature: str, encoded: str) -> str:
    """SHA-256 of the canonical JSON of ``[signature, tokens]``, from the tokens' canonical
    JSON ``encoded``: ``[``, the signature, ``,``, the tokens and ``]``."""
    text = f"[{json.dumps(signature, ensure_ascii=False)},{encoded}]"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _prefix(signature: str, digest: str) -> str:
    """What a block holds before its tokens; a closing brace follows them and ends the line."""
    return f'{{"signature":{json.dumps(signature, ensure_ascii=False)},"sha256":{json.dumps(digest)},"tokens":'


def _block(signature: str, tokens: dict[str, str]) -> str:
    """One line of a cache file: the block of ``tokens`` (text -> tokens joined by spaces)."""
    encoded = _canonical(tokens)
    return f"{_prefix(signature, _digest_of_encoded(signature, encoded))}{encoded}}}\n"


def _joined(tokens: Sequence[str]) -> str | None:
    """``tokens`` joined by single spaces, or None when splitting that at whitespace would not
    give them back (an empty token, or whitespace inside one)."""
    joined = " ".join(tokens)
    if tokens and (not joined or joined.count(" ") != len(tokens) - 1 or _NOT_JOINABLE.search(joined)):
        return None
    return joined


def _split_joined(joined: Any) -> tuple[str, ...] | None:
    """The tokens of a stored entry (tokens joined by single spaces), or None if it is not one:
    what :func:`_joined` can return is exactly what splitting at whitespace and joining by one
    space gives back."""
    if type(joined) is not str:
        return None
    tokens = joined.split()
    return tuple(tokens) if " ".join(tokens) == joined else None


def cache_file_name(signature: str) -> str:
    """``seg-<first 24 hex of sha256(signature)>.jsonl``."""
    return f"seg-{hashlib.sha256(signature.encode('utf-8')).hexdigest()[:24]}.jsonl"


class SegmentationCache:
    """Tokens per (segmenter signature, text); optionally persisted in ``directory``.

    Example::

        cache = SegmentationCache("~/.cache/metaeval")
        tokens = cache.segment(segmenters.get("jieba"), texts)
    """

    def __init__(self, directory: "str | os.PathLike[str] | None" = None) -> None:
        self.directory = Path(directory).expanduser() if directory is not None else None
        #: Cache files holding a block or an entry found corrupted or edited (its texts were segmented again).
        self.rejected: list[str] = []
        self._tokens: dict[str, dict[str, _Entry]] = {}
        #: Signatures whose file has been read.
        self._read_signatures: set[str] = set()
        #: Signatures whose file holds what was not trusted: the next write rewrites it whole.
        self._to_rewrite: set[str] = set()
        #: Number of texts handed to a segmenter (cache misses) since construction.
        self.misses = 0

    def _entries(self, signature: str) -> dict[str, _Entry]:
        entries = self._tokens.setdefault(signature, {})
        if self.directory is not None and signature not in self._read_signatures:
            self._read(signature, entries)
        return entries

    def _path(self, signature: str) -> Path:
        if self.directory is None:
            raise ValueError("this SegmentationCache has no directory")
        return self.directory / cache_file_name(signature)

    def _reject(self, signature: str) -> None:
        path = str(self._path(signature))
        if path not in self.rejected:
            self.rejected.append(path)
        self._to_rewrite.add(signature)

    def _read(self, signature: str, entries: dict[str, _Entry]) -> None:
        """Add every entry of the trusted blocks of ``signature``'s file that ``entries`` lacks."""
        path = self._path(signature)
        self._read_signatures.add(signature)
        problem = input_problem(path)
        if problem == "no such file":
            return
        if problem is not None:
            raise FileSystemError(f"{path}: segmentation cache entry {problem}")
        for line in read_input_bytes(path).split(b"\n"):
            if not line:
                continue
            block = self._trusted_block(signature, line)
            if block is None:
                self._reject(signature)
                continue
            for text, joined in block.items():
                entries.setdefault(text, joined)

    @staticmethod
    def _trusted_block(signature: str, line: bytes) -> dict[str, Any] | None:
        """The entries of one block (text -> joined tokens, checked when looked up), or None if
        it is not a block :func:`_block` wrote for ``signature`` (checked on the line's own bytes)."""
        try:
            text = line.decode("utf-8")
            data = json.loads(text)
        except (ValueError, UnicodeDecodeError):
            return None
        if not isinstance(data, dict) or data.get("signature") != signature or not isinstance(data.get("sha256"), str):
            return None
        prefix = _prefix(signature, data["sha256"])
        if not (text.startswith(prefix) and text.endswith("}")):
            return None
        if _digest_of_encoded(signature, text[len(prefix):-1]) != data["sha256"]:
            return None
        tokens = data.get("tokens")
        return tokens if isinstance(tokens, dict) else None

    def _tokens_of(self, signature: str, entries: dict[str, _Entry], text: str) -> tuple[str, ...] | None:
        """The tokens of ``text`` (None if not cached); an entry held joined is split and checked
        here, and dropped if no segmenter could have returned it."""
        entry = entries.get(text)
        if entry is None or type(entry) is tuple:
            return entry
        split = _split_joined(entry)
        if split is None:
            del entries[text]
            self._reject(signature)
        return split

    def _add(self, signature: str, entries: dict[str, _Entry], new: Mapping[str, tuple[str, ...]]) -> None:
        """Count ``new`` (texts not cached before) as misses, hold them, and write them to the
        directory if there is one."""
        self.misses += len(new)
        joined = self._hold(entries, new)
        if self.directory is not None:
            self._persist(signature, joined)

    @staticmethod
    def _hold(entries: dict[str, _Entry], new: Mapping[str, tuple[str, ...]]) -> dict[str, str]:
        """Add ``new`` to ``entries``, each held as its tokens joined by spaces (as a file holds
        them: memory then grows with the text, not with a token object per token) where joining
        keeps them apart, else as the tokens; returns the joined ones."""
        joined = {}
        for text, tokens in new.items():
            line = _joined(tokens)
            if line is None:
                entries[text] = tokens
            else:
                entries[text] = joined[text] = line
        return joined

    def _persist(self, signature: str, joined: dict[str, str]) -> None:
        """Write new entries (text -> tokens joined by spaces) to ``signature``'s file: appended as
        one block, or, if the file holds what was not trusted, the whole file written again with
        every entry in memory."""
        path = self._path(signature)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise file_system_error(exc, path.parent, "create segmentation cache folder") from None
        problem = input_problem(path)
        if problem not in (None, "no such file"):
            raise FileSystemError(f"{path}: segmentation cache entry {problem}")
        if signature in self._to_rewrite:
            self._rewrite(path, signature)
            self._to_rewrite.discard(signature)
            return
        if joined:
            self._append(path, _block(signature, joined).encode("utf-8"))

    @staticmethod
    def _storable(entries: Mapping[str, _Entry]) -> dict[str, str]:
        """Text -> tokens joined by spaces, for every entry whose tokens survive the join."""
        out = {}
        for text, entry in entries.items():
            joined = entry if type(entry) is str else _joined(entry)
            if joined is not None:
                out[text] = joined
        return out

    def _rewrite(self, path: Path, signature: str) -> None:
        """Write ``signature``'s file again as one block of every entry: those in memory and
        those another process appended since (read once more), untrusted ones left out."""
        entries = self._tokens[signature]
        self._read(signature, entries)
        for text in [text for text, entry in entries.items() if type(entry) is str]:
            self._tokens_of(signature, entries, text)
        data = _block(signature, self._storable(entries)).encode("utf-8")
        try:
            replace_atomically(path, lambda handle: handle.write(data), ".seg-")
        except OSError as exc:
            raise file_system_error(exc, path, "write segmentation cache") from None

    @staticmethod
    def _append(path: Path, data: bytes) -> None:
        """Append ``data`` (one block) with as few ``write`` calls as the system allows (one on
        a local file system). A block after one cut short starts a line of its own; a write that
        fails is taken back (the file cut to its former size, or removed if this write created
        it) unless another process appended meanwhile, and then the torn block is rejected when read."""
        try:
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        except OSError as exc:
            raise file_system_error(exc, path, "write segmentation cache") from None
        size, written = 0, 0
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = b"\n" + data
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                written += n
                view = view[n:]
        except OSError as exc:
            try:
                if os.fstat(fd).st_size == size + written:
                    if size:
                        os.ftruncate(fd, size)
                    else:
                        path.unlink()
            except OSError:
                pass
            raise file_system_error(exc, path, "write segmentation cache") from None
        finally:
            os.close(fd)

    def lookup(self, segmenter: Any, texts: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """The cached tokens of those of ``texts`` the cache holds under ``segmenter``'s signature."""
        signature = segmenter.signature()
        entries = self._entries(signature)
        found = {}
        for text in texts:
            tokens = self._tokens_of(signature, entries, text)
            if tokens is not None:
                found[text] = tokens
        return found

    def store(self, segmenter: Any, tokens: dict[str, Sequence[str]]) -> None:
        """Add tokens segmented elsewhere (e.g. in worker processes); written to the directory."""
        signature = segmenter.signature()
        entries = self._entries(signature)
        new = {text: tuple(toks) for text, toks in tokens.items() if self._tokens_of(signature, entries, text) is None}
        if new:
            self._add(signature, entries, new)

    def segment(self, segmenter: Any, texts: Iterable[str]) -> list[list[str]]:
        """Tokens of each text under ``segmenter``; texts not cached yet are segmented once,
        in one ``segment_many`` call, and written to the directory if there is one."""
        texts = list(texts)
        signature = segmenter.signature()
        entries = self._entries(signature)
        found: dict[str, tuple[str, ...] | None] = {text: self._tokens_of(signature, entries, text) for text in dict.fromkeys(texts)}
        todo = [text for text, tokens in found.items() if tokens is None]
        if todo:
            new = {text: tuple(tokens) for text, tokens in zip(todo, segmenter.segment_many(todo))}
            found.update(new)
            self._add(signature, entries, new)
        return [list(found[text] or ()) for text in texts]

    def __len__(self) -> int:
        return sum(len(entries) for entries in self._tokens.values())
