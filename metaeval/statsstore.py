"""Per-segment statistics kept by content hash in a :class:`metaeval.store.Store`, so that a
rerun computes only what changed."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from metaeval.corpora.model import Corpus
from metaeval.metrics.base import Metric


class StatsStore:
    """Per-segment statistics of (segmenter, metric, system) in a :class:`~metaeval.store.Store`.

    The key names the metric and segmenter signatures and the SHA-256 of the reference texts
    and of the system's hypothesis texts: the statistics are a function of exactly these.
    """

    def __init__(self, store, corpus: Corpus) -> None:  # noqa: ANN001
        from metaeval.store import reference_sets_digest, references_digest, text_digest

        self.store = store
        self.refs = references_digest(corpus)
        refs_list = corpus.refs_list()
        #: With several references: the digest each would have as the only reference of a corpus.
        self.each_ref = [reference_sets_digest([ref]) for ref in refs_list] if len(refs_list) > 1 else []
        self.hyps = {name: text_digest(hyps) for name, hyps in corpus.systems.items()}

    def key(self, seg_signature: str, metric_signature: str, system: str, refs: str | None = None) -> str:
        return f"{metric_signature}\n{seg_signature}\nrefs:{refs or self.refs}\nhyps:{self.hyps[system]}"

    def get(self, seg_signature: str, metric_signature: str, system: str, n_seg: int, refs: str | None = None) -> np.ndarray | None:
        if self.store is None:
            return None
        entry = self.store.get("stats", self.key(seg_signature, metric_signature, system, refs))
        if entry is None or entry["stats"].ndim != 2 or entry["stats"].shape[0] != n_seg:
            return None
        return entry["stats"]

    def combined(self, seg_signature: str, metric: Metric, metric_signature: str, system: str, n_seg: int) -> np.ndarray | None:
        """Statistics against all references, from those a run on each reference alone stored
        (:meth:`~metaeval.metrics.base.Metric.combine_references`), kept under this corpus's key;
        None if the metric cannot combine them or one reference's are not stored."""
        combine = getattr(metric, "combine_references", None)  # a plug-in metric may lack it
        if self.store is None or not self.each_ref or combine is None:
            return None
        if getattr(type(metric), "combine_references", None) is Metric.combine_references:
            return None  # the default never combines (BLEU, NIST, GTM): nothing to read
        per_reference = []
        for digest in self.each_ref:
            stats = self.get(seg_signature, metric_signature, system, n_seg, refs=digest)
            if stats is None:
                return None
            per_reference.append(stats)
        combined = combine(per_reference)
        if combined is None or np.shape(combined) != per_reference[0].shape:
            return None
        combined = np.asarray(combined, dtype=np.float64)
        self.put(seg_signature, metric_signature, system, combined)
        return combined

    def put(self, seg_signature: str, metric_signature: str, system: str, stats: np.ndarray) -> None:
        if self.store is not None:
            self.store.put("stats", self.key(seg_signature, metric_signature, system), {"stats": stats})

    def _measure_key(self, seg_signature: str) -> str:
        return f"reference characters and tokens\n{seg_signature}\nrefs:{self.refs}"

    def measure_references(self, seg_signature: str, tokens: Sequence[Sequence[Sequence[str]]]) -> float:
        """Mean characters per token of the references' ``tokens`` (the sweep's measure),
        kept in the store (once) for runs that will not segment them."""
        counts = np.array([sum(len(t) for ref in tokens for seg in ref for t in seg), sum(len(seg) for ref in tokens for seg in ref)])
        key = self._measure_key(seg_signature)
        if self.store is not None and not self.store.path("stats", key).exists():
            self.store.put("stats", key, {"stats": counts.astype(np.float64)})
        return _ratio(counts)

    def stored_reference_measure(self, seg_signature: str) -> float | None:
        """What :meth:`measure_references` kept for this segmenter and these references, if anything."""
        entry = None if self.store is None else self.store.get("stats", self._measure_key(seg_signature))
        if entry is None or entry["stats"].shape != (2,):
            return None
        return _ratio(entry["stats"])


def _ratio(counts: np.ndarray) -> float:
    return float(counts[0] / counts[1]) if counts[1] else float("nan")


__all__ = ["StatsStore"]
