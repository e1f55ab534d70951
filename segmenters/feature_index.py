"""A read-only map from feature names to their indices, in arrays instead of Python objects.

pkuseg's default model names 2.6 million features; held as a ``dict`` of ``str`` to ``int``
they take 470 MB (about 90 bytes a name, 28 an index, 32 a dict entry). Here the names are
one string, cut by offset arrays, and found by binary search over their hashes, sorted: about
130 MB for the same model.

A lookup is exact: a name is found only where its hash and its text are both equal to an
entry's (every entry of an equal hash is compared), so :meth:`FeatureIndex.get` answers as
``dict.get`` would. The hashes are Python's own string hashes, which vary between processes
(``PYTHONHASHSEED``): an index is built and used in one process (a forked child shares its
parent's), and cannot be pickled.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any, Mapping

import numpy as np


def _narrowest(values: np.ndarray) -> np.ndarray:
    """``values`` as 32-bit integers if they fit, else as they are."""
    info = np.iinfo(np.int32)
    fits = values.size == 0 or (info.min <= values.min() and values.max() <= info.max)
    return values.astype(np.int32) if fits else values


class FeatureIndex:
    """``name -> value`` for a mapping's items, with ``get(name, default)`` as a dict's."""

    def __init__(self, mapping: Mapping[str, int]) -> None:
        n = len(mapping)
        self._build(np.fromiter(map(hash, mapping), np.int64, n), np.fromiter(map(len, mapping), np.int64, n),
                    np.fromiter(mapping.values(), np.int64, n), "".join(mapping))

    @classmethod
    def consuming(cls, mapping: dict[str, int], chunk: int = 1 << 16) -> "FeatureIndex":
        """The index of ``mapping``, built while ``mapping`` is emptied (``popitem``, ``chunk``
        items at a time): each name is freed once copied, so the process never holds both
        whole (pkuseg's map would otherwise add its 470 MB to the index's peak)."""
        n = len(mapping)
        hashes, lengths, values = (np.empty(n, np.int64) for _ in range(3))
        pieces: list[str] = []
        end = n
        while mapping:
            items = [mapping.popitem() for _ in range(min(chunk, len(mapping)))]  # the last ones first
            items.reverse()
            start = end - len(items)
            hashes[start:end] = np.fromiter((hash(k) for k, _ in items), np.int64, len(items))
            lengths[start:end] = np.fromiter((len(k) for k, _ in items), np.int64, len(items))
            values[start:end] = np.fromiter((v for _, v in items), np.int64, len(items))
            pieces.append("".join(k for k, _ in items))
            end = start
            del items
        index = cls.__new__(cls)
        index._build(hashes, lengths, values, "".join(reversed(pieces)))
        return index

    def _build(self, hashes: np.ndarray, lengths: np.ndarray, values: np.ndarray, text: str) -> None:
        """Entry i (in the order given) is ``text[sum(lengths[:i]):sum(lengths[:i + 1])]`` with
        its hash and value."""
        ends = np.cumsum(lengths)
        order = np.argsort(hashes, kind="stable")
        # Read from Python one item at a time: memoryviews (``ndarray.data``), whose items are Python ints at once.
        #: The entries' hashes, ascending; entry i's name is ``_text[_starts[i]:_ends[i]]``.
        self._hashes = hashes[order].data
        self._starts = _narrowest((ends - lengths)[order]).data
        self._ends = _narrowest(ends[order]).data
        self._values = _narrowest(values[order]).data
        self._text = text

    def __len__(self) -> int:
        return len(self._values)

    def get(self, name: str, default: Any = -1) -> Any:
        """The value of ``name``, or ``default`` if it is not a key."""
        h = hash(name)
        hashes = self._hashes
        i, n = bisect_left(hashes, h), len(hashes)
        while i < n and hashes[i] == h:
            if self._text[self._starts[i]:self._ends[i]] == name:
                return self._values[i]
            i += 1
        return default

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name, None) is not None

    def __reduce__(self) -> tuple:
        raise TypeError("a FeatureIndex holds this process's string hashes and cannot be pickled; "
                        "build it in each process from the model's feature map")
