"""Per-segment statistics computed once per distinct (hypothesis, references) as a metric sees
them: across systems that output the same text for a segment and across segmenters that split
it identically (:meth:`metaeval.metrics.base.Metric.reuse_key`)."""

from __future__ import annotations

from itertools import repeat
from typing import Any, Callable, Mapping, Sequence

import numpy as np


def segment_keys(kind: str, ref_tokens: list[list[list[str]]], hyp_tokens: Mapping[str, list[list[str]]],
                  ids: dict[Any, int]) -> dict[str, list[tuple]]:
    """Per system and segment, what a metric with this :meth:`~Metric.reuse_key` sees of it:
    ``(hypothesis id, reference ids)``, where ``ids`` numbers each distinct token sequence
    (``tokens``) or character string (``chars``). ``ids`` is kept for the whole run, so equal
    keys mean equal tokens for any two segmenters. A token list shared by several segments
    (one list per distinct text) is numbered once."""
    seen: dict[int, int] = {}
    as_key: Callable[[list[str]], Any] = "".join if kind == "chars" else tuple

    def number(tokens: list[str]) -> int:
        found = seen.get(id(tokens))
        if found is None:
            found = seen[id(tokens)] = ids.setdefault(as_key(tokens), len(ids))
        return found

    refs = list(zip(*[[number(r) for r in ref] for ref in ref_tokens]))
    return {name: [(number(h), refs[i]) for i, h in enumerate(hyps)] for name, hyps in hyp_tokens.items()}


class Reuse:
    """Finds segments whose statistics were already computed for another (segmenter, system).

    For a metric whose statistics depend on one segment only (``reuse_key``), a segment is
    computed once per distinct (hypothesis, references) as the metric sees them: once for
    all systems that output the same text for it (13% of the system outputs in the seven
    datasets of ``experiments.li2011``), and
    once for all segmenters that split it identically (``char`` and ``cjk-char`` on Chinese
    without Latin words; any segmenter under chrF, which ignores spaces). The first
    (segmenter, system), in segmenter order and then the corpus's system order, computes it.
    """

    def __init__(self, systems: Sequence[str]) -> None:
        self.systems = list(systems)
        #: Per reuse kind, the number of each distinct token sequence (or string) of the run.
        self.ids: dict[str, dict[Any, int]] = {}
        #: Per reuse kind and segment: the first (segmenter, system) of each key.
        self.seen: dict[str, list[dict[tuple, int]]] = {}
        #: (segmenter, kind, system): per segment, the source as segmenter * n_systems + system, -1 if none
        self.sources: dict[tuple[int, str | None, str], np.ndarray] = {}

    def plan(self, k: int, kind: str, system: str, keys: list[tuple]) -> None:
        """Record, for segmenter ``k`` and ``system``, where each segment's statistics come
        from (-1: computed here). Called in segmenter order, then system order."""
        here = k * len(self.systems) + self.systems.index(system)
        seen = self.seen.get(kind)
        if seen is None:
            seen = self.seen[kind] = [{} for _ in keys]
        source = np.fromiter(map(dict.setdefault, seen, keys, repeat(here)), dtype=np.int64, count=len(keys))
        source[source == here] = -1
        self.sources[(k, kind, system)] = source

    def wanted(self, k: int, kind: str | None, system: str) -> np.ndarray | None:
        """Rows to compute (None: every row)."""
        if kind is None:
            return None
        source = self.sources[(k, kind, system)]
        rows = np.flatnonzero(source < 0)
        return None if len(rows) == len(source) else rows

    def assemble(self, k: int, m: int, kind: str | None, system: str, computed: np.ndarray | None,
                 results: dict[tuple[int, int, str], np.ndarray]) -> np.ndarray:
        """The full statistics of (``k``, ``m``, ``system``): rows computed here and rows of the
        sources, which come earlier in the order of :meth:`plan` and so are in ``results``."""
        wanted = self.wanted(k, kind, system)
        if wanted is None:
            return computed  # type: ignore[return-value]
        source = self.sources[(k, kind, system)]
        full: np.ndarray | None = None
        for origin in sorted(set(source[source >= 0].tolist())):
            j, other = divmod(origin, len(self.systems))
            done = results[(j, m, self.systems[other])]
            if full is None:
                full = np.empty((len(source), done.shape[1]))
            rows = np.flatnonzero(source == origin)
            full[rows] = done[rows]
        assert full is not None
        if len(wanted):
            full[wanted] = computed
        return full


__all__ = ["Reuse", "segment_keys"]
