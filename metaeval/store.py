"""A content-addressed folder of computed results: per-segment statistics and correlations.

An entry is found by a *key*, a text naming everything the result depends on (signatures of
the metric and segmenter, SHA-256 digests of the texts, options, seed). Its file is named by
the SHA-256 of the key, ``<kind>/<first 2 hex>/<sha256>.npz``, and holds the arrays, a JSON
header (format version, kind, key, free metadata) and the SHA-256 of all of it. A read
recomputes the digest and checks the key: a truncated, altered or foreign file is a miss, so
the result is computed again and the entry rewritten. Files are written to a temporary file
in the same folder and moved into place with ``os.replace``: a reader never sees half a file,
and an interrupted run leaves only complete entries behind. No pickles are read or written.

    >>> store = Store("~/.cache/metaeval")
    >>> store.put("stats", key, {"stats": array}, {"metric": "bleu"})
    >>> store.get("stats", key)["stats"]
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from metaeval.paths import read_input_bytes, replace_atomically

FORMAT = "metaeval-store-1"
_HEADER = "__header__"


def text_digest(texts: Iterable[str]) -> str:
    """SHA-256 (hex) of a sequence of texts; each is length-prefixed, so no two sequences collide
    by concatenation."""
    h = hashlib.sha256()
    for text in texts:
        data = text.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def reference_sets_digest(refs: Iterable[Sequence[str]]) -> str:
    """:func:`text_digest` of reference texts, reference set after reference set (each set
    preceded by a separator), as the keys of stored statistics use it."""
    return text_digest(t for ref in refs for t in ["\x1e"] + list(ref))


def references_digest(corpus: Any) -> str:
    """:func:`reference_sets_digest` of a corpus's references."""
    return reference_sets_digest(corpus.refs_list())


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def _payload_digest(header: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> str:
    h = hashlib.sha256(json.dumps(header, sort_keys=True, ensure_ascii=True).encode("ascii"))
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}|{a.dtype.str}|{a.shape}".encode("ascii"))
        h.update(a.tobytes())
    return h.hexdigest()


class Store:
    """Verified, atomically written results under ``directory`` (created on first write).

    ``hits`` and ``misses`` count :meth:`get` outcomes; ``rejected`` counts files that existed
    but failed verification.
    """

    def __init__(self, directory: "str | os.PathLike[str]") -> None:
        self.directory = Path(directory).expanduser()
        self.hits = 0
        self.misses = 0
        self.rejected = 0

    def path(self, kind: str, key: str) -> Path:
        digest = key_digest(f"{kind}\n{key}")
        return self.directory / kind / digest[:2] / f"{digest}.npz"

    def get(self, kind: str, key: str) -> dict[str, Any] | None:
        """The arrays of the entry (plus ``"meta"``: its metadata), or None when absent or invalid."""
        path = self.path(kind, key)
        if not os.path.lexists(path):
            self.misses += 1
            return None
        raw = read_input_bytes(path)  # a FIFO or device entry is an error naming it, never a blocking read
        try:
            with np.load(io.BytesIO(raw), allow_pickle=False) as data:
                arrays = {name: data[name] for name in data.files}
        except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile):
            self.rejected += 1
            self.misses += 1
            return None
        entry = self._verified(arrays, kind, key)
        if entry is None:
            self.rejected += 1
            self.misses += 1
            return None
        self.hits += 1
        return entry

    @staticmethod
    def _verified(arrays: dict[str, np.ndarray], kind: str, key: str) -> dict[str, Any] | None:
        raw = arrays.pop(_HEADER, None)
        if raw is None or raw.dtype != np.uint8:
            return None
        try:
            header = json.loads(raw.tobytes().decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return None
        if not isinstance(header, dict):
            return None
        digest = header.pop("sha256", None)
        if header.get("format") != FORMAT or header.get("kind") != kind or header.get("key") != key:
            return None
        if digest != _payload_digest(header, arrays):
            return None
        return {**arrays, "meta": header.get("meta", {})}

    def put(self, kind: str, key: str, arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any] | None = None) -> None:
        """Write the entry atomically (replacing any earlier one)."""
        arrays = {name: np.ascontiguousarray(a) for name, a in arrays.items()}
        if _HEADER in arrays or "meta" in arrays:
            raise ValueError(f"array names {_HEADER!r} and 'meta' are reserved")
        header: dict[str, Any] = {"format": FORMAT, "kind": kind, "key": key, "meta": dict(meta or {})}
        header["sha256"] = _payload_digest(header, arrays)
        raw = np.frombuffer(json.dumps(header, sort_keys=True, ensure_ascii=True).encode("ascii"), dtype=np.uint8)
        path = self.path(kind, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        named: dict[str, Any] = {_HEADER: raw, **arrays}
        replace_atomically(path, lambda handle: np.savez(handle, **named), ".entry-")


def as_store(store: "Store | str | os.PathLike[str] | None") -> Store | None:
    """A :class:`Store` from a folder path (None stays None)."""
    if store is None or isinstance(store, Store):
        return store
    return Store(store)


__all__ = ["FORMAT", "Store", "as_store", "key_digest", "reference_sets_digest", "references_digest", "text_digest"]
